"""Snapshot history on the session screen: `[` and `]` step through the recorded versions, `D` compares two.

While an older version is shown, live updates keep arriving (the screen's document follows them) but the view
stays on that version until `]` walks forward past the newest one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tui.formats.aiagent.history import Version, version_time
from tui.model.format import fmt_bytes, fmt_cost
from tui.model.nodes import Session, release_tree
from tui.model.search import find_session_by_prefix
from tui.ui.messages import HistoryChanged

if TYPE_CHECKING:
    from textual.screen import Screen

    from tui.model.document import Document
    from tui.model.nodes import Op, Turn
    from tui.ui.live_controller import LiveController
    from tui.ui.widgets.op_tree import OpTree

    class SessionScreenMixin(Screen[Any]):
        """For the type checker only: what HistoryView uses of the SessionScreen it is mixed into."""

        doc: Document
        session: Session
        live_root: str | None
        live: LiveController
        _key: str | None

        @property
        def tree(self) -> OpTree: ...  # type: ignore[override]
        def show_node(self, node: object) -> None: ...
        def select_op(self, target: Op | Turn | Session | str, *,
                      lift_filter: bool = True) -> Op | Turn | Session | None: ...
        def replace_session(self, session: Session, doc: Document | None = None) -> None: ...
        def _sync_holds(self) -> None: ...
        def history_holds(self, doc: Document | None = None) -> bool: ...
        def update_live_panel(self) -> None: ...
        _held: dict[int, Session]
        def _status(self, message: str) -> None: ...
else:
    SessionScreenMixin = object


class HistoryView(SessionScreenMixin):
    """Mixed into SessionScreen (which provides doc, session, live_root, live, tree, replace_session, _status)."""

    viewing: Version | None = None  # the older version on screen; None = the live (newest) view
    _history_root: Session | None = None  # the rebuilt tree this screen owns while viewing a version
    _wanted_version: Version | None = None
    _saved_clocks: Callable[[], int] | None = None

    # the app's records ----------------------------------------------------------------------------------
    @property
    def history_key(self) -> str | None:
        return self.live.history_key(self.doc, self.live_root)

    def history_versions(self) -> list[Version]:
        key = self.history_key
        return self.live.history.versions(key) if key else []

    def on_history_changed(self, message: HistoryChanged) -> None:
        if message.key == self.history_key and self.is_mounted:
            self.update_history_banner()

    def _live_is_latest(self, versions: list[Version]) -> bool:
        """The live view shows the newest recorded version (not something newer, not yet recorded)."""
        shown = self.live.history_shown.get(self.history_key or "")
        return bool(versions) and shown is not None and shown.seq == versions[-1].seq

    @staticmethod
    def _index(versions: list[Version], version: Version) -> tuple[int, bool]:
        """Where `version` is in the list, or where it was (the next kept one) if it has been dropped since."""
        for n, v in enumerate(versions):
            if v.seq >= version.seq:
                return n, v.seq == version.seq
        return len(versions), False

    def history_holds(self, doc=None) -> bool:
        """A newer document or live build arrived: while an older version is on screen, keep it there."""
        if self.viewing is None:
            return False
        if doc is not None:
            self.doc = doc
        self.update_history_banner()
        return True

    # keys -----------------------------------------------------------------------------------------------
    @property
    def _stepped_to(self) -> Version | None:
        """The version the last key asked for (it may still be rebuilding), else the one on screen."""
        return self._wanted_version or self.viewing

    def action_history_back(self) -> None:
        versions = self.history_versions()
        current = self._stepped_to
        if current is not None:
            index, _ = self._index(versions, current)
            target = index - 1
        else:
            target = len(versions) - (2 if self._live_is_latest(versions) else 1)
        if target < 0:
            self.notify("no older version: versions are kept from when you opened the session, each time it changes"
                        if len(versions) < 2 else "this is the oldest version kept", severity="warning")
            return
        self.view_version(versions[target])

    def action_history_forward(self) -> None:
        current = self._stepped_to
        if current is None:
            self.notify("this is the newest version (live)")
            return
        versions = self.history_versions()
        index, found = self._index(versions, current)
        target = index + 1 if found else index
        if target >= len(versions) or (target == len(versions) - 1 and self._live_is_latest(versions)):
            self.view_live()
        else:
            self.view_version(versions[target])

    def action_history_diff(self) -> None:
        versions = self.history_versions()
        if len(versions) < 2:
            self.notify("one version so far: nothing to compare yet (to compare two files, mark one with m in "
                        "the browser and press d on the other)", severity="warning")
            return
        from tui.ui.screens.diff import DiffScreen

        history, key, prefix = self.live.history, self.history_key, self.session.path_prefix
        current = self.viewing or versions[-1]
        first = versions[0]
        if current.seq == first.seq:  # viewing the first version: what the next one changed, not itself
            current = versions[1]
        self.app.push_screen(DiffScreen(
            None, versions=versions, a=first, b=current, load_version=lambda v: history.session(key, v),
            scope=prefix, on_open_op=self._open_from_diff, on_view_version=self._view_from_diff,
        ))

    def _view_from_diff(self, version: Version) -> None:
        versions = self.history_versions()
        if versions and version.seq == versions[-1].seq and self._live_is_latest(versions):
            self.view_live()
        else:
            self.view_version(version)

    def _open_from_diff(self, path: str, version: Version) -> None:
        def reveal() -> None:
            if self.select_op(path) is None:
                self.notify(f"no op at {path} in this view", severity="warning")

        versions = self.history_versions()
        if versions and version.seq == versions[-1].seq and self._live_is_latest(versions):
            self.view_live()
            self.call_after_refresh(reveal)
        elif self.viewing is not None and self.viewing.seq == version.seq:
            reveal()
        else:
            self.view_version(version, then=reveal)

    # showing a version ----------------------------------------------------------------------------------
    def view_version(self, version: Version, then=None) -> None:
        history, key = self.live.history, self.history_key
        if key is None:
            return
        self._wanted_version = version
        self._status(f"loading version {version.seq}…")

        def build() -> None:
            root = history.session(key, version)
            try:
                self.app.call_from_thread(self._show_version, version, root, then)
            except RuntimeError:
                pass

        self.run_worker(build, thread=True, group="history-view", exit_on_error=False)

    def _show_version(self, version: Version, root: Session | None, then) -> None:
        if version is not self._wanted_version or not self.is_mounted:
            if root is not None:
                release_tree(root)
            return
        if root is None:
            self._wanted_version = self.viewing
            self._status("")
            self.notify(f"version {version.seq} is no longer kept", severity="warning")
            return
        session = find_session_by_prefix(root, self.session.path_prefix)
        if session is None:
            self._wanted_version = self.viewing
            self._status("")
            self.notify(f"this sub-agent did not exist yet in version {version.seq}", severity="warning")
            release_tree(root)
            return
        self._history_root = root  # (held by the screen while shown: the older one is let go as it leaves)
        self.viewing = version
        self._freeze_clocks(version.clock_ms)
        self.replace_session(session)
        self._status("")
        self.update_history_banner()
        if then is not None:
            self.call_after_refresh(then)

    def view_live(self) -> None:
        root = self.doc.root
        session = find_session_by_prefix(root, self.session.path_prefix) if root is not None else None
        if session is None:
            self.notify("the newest version has no such sub-agent", severity="warning")
            return
        self._history_root = None
        self.viewing = self._wanted_version = None
        self._restore_clocks()
        self.replace_session(session)
        self.update_history_banner()

    def inherit_history(self, parent: "HistoryView") -> None:
        """A sub-agent opened from an older version stays on that version (its tree belongs to the parent)."""
        self.viewing = parent.viewing

    def on_mount(self) -> None:
        self.query_one("#history", Static).display = False
        if self.viewing is not None:
            self._freeze_clocks(self.viewing.clock_ms)
            self.update_history_banner()

    def on_unmount(self) -> None:
        self._history_root = None  # (the screen's holds are let go as it unmounts)

    def _freeze_clocks(self, clock_ms: int) -> None:
        if self._saved_clocks is None:
            self._saved_clocks = self.tree.clock
        self.tree.clock = lambda: clock_ms

    def _restore_clocks(self) -> None:
        if self._saved_clocks is not None:
            self.tree.clock = self._saved_clocks
            self._saved_clocks = None

    # the banner -----------------------------------------------------------------------------------------
    def update_history_banner(self) -> None:
        banner = self.query_one("#history", Static)
        versions = self.history_versions()
        if self.viewing is None:
            banner.set_class(False, "viewing")
            banner.display = len(versions) >= 2
            if banner.display:
                stored = self.live.history.stored_bytes(self.history_key)
                banner.update(Text(f" history: {len(versions):,} versions kept ({fmt_bytes(stored)} of distinct "
                                   "content) · [ steps back · D compares two", style="dim"))
            return
        v = self.viewing
        index, found = self._index(versions, v)
        where = f"version {index + 1}/{len(versions)}" if found else f"version #{v.seq} (dropped)"
        s = v.summary
        text = Text()
        text.append(f" ◀ {where} · {version_time(v)} · ", style="bold")
        text.append(f"{s.ops:,} ops · {s.status} · {fmt_cost(s.cost)} · id {v.short_id}")
        text.append(" — viewing history, live updates paused for this view · ] forward · [ back · D compare",
                    style="bold")
        banner.update(text)
        banner.set_class(True, "viewing")
        banner.display = True
