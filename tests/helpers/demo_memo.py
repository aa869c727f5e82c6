"""The demo generator's trees made once per test process (installed by tests/conftest.py).

`tui.demo.make_tree` is a pure function of its arguments (a seeded generator; BASE_MS is a constant), and the
suite asks it for the same trees again and again: 799 calls took 27 s of the suite's CPU (of ~630 s). Each call now
gets a fresh copy of the tree made the first time: decoded from its JSON, when that gives the tree back exactly
(it does for every tree the generator makes today; a tree with a tuple or a number JSON cannot hold is
deep-copied instead), so a test that changes its tree changes nobody else's."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import orjson

_MADE: dict[tuple, tuple[bytes | None, Any]] = {}
ENABLED = [True]  # off for the generator's own tests (tests/demo/conftest.py): its determinism is what they test


def memoized(make: Callable[..., dict]) -> Callable[..., dict]:
    @wraps(make)
    def make_tree(*args: Any, **kwargs: Any) -> dict:
        if not ENABLED[0]:
            return make(*args, **kwargs)
        try:
            key = (args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # (an argument that cannot be a key: made afresh)
            return make(*args, **kwargs)
        made = _MADE.get(key)
        if made is None:
            tree = make(*args, **kwargs)
            try:
                data = orjson.dumps(tree)
                made = (data, None) if orjson.loads(data) == tree else (None, tree)
            except (TypeError, orjson.JSONEncodeError):
                made = (None, tree)
            _MADE[key] = made
        data, tree = made
        return orjson.loads(data) if data is not None else copy.deepcopy(tree)

    make_tree.memoized = True  # type: ignore[attr-defined]
    return make_tree


def install() -> None:
    """Every name `make_tree` the demo package binds, memoized (its modules import it by name)."""
    import tui.demo
    import tui.demo.files
    import tui.demo.start
    import tui.demo.tree

    original = tui.demo.tree.make_tree
    if getattr(original, "memoized", False):
        return
    fast = memoized(original)
    for name, module in list(sys.modules.items()):
        if (name == "tui.demo" or name.startswith("tui.demo.")) and getattr(module, "make_tree", None) is original:
            module.make_tree = fast  # type: ignore[attr-defined]
