"""Shared helpers for app tests: generated sessions written to disk, and an app opened on them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tui.demo import make_tree, write_snapshot
from tui.formats.load import load
from tui.model.nodes import Op
from tui.model.search import walk_ops
from tui.ui.app import MonitorApp
from tui.ui.screens.session import SessionScreen

from helpers.waiting import wait_for  # noqa: F401 (the app tests' one way to wait)

SIZE = (160, 48)


def deep_snapshot(tmp_path: Path, *, seed: int = 154, ops: int = 60, depth: int = 3, running: bool = False) -> Path:
    tree = make_tree(seed, ops=ops, depth=depth, fanout=1, running=running)
    return write_snapshot(tmp_path, tree, version=2)


def session_app(path: Path, op_path: str | None = None, **kwargs) -> MonitorApp:
    return MonitorApp(sessions_dir=path.parent, document=load(str(path)), op_path=op_path, **kwargs)


def top(app: MonitorApp) -> SessionScreen:
    screen = app.screen
    assert isinstance(screen, SessionScreen), type(screen)
    return screen


async def drill_into_first_sub_agent(pilot) -> Op:
    """Enter on the first sub-agent op of the session on top; returns that op (its child is on top now)."""
    screen = top(pilot.app)
    sub = next(op for op in walk_ops(screen.session) if op.kind == "session" and op.child is not None)
    screen.tree.reveal(sub)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    return sub


def panel_text(widget) -> str:
    """What a Static shows, as plain text (its content may be a rich Table)."""
    from rich.console import Console

    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(widget.content)
    return console.export_text()


def toast_texts(app) -> list[str]:
    """The text of the notices on screen (Textual's Toast widgets, found by name: their module is private; the
    app must run with `run_test(notifications=True)`)."""
    return [str(w.render()) for w in app.screen.query("*") if type(w).__name__ == "Toast"]


async def fed(app: MonitorApp, pilot, frames, timeout: float = 30.0) -> None:
    """Frames (bytes or str) handed to the app's live pipeline as an in-process producer would
    (LiveController.feed), then waited for: the app has taken the batch that counts every one of them (applied or
    rejected: LiveController.tally) and the screens have had their messages."""
    frames = list(frames)
    expected = app.live.tally.frames + len(frames)
    for frame in frames:
        app.live.feed(frame)
    assert await wait_for(pilot, lambda: app.live.tally.frames >= expected, timeout=timeout), (
        f"the live pipeline took {app.live.tally.frames:,} frames of {expected:,}")
    await pilot.pause()


async def live_settled(app: MonitorApp, pilot, timeout: float = 10.0) -> None:
    """Wait until the OTLP sink has handed everything to the hub and the app took whatever the hub had: a batch
    taken after that, or (when the batch with these changes went before the sink was seen idle) a hub with no
    change left and no batch in flight over a whole tick (a batch being built is then posted, or seen)."""
    from tui.ui.live_worker import LIVE_APPLY_SECONDS

    worker = app.live.worker
    sink = worker.otlp_sink
    assert await wait_for(pilot, lambda: sink is None or sink.pending == 0, timeout=timeout)
    taken = app.live.batches_taken

    def nothing_left() -> bool:
        return not worker.hub.has_changes and worker.taken.is_set()

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline and app.live.batches_taken == taken:
        if nothing_left():
            await pilot.pause(LIVE_APPLY_SECONDS * 1.5)
            if nothing_left() and app.live.batches_taken == taken:
                break
        else:
            await pilot.pause(0.02)
    await pilot.pause()


class Notices:
    """What the app told the user: every notification it posted (Textual's public Notify message), collected by
    `app.run_test(message_hook=notices)`, the toasts that timed out or were replaced included."""

    def __init__(self) -> None:
        self.posted: list = []

    def __call__(self, message) -> None:
        from textual.notifications import Notify

        if isinstance(message, Notify):
            self.posted.append(message.notification)

    def messages(self, severity: str | None = None, *, shown: bool = False) -> list[str]:
        """Their texts (of one severity); `shown`: only those whose time on screen has not run out yet."""
        return [str(n.message) for n in self.posted
                if (severity is None or n.severity == severity) and not (shown and n.has_expired)]

    def lines(self) -> list[str]:
        """Each notification as "title: message"."""
        return [f"{n.title}: {n.message}" for n in self.posted]


def screen_lines(app) -> list[str]:
    """The whole screen as composited, one string per terminal line, read from the app's public screenshot (an
    SVG whose text spans carry the characters, HTML-escaped, and their line as `y`)."""
    import html
    import re
    from collections import defaultdict

    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for m in re.finditer(r'<text [^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', app.export_screenshot(), re.S):
        rows[float(m.group(2))].append((float(m.group(1)), html.unescape(m.group(3))))
    return ["".join(text for _, text in sorted(spans)) for _, spans in sorted(rows.items())]
