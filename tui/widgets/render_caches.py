"""Textual memoises a colour pair per StylesCache (`get_inner_outer`, lru_cache of 1,024 entries keyed by the
instance), which keeps the StylesCaches of closed screens alive with every line they drew: about 1,000 lines
per closed session screen, up to the cap. Clearing it when a screen closes costs one Style per colour pair to
recompute on the next frame."""

from __future__ import annotations


def release_closed_screen_caches() -> None:
    try:
        from textual._styles_cache import StylesCache

        StylesCache.get_inner_outer.cache_clear()
    except (ImportError, AttributeError):  # another textual: nothing of ours to undo
        pass
