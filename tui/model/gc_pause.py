"""Pause the cyclic garbage collector while a big document is parsed and walked.

Parsing a 36 MB snapshot creates millions of containers; with the collector on, its generational passes re-scan
them over and over and loading takes 4-5 times longer. Parsed JSON has no cycles, so nothing is lost by waiting.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


class paused_gc:  # noqa: N801 - used as a function: `with paused_gc():`
    """The collector off inside the block (and back on after, if it was on). A class, not a @contextmanager: the
    sessions index pauses it once per file, 100,000s of times, and a generator's resume and StopIteration cost
    several times these two calls."""

    __slots__ = ("was_enabled",)

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            gc.enable()


@contextmanager
def paused_gc_then_frozen():
    """paused_gc, and what exists at the end (a freshly loaded document) is moved out of the collector's reach
    before it comes back on: otherwise its next passes scan every new container (a tenth of a second per 20,000
    ops). Parsed JSON has no cycles, and trees are released explicitly (nodes.release_tree)."""
    with paused_gc():
        try:
            yield
        finally:
            gc.freeze()  # before the collector comes back on
