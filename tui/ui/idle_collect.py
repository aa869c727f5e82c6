"""Full garbage collections when nobody is waiting for the screen.

A closed session screen is tens of thousands of objects held in cycles (widgets and their parents, styles and
their nodes, timers), and they have lived long enough to sit in the oldest generation: only a full collection
frees them. Left to the collector's own schedule, the garbage of several drill-downs piled up and one full
collection freed it all in the middle of a key press, stalling the UI for 0.4-0.6 s on a 100,000-op session.
Collecting soon after a screen closes, once input has been quiet for a moment, frees one screen's worth
(~0.1 s) while the user is reading.

Textual memoises a colour pair per StylesCache (`get_inner_outer`, an lru_cache of 1,024 entries keyed by the
instance), which would keep closed screens' StylesCaches alive with every line they drew: it is emptied first
(the next frame recomputes one Style per colour pair)."""

from __future__ import annotations

import gc
import time

from typing import TYPE_CHECKING, Any

from tui.ui.textual_compat import release_style_memo

if TYPE_CHECKING:
    from textual.app import App

    class AppMixin(App[Any]):
        """For the type checker only: what the collector uses of MonitorApp."""

        def closing(self) -> bool: ...
else:
    AppMixin = object  # at run time a plain mixin; MonitorApp provides set_timer and closing

QUIET_SECONDS = 0.4  # no key, click or scroll for this long: the user is reading, not waiting


class IdleCollector(AppMixin):
    """Mixed into MonitorApp (which provides set_timer and closing)."""

    _last_input = 0.0
    _collect_pending = False

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
        gc.collect()

