"""The app's side of Textual's private API: which screens count as visible, whether the app is exiting, its
notices, dead watchers, the style memo, and one parse of each CSS source per process."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen


# app ----------------------------------------------------------------------------------------------------------
class CoveredScreensStayDark(App):
    """Textual counts the screen under the top one as visible (`App._background_screens`) whatever the top
    screen's background: it only stops at the first *lower* screen that is opaque. So a covered screen's updates
    (the browser's live row and its Age cells, under an open session) were forwarded to the top screen as dirty
    regions, repainting most of it several times a second: 200 KB/s at 160x48 for nothing that could be seen.
    When the top screen is opaque nothing under it shows: no background screens. A covered screen then catches
    up when it is shown again (Screen resume re-lays it out if the size changed and repaints it whole)."""

    @property
    def _background_screens(self) -> list[Screen]:
        stack = self._screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []
        return App._background_screens.fget(self)  # type: ignore[attr-defined]


def app_is_exiting(app: App) -> bool:
    """`App._exit` (set by exit()) and `App._running` (cleared as the app stops): Textual has no public "is
    shutting down", and timers and workers still delivering must not touch screens that are losing widgets."""
    return bool(app._exit or not app._running)


def drop_notifications(app: App, message: str, title: str) -> None:
    """Take down the notices showing `message` under `title` (`App._notifications`, `App._unnotify`): Textual
    has no public way to replace one notice, and a key pressed five times stacked five identical toasts."""
    same = [n for n in app._notifications if n.message == message and n.title == title]
    for notification in same:
        app._unnotify(notification, refresh=notification is same[-1])


def drop_closed_watchers(obj: Any, reactive_name: str) -> None:
    """Textual's Reactive keeps an object's watchers in its `__watchers` attribute and only prunes closed nodes
    when the reactive changes. Footer's `compact` never changes, so every FooterKey ever composed stayed alive
    (28 widgets per screen change): drop the watchers of closing/closed nodes (`_closing`, `_closed`)."""
    watchers = getattr(obj, "__watchers", {}).get(reactive_name)
    if watchers:
        watchers[:] = [(node, callback) for node, callback in watchers if not (node._closing or node._closed)]


def release_style_memo() -> None:
    """`textual._styles_cache.StylesCache.get_inner_outer` is an lru_cache holding Style objects of closed
    widgets; clearing it before an idle collection lets those be freed."""
    try:
        from textual._styles_cache import StylesCache

        StylesCache.get_inner_outer.cache_clear()
    except (ImportError, AttributeError):  # another textual: nothing of ours to undo
        pass


# stylesheet ---------------------------------------------------------------------------------------------------
_PARSED: dict[tuple, list] = {}
_PARSED_MAX = 1024  # sources × themes seen by one process: a few hundred at most


def share_parsed_css() -> None:
    """Parse each CSS source once per process (wraps `Stylesheet._parse_rules`). Textual re-parses every source
    whenever a stylesheet is re-parsed: `Stylesheet.reparse` starts from a new Stylesheet with an empty cache, at
    each theme change and each screen whose CSS is new (the preload adds seven). Parsed rules depend only on the
    text, where it was read from, the scope and the CSS variables (`Stylesheet._variables`), and nothing changes
    them after parsing, so one cache keyed on all of those serves every stylesheet. With tui.ui.preload.add_css it
    takes the UI thread's pause after the first screen from 35-51 ms to 7-9 ms (tests/ui/test_css_once.py counts
    the parses), a theme seen before costs no parse, and tests, which start hundreds of apps in one process, parse
    Textual's widgets' CSS once (an app's start-up CPU: 0.55 s -> 0.43 s)."""
    from textual.css.stylesheet import Stylesheet

    parse = Stylesheet._parse_rules
    if getattr(parse, "shared", False):
        return

    def _parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                     tie_breaker: int = 0, scope: str = "") -> list:
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(self._variables.items()))
        rules = _PARSED.get(key)
        if rules is None:
            rules = parse(self, css, read_from, is_default_rules, tie_breaker, scope)  # raises on bad CSS: uncached
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[key] = rules
        return rules

    _parse_rules.shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]
