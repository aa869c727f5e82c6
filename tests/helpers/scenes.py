"""Fixed scenes of the real app, shared by the SVG snapshot tests and screenshots/make_screenshots.py.

Everything on screen comes from seeded generator data at fixed paths, with no running session and no wall clock,
so the same scene renders the same way on every machine.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tui.demo import make_tree, populate, write_snapshot
from tui.formats.load import load
from tui.model.search import walk_ops
from tui.ui.app import MonitorApp
from tui.ui.screens.payload import PayloadScreen
from tui.ui.screens.search import SearchScreen
from tui.ui.screens.stats import StatsScreen

from helpers.payloadhelpers import settled as payload_settled
from helpers.waiting import wait_for

BASE = Path("/tmp/aiagent-monitor-scenes")
START_MS = 1_779_000_000_000  # a fixed date (2026-05-17)


_BUILT: set[Path] = set()  # the folders this process wrote: a second scene reuses them (no scene writes there)


def sessions_dir() -> Path:
    """The browser scenes' folder, written once per process (~1 s each time: populate, then a load of every file
    to drop the running ones); rebuilt when it went missing, e.g. removed by another process."""
    target = BASE / "sessions"
    if target in _BUILT and target.is_dir():
        return target
    if target.exists():
        shutil.rmtree(target)
    populate(target, count=10, seed=5, start_ms=START_MS)
    for path in target.glob("*.json.gz"):  # drop running sessions: their durations would follow the clock
        try:
            if load(str(path)).root.running:
                path.unlink()
        except Exception:
            continue
    for path in (target / "session").glob("*.jsonl"):
        try:
            if load(str(path)).root.running:
                path.unlink()
        except Exception:
            continue
    _BUILT.add(target)
    return target


def session_file() -> Path:
    target = BASE / "one"
    if target.exists():
        shutil.rmtree(target)
    tree = make_tree(154, ops=60, depth=3, fanout=1, started_at=START_MS)
    return write_snapshot(target, tree, version=2)


def browser_app() -> MonitorApp:
    return MonitorApp(sessions_dir=sessions_dir(), watch=False)


def session_app(op_path: str | None = None) -> MonitorApp:
    path = session_file()
    return MonitorApp(sessions_dir=path.parent, document=load(str(path)), op_path=op_path, watch=False)


async def wait_browser_loaded(pilot) -> None:
    for _ in range(200):
        screen = pilot.app.screen
        rows = getattr(screen, "rows", {})
        if rows and all(r.loaded for r in rows.values()) and getattr(screen, "settled", False):  # filled, sorted
            break
        await pilot.pause(0.05)
    screen = pilot.app.screen
    if hasattr(screen, "set_clock"):  # the Age column: as seen a day after the last session, whatever today is
        screen.set_clock(lambda: START_MS / 1000 + 86400)
    await pilot.pause(0.3)


async def drill_two_levels(pilot) -> None:
    await pilot.pause()
    screen = pilot.app.screen
    chain = [op for op in walk_ops(screen.session) if op.kind == "session"]
    screen.tree.reveal(chain[0])
    await pilot.press("enter")
    await pilot.pause()
    pilot.app.screen.tree.reveal(chain[1])
    await pilot.press("enter")
    await pilot.pause(0.3)


async def open_llm_payload(pilot) -> None:
    await pilot.pause()
    screen = pilot.app.screen
    llm = next(op for op in walk_ops(screen.session) if op.kind == "llm" and op.raw and "response" in op.raw)
    screen.tree.reveal(llm)
    await pilot.press("enter")
    await payload_settled(pilot)  # (the payload screen up and its capture decoded, in a worker)
    await pilot.pause(0.2)


async def settle(pilot) -> None:
    await pilot.pause(0.4)


async def open_waterfall(pilot) -> None:
    """The waterfall of the root session, the cursor on the first sub-agent (fully expanded: a small session)."""
    await pilot.pause()
    await pilot.press("w")
    await pilot.pause()
    screen = pilot.app.screen
    agent = next(i for i, row in enumerate(screen.view.model.rows) if row.kind == "session")
    screen.view.move_to(agent)
    await pilot.pause(0.3)


def jules_app() -> MonitorApp:
    from tui.demo.jules import make_jules_snapshot, write_jules

    target = BASE / "jules"
    if target.exists():
        shutil.rmtree(target)
    path = write_jules(target, make_jules_snapshot(1, start_ms=START_MS))
    return MonitorApp(sessions_dir=target, document=load(str(path)), watch=False)


def genkit_app() -> MonitorApp:
    from tui.demo.genkit import make_genkit_snapshots, write_genkit_dir

    target = BASE / "genkit"
    if target.exists():
        shutil.rmtree(target)
    folder = write_genkit_dir(target / "chat-store", make_genkit_snapshots(2, start_ms=START_MS))
    return MonitorApp(sessions_dir=target, document=load(str(folder)), watch=False)


async def jules_failed_command(pilot) -> None:
    """The first failed command selected: its output in the details, its timeline line in the logs."""
    await pilot.pause()
    screen = pilot.app.screen
    failed = next(op for op in walk_ops(screen.session) if op.failed)
    screen.tree.reveal(failed)
    await pilot.pause(0.4)


async def genkit_branch(pilot) -> None:
    """The orphaned branch expanded in place, its first snapshot selected."""
    await pilot.pause()
    screen = pilot.app.screen
    branch = next(op for op in walk_ops(screen.session) if op.kind == "branch")
    first = next(iter(branch.child.all_ops()))
    screen.tree.reveal(first)
    await pilot.pause(0.4)


CLAUDE_CODE_CALL = "3-4"  # a call of tests/fixtures/claude-code/real/tool_heavy.jsonl: thinking, two tool calls


def claude_code_app() -> MonitorApp:
    """A real Claude Code session (tests/fixtures/claude-code/real/tool_heavy.jsonl, copied: it has ended, so no
    wall clock shows)."""
    target = BASE / "claude-code"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    path = Path(shutil.copy(Path(__file__).parents[1] / "fixtures" / "claude-code" / "real" / "tool_heavy.jsonl",
                            target / "tool_heavy.jsonl"))
    return MonitorApp(sessions_dir=target, document=load(str(path)), watch=False)


async def open_claude_code_call(pilot) -> None:
    """The payload viewer on a Claude Code call, decoded (its messages view)."""
    from tui.model.search import find_op_by_path

    await pilot.pause()
    screen = pilot.app.screen
    screen.tree.reveal(find_op_by_path(screen.session, CLAUDE_CODE_CALL))
    await pilot.pause()
    await pilot.press("enter")
    for _ in range(100):
        await pilot.pause(0.05)
        if getattr(pilot.app.screen, "mode", "") == "view":
            break
    await pilot.pause(0.2)


def history_stages() -> list[dict]:
    """The session of session_file() as it grew: four earlier stages, then the file itself."""
    from tui.formats.aiagent.timeline import event_times, tree_at

    full = make_tree(154, ops=60, depth=3, fanout=1, started_at=START_MS)
    times = event_times(full)
    return [tree_at(full, times[len(times) * n // 5]) for n in (1, 2, 3, 4)] + [full]


async def record_history(pilot) -> None:
    """Record the stages as the versions the app saw, one a minute (fixed times: no wall clock on screen)."""
    from tui.formats.aiagent.history import summary_of
    from tui.formats.aiagent.snapshot import build_session

    await pilot.pause()
    app = pilot.app
    screen = app.screen
    key = screen.history_key
    for n, tree in enumerate(history_stages()):
        version, _ = app.history.add_tree(key, tree, summary_of(build_session(tree)), at=START_MS / 1000 + 60 * n)
    app.history_shown[key] = version
    screen.update_history_banner()
    await pilot.pause(0.2)


async def view_older_version(pilot) -> None:
    await record_history(pilot)
    screen = pilot.app.screen
    await pilot.press("left_square_bracket", "left_square_bracket")
    for _ in range(100):
        if screen.viewing is not None and screen.viewing.seq == 3:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


async def diff_versions(pilot) -> None:
    await record_history(pilot)
    await pilot.press("D")
    for _ in range(100):
        if getattr(pilot.app.screen, "diff", None) is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


def corpus_browser_app() -> MonitorApp:
    """The browser over the corpus of broken, hostile and extreme files (tests/helpers/corpus.py), fixed mtimes."""
    import os

    from helpers.corpus import build_corpus
    from tui.inputs.files import set_document_limit

    target = BASE / "corpus"
    if target.exists():
        shutil.rmtree(target)
    build_corpus(target, bomb_bytes=200 * 1024 * 1024, payload_bomb_bytes=300 * 1024 * 1024)
    set_document_limit(64 * 1024 * 1024)  # as with --max-bytes 64M: the bomb is refused sooner
    for folder, _, files in os.walk(target):
        for name in files:
            os.utime(Path(folder) / name, (START_MS / 1000, START_MS / 1000), follow_symlinks=False)
    return MonitorApp(sessions_dir=target, watch=False)


def then_press(scene, *keys: str, pause: float = 0.4):
    """`scene`, then `keys` pressed and the screen settled: one more view of the same fixed data."""
    async def run(pilot) -> None:
        await scene(pilot)
        await pilot.press(*keys)
        if isinstance(pilot.app.screen, PayloadScreen):
            await payload_settled(pilot)  # (another view of a capture may decode in a worker)
        await pilot.pause(pause)
    return run


async def open_stats(pilot) -> None:
    """The stats screen over the loaded browser's sessions, all time (no range measured from today)."""
    await wait_browser_loaded(pilot)
    await pilot.press("t")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, StatsScreen) and pilot.app.screen.settled)
    await pilot.press("a")
    assert await wait_for(pilot, lambda: pilot.app.screen.range_name == "all" and pilot.app.screen.settled)
    await pilot.pause()


async def search_sessions(pilot) -> None:
    """The search screen over every session's text (the index of the loaded browser), one query typed."""
    await wait_browser_loaded(pilot)
    await pilot.press("F")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, SearchScreen))
    await pilot.press(*"error")
    assert await wait_for(pilot, lambda: pilot.app.screen.settled and pilot.app.screen.hits)
    await pilot.pause()
    steady_cursors(pilot)


async def open_export(pilot) -> None:
    await pilot.pause()
    await pilot.press("x")
    await pilot.pause(0.4)
    steady_cursors(pilot)


def steady_cursors(pilot) -> None:
    """A focused text box's cursor blinks on a timer: the shot would catch it on or off. Keep it on."""
    from textual.widgets import Input

    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
