"""Full garbage collections when nobody is waiting for the screen.

A closed session screen is tens of thousands of objects held in cycles (widgets and their parents, styles and
their nodes, timers), and they have lived long enough to sit in the oldest generation: only a full collection
frees them. Left to the collector's own schedule, the garbage of several drill-downs piled up and one full
collection freed it all in the middle of a key press, stalling the UI for 0.4-0.6 s on a 100,000-op session.
Collecting soon after a screen closes, once input has been quiet for a moment, frees one screen's worth
(~0.1 s) while the user is reading.

Textual memoises a colour pair per StylesCache (`get_inner_outer`, an lru_cache of 1,024 entries keyed by the
instance), which would keep closed screens' StylesCaches alive with every line they drew: it is emptied first
(the next frame recomputes one Style per colour pair).

Frozen garbage: long-lived heaps (a listing's rows, the OTLP spans held) are moved out of the collector's reach with
gc.freeze(), and whatever cyclic garbage exists at that moment is frozen with them and never collected: under an
OTLP flood, the browser's discarded rendering objects (segments, strips, caches of re-sorted tables) piled up to
1.5 million frozen garbage objects per million spans, growing with running time. When the frozen count has grown
by REFREEZE_GROWTH since the last time, the next quiet moment unfreezes, collects and freezes again (a full
collection of everything, 0.3-0.5 s with 100,000 spans held: only while nobody is typing). Watched only while an
OTLP receiver or an event stream runs (the streams freeze after every read: tui.inputs.stream.event_stream): a
listing or a session freezes its heap once, with little garbage in it."""

from __future__ import annotations

import time

from typing import TYPE_CHECKING, Any

from tui.model import gc_pause
from tui.ui.textual_compat import release_style_memo

if TYPE_CHECKING:
    from textual.app import App

    class AppMixin(App[Any]):
        """For the type checker only: what the collector uses of MonitorApp."""

        def closing(self) -> bool: ...
else:
    AppMixin = object  # at run time a plain mixin; MonitorApp provides set_timer and closing

QUIET_SECONDS = 0.4  # no key, click or scroll for this long: the user is reading, not waiting
REFREEZE_GROWTH = 1_000_000  # objects frozen since the last refreeze before frozen garbage is looked for
REFREEZE_CHECK_SECONDS = 5.0  # how often the frozen count is looked at (while nobody types: _check_frozen)


class IdleCollector(AppMixin):
    """Mixed into MonitorApp (which provides set_timer and closing)."""

    _last_input = 0.0
    _collect_pending = False
    _refreeze_due = False
    _frozen_after_refreeze = 0  # gc_pause.frozen_count() after the last refreeze

    def note_input(self) -> None:
        self._last_input = time.monotonic()

    def collect_when_idle(self) -> None:
        if not self._collect_pending:
            self._collect_pending = True
            self.set_timer(QUIET_SECONDS, self._collect_if_idle)

    def _collect_if_idle(self) -> None:
        if self.closing():
            return
        quiet = time.monotonic() - self._last_input
        if quiet < QUIET_SECONDS:
            self.set_timer(QUIET_SECONDS - quiet + 0.01, self._collect_if_idle)
            return
        self._collect_pending = False
        release_style_memo()
        refreeze, self._refreeze_due = self._refreeze_due, False
        gc_pause.collect(refreeze=refreeze)
        if refreeze:
            self._frozen_after_refreeze = gc_pause.frozen_count()

    def watch_frozen_garbage(self) -> None:
        """Look at the frozen count every REFREEZE_CHECK_SECONDS (called once, on mount)."""
        self._frozen_after_refreeze = gc_pause.frozen_count()
        self.set_interval(REFREEZE_CHECK_SECONDS, self._check_frozen)

    def _check_frozen(self) -> None:
        """Counting the frozen objects walks them all (CPython 3.11: ~10 ms a million, 50 ms under a stream's
        flood): only while nobody is typing, like the collections themselves."""
        if time.monotonic() - self._last_input < QUIET_SECONDS:
            return
        if not self._refreeze_due and gc_pause.frozen_count() - self._frozen_after_refreeze >= REFREEZE_GROWTH:
            self._refreeze_due = True
            self.collect_when_idle()

