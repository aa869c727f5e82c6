"""The one door to the cyclic garbage collector: every pause, freeze, full collection and threshold of the app.

Why the app steers the collector at all: parsing a 36 MB snapshot creates millions of containers, and with the
collector on its generational passes re-scan them over and over (loading takes 4-5 times longer); a listing of
100,000 files is 100,000s of small objects that the next passes would scan for nothing (a quarter of a second,
while the first rows are shown). Parsed JSON and rows have no cycles, so nothing is lost by waiting, and what lives
long (a loaded document, a listing, the spans held) is frozen out of the collector's reach. What does hold cycles
(a closed screen's widgets) is collected in full while the user is reading (tui.ui.idle_collect says when).

The boundaries that use it: loading (tui.formats.load, the OTLP sink, live trees, history versions), listing
(tui.catalog.scan, the sessions index: sync, facts_fill) and the UI (thresholds at start-up, idle collections).
Only this module imports `gc`.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

# The UI's generations: a full collection scans every live widget, style and cache of the UI (some 30 ms on 2 cores,
# more with the garbage of a closed screen); by default one follows every 10th middle-generation pass, which opening
# a screen on a big session triggers several times. Every 100th keeps drill-downs under 100 ms.
GC_THRESHOLDS = (700, 10, 100)


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
    """paused_gc, and what exists at the end (a freshly loaded document, a listing's rows) is moved out of the
    collector's reach before it comes back on: otherwise its next passes scan every new container (a tenth of a
    second per 20,000 ops, a quarter of a second per 100,000 rows). Parsed JSON has no cycles, and trees are
    released explicitly (nodes.release_tree)."""
    with paused_gc():
        try:
            yield
        finally:
            gc.freeze()  # before the collector comes back on


def freeze() -> None:
    """Move what exists now (a loaded document, the rows listed) out of the collector's reach; refcounting still
    frees it. Whatever cyclic garbage exists at that moment is frozen with it: see collect(refreeze=True)."""
    gc.freeze()


def off_for_good() -> None:
    """A one-shot command (dump, export) over acyclic parsed JSON: the collector would only re-scan it."""
    gc.disable()


def tune_for_ui() -> None:
    """The app's thresholds (GC_THRESHOLDS), set once on mount."""
    gc.set_threshold(*GC_THRESHOLDS)


def collect(*, refreeze: bool = False) -> None:
    """A full collection (a closed screen's cycles live in the oldest generation). `refreeze`: the frozen objects
    too (unfrozen, collected, frozen again), for frozen garbage that has piled up; slower: only when nobody waits."""
    if refreeze:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    else:
        gc.collect()


def frozen_count() -> int:
    """How many objects are frozen (CPython 3.11 walks them: O(n)): its growth tells when frozen garbage is worth a
    refreeze."""
    return gc.get_freeze_count()
