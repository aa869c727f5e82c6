"""Which test modules use the scenes (tests/helpers/scenes.py), which are written at fixed paths: those take turns
across parallel workers (tests/ui/conftest.py) and run on one worker under --dist loadgroup (tests/conftest.py)."""

from __future__ import annotations


def uses_scenes(module) -> bool:
    return any(getattr(v, "__name__", None) == "helpers.scenes" or getattr(v, "__module__", None) == "helpers.scenes"
               for v in vars(module).values())
