"""Snapshot history on the session screen: `[` and `]` step through the recorded versions, `D` compares two.

While an older version is shown, live updates keep arriving (the screen's document follows them) but the view
stays on that version until `]` walks forward past the newest one. A SessionScreen owns one VersionHistory (by
composition): it keeps the version last asked for and the tree rebuilt for it; the screen's `viewing` reactive is
the version on screen (None: the newest), and its banner follows it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from tui.formats.aiagent.history import Version, version_time
from tui.model.format import fmt_bytes, fmt_cost
from tui.model.nodes import Session, release_tree
from tui.model.search import find_session_by_prefix

if TYPE_CHECKING:
    from textual.app import App

    from tui.model.document import Document
    from tui.model.nodes import Op, Turn
    from tui.ui.live_controller import LiveController
    from tui.ui.widgets.op_tree import OpTree


class HistoryHost(Protocol):
    """What a VersionHistory reads and calls on its screen (a SessionScreen)."""

    doc: Document
    session: Session
    live_root: str | None
    live: LiveController
    viewing: Version | None

    @property
    def app(self) -> App[Any]: ...
    @property
    def tree(self) -> OpTree: ...
    @property
    def is_mounted(self) -> bool: ...
    @property
    def notify(self) -> Callable[..., None]: ...
    @property
    def call_after_refresh(self) -> Callable[..., Any]: ...
    @property
    def run_worker(self) -> Callable[..., Any]: ...
    def select_op(self, target: Op | Turn | Session | str, *,
                  lift_filter: bool = True) -> Op | Turn | Session | None: ...
    def replace_session(self, session: Session, doc: Document | None = None) -> None: ...
    def set_status(self, message: str) -> None: ...
    def show_banner(self, text: Text | None, viewing: bool = False) -> None: ...


def version_index(versions: list[Version], version: Version) -> tuple[int, bool]:
    """Where `version` is in the list, or where it was (the next kept one) if it has been dropped since."""
    for n, v in enumerate(versions):
        if v.seq >= version.seq:
            return n, v.seq == version.seq
    return len(versions), False


class VersionHistory:
    """The versions of the session one screen shows, and which of them is on that screen."""

    def __init__(self, screen: HistoryHost) -> None:
        self.screen = screen
        self.root: Session | None = None  # the rebuilt tree this screen owns while viewing a version
        self.wanted: Version | None = None  # the version the last key asked for (it may still be rebuilding)
        self._saved_clock: Callable[[], int] | None = None

    # the app's records ----------------------------------------------------------------------------------
    @property
    def key(self) -> str | None:
        screen = self.screen
        return screen.live.history_key(screen.doc, screen.live_root)

    def versions(self) -> list[Version]:
        key = self.key
        return self.screen.live.history.versions(key) if key else []

    def live_is_latest(self, versions: list[Version]) -> bool:
        """The live view shows the newest recorded version (not something newer, not yet recorded)."""
        shown = self.screen.live.history_shown.get(self.key or "")
        return bool(versions) and shown is not None and shown.seq == versions[-1].seq

    def holds(self, doc: Document | None = None) -> bool:
        """A newer document or live build arrived: while an older version is on screen, keep it there."""
        if self.screen.viewing is None:
            return False
        if doc is not None:
            self.screen.doc = doc
        self.update_banner()
        return True

    # keys -----------------------------------------------------------------------------------------------
    def back(self) -> None:
        versions = self.versions()
        current = self.wanted or self.screen.viewing
        if current is not None:
            target = version_index(versions, current)[0] - 1
        else:
            target = len(versions) - (2 if self.live_is_latest(versions) else 1)
        if target < 0:
            self.screen.notify("no older version: versions are kept from when you opened the session, each time it "
                               "changes" if len(versions) < 2 else "this is the oldest version kept",
                               severity="warning")
            return
        self.view_version(versions[target])

    def forward(self) -> None:
        current = self.wanted or self.screen.viewing
        if current is None:
            self.screen.notify("this is the newest version (live)")
            return
        versions = self.versions()
        index, found = version_index(versions, current)
        target = index + 1 if found else index
        if target >= len(versions) or (target == len(versions) - 1 and self.live_is_latest(versions)):
            self.view_live()
        else:
            self.view_version(versions[target])

    def diff(self) -> None:
        versions = self.versions()
        screen = self.screen
        if len(versions) < 2:
            screen.notify("one version so far: nothing to compare yet (to compare two files, mark one with m in "
                          "the browser and press d on the other)", severity="warning")
            return
        from tui.ui.screens.diff import DiffScreen

        history, key, prefix = screen.live.history, self.key, screen.session.path_prefix
        current = screen.viewing or versions[-1]
        first = versions[0]
        if current.seq == first.seq:  # viewing the first version: what the next one changed, not itself
            current = versions[1]
        screen.app.push_screen(DiffScreen(
            None, versions=versions, a=first, b=current, load_version=lambda v: history.session(key, v),
            scope=prefix, on_open_op=self._open_from_diff, on_view_version=self._view_from_diff,
        ))

    def _is_newest(self, version: Version) -> bool:
        versions = self.versions()
        return bool(versions) and version.seq == versions[-1].seq and self.live_is_latest(versions)

    def _view_from_diff(self, version: Version) -> None:
        if self._is_newest(version):
            self.view_live()
        else:
            self.view_version(version)

    def _open_from_diff(self, path: str, version: Version) -> None:
        screen = self.screen

        def reveal() -> None:
            if screen.select_op(path) is None:
                screen.notify(f"no op at {path} in this view", severity="warning")

        if self._is_newest(version):
            self.view_live()
            screen.call_after_refresh(reveal)
        elif screen.viewing is not None and screen.viewing.seq == version.seq:
            reveal()
        else:
            self.view_version(version, then=reveal)

    # showing a version ----------------------------------------------------------------------------------
    def view_version(self, version: Version, then: Callable[[], None] | None = None) -> None:
        history, key, screen = self.screen.live.history, self.key, self.screen
        if key is None:
            return
        self.wanted = version
        screen.set_status(f"loading version {version.seq}…")

        def build() -> None:
            root = history.session(key, version)
            try:
                screen.app.call_from_thread(self._show_version, version, root, then)
            except RuntimeError:
                pass

        screen.run_worker(build, thread=True, group="history-view", exit_on_error=False)

    def _show_version(self, version: Version, root: Session | None, then: Callable[[], None] | None) -> None:
        screen = self.screen
        if version is not self.wanted or not screen.is_mounted:
            if root is not None:
                release_tree(root)
            return
        session = find_session_by_prefix(root, screen.session.path_prefix) if root is not None else None
        if session is None:
            self.wanted = screen.viewing
            screen.set_status("")
            screen.notify(f"version {version.seq} is no longer kept" if root is None else
                          f"this sub-agent did not exist yet in version {version.seq}", severity="warning")
            if root is not None:
                release_tree(root)
            return
        self.root = root  # (held by the screen while shown: the older one is let go as it leaves)
        self.freeze_clock(version.clock_ms)
        screen.viewing = version
        screen.replace_session(session)
        screen.set_status("")
        self.update_banner()
        if then is not None:
            screen.call_after_refresh(then)

    def view_live(self) -> None:
        screen = self.screen
        root = screen.doc.root
        session = find_session_by_prefix(root, screen.session.path_prefix) if root is not None else None
        if session is None:
            screen.notify("the newest version has no such sub-agent", severity="warning")
            return
        self.root = None
        self.wanted = None
        screen.viewing = None
        self.restore_clock()
        screen.replace_session(session)
        self.update_banner()

    def mounted(self) -> None:
        if self.screen.viewing is not None:
            self.freeze_clock(self.screen.viewing.clock_ms)
        self.update_banner()

    def freeze_clock(self, clock_ms: int) -> None:
        tree = self.screen.tree
        if self._saved_clock is None:
            self._saved_clock = tree.clock
        tree.clock = lambda: clock_ms

    def restore_clock(self) -> None:
        if self._saved_clock is not None:
            self.screen.tree.clock = self._saved_clock
            self._saved_clock = None

    # the banner -----------------------------------------------------------------------------------------
    def update_banner(self) -> None:
        screen = self.screen
        versions = self.versions()
        v = screen.viewing
        if v is None:
            if len(versions) < 2:
                screen.show_banner(None)
                return
            stored = screen.live.history.stored_bytes(self.key)
            screen.show_banner(Text(f" history: {len(versions):,} versions kept ({fmt_bytes(stored)} of distinct "
                                    "content) · [ steps back · D compares two", style="dim"))
            return
        index, found = version_index(versions, v)
        where = f"version {index + 1}/{len(versions)}" if found else f"version #{v.seq} (dropped)"
        s = v.summary
        text = Text()
        text.append(f" ◀ {where} · {version_time(v)} · ", style="bold")
        text.append(f"{s.ops:,} ops · {s.status} · {fmt_cost(s.cost)} · id {v.short_id}")
        text.append(" — viewing history, live updates paused for this view · ] forward · [ back · D compare",
                    style="bold")
        screen.show_banner(text, viewing=True)
