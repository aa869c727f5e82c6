"""Say it right: the live panel shows a JSON final report, Details show JSON values (never Python reprs), a
repeated notice replaces the one on screen, and `y` names OSC 52 (and tmux's setting when under tmux)."""

from __future__ import annotations

from textual.notifications import Notify

from helpers.apphelpers import fed, session_app, top, wait_for
from helpers.builders import live_event, llm_acc, op, session, turn, write
from tui.formats.aiagent.snapshot import build_session
from tui.ui.app import MonitorApp
from tui.ui.clipboard import TMUX_HINT, copy_notice
from tui.ui.widgets.detail_panel import describe


def toasts(app) -> list:
    """The notices on screen (Textual's Toast widgets, found by name: their module is private)."""
    return [w for w in app.screen.query("*") if type(w).__name__ == "Toast"]


def test_details_show_json_values_not_python_reprs():
    acc = llm_acc(10, 5, cost=0.5)
    acc["provider"], acc["stopReason"] = None, False
    root = build_session(session(turn(1, op("llm", op_id="o1", accounting=[acc, {"type": "tool", "command": "x"}],
                                              cached=False, meta={"source": "cache", "hit": True}, gone=None))))
    text = describe(root.turns[0].ops[0]).plain
    assert "cached false" in text
    assert 'meta {"source":"cache","hit":true}' in text
    assert "gone" not in text  # null is not worth a line, as before
    assert "stopReason false" in text
    assert "llm claude" in text  # no "None:claude"
    for repr_text in ("False", "True", "None", "{'source'"):
        assert repr_text not in text, repr_text
    assert "chars" not in text  # a tool entry without character counts: no "in None  out None"


async def test_a_repeated_notice_replaces_the_one_on_screen(tmp_path):
    path = write(tmp_path / "s.json.gz", session(turn(1, op("tool", op_id="t1", name="t"))))
    app = session_app(path, watch=False)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await pilot.pause()
        for _ in range(4):
            app.notify("no search: press / to search")
            await pilot.pause()
        app.notify("another")
        await pilot.pause()
        await wait_for(pilot, lambda: len(toasts(app)) >= 2)
        await pilot.pause(0.3)  # every notice posted is on screen by now (they last 5 s)
        assert len(toasts(app)) == 2  # one of each, not five


async def test_copy_names_osc52_and_the_tmux_setting(tmp_path, monkeypatch):
    path = write(tmp_path / "s.json.gz", session(turn(1, op("tool", op_id="t1", name="t"))))
    seen: list[str] = []

    def hook(message) -> None:
        if isinstance(message, Notify):
            seen.append(message.notification.message)

    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = session_app(path, watch=False)
    async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: any(m.startswith("copied ") for m in seen))
    notice = next(m for m in seen if m.startswith("copied "))
    assert "OSC 52" in notice and "set -g set-clipboard on" in notice


def test_copy_notice_outside_tmux():
    assert TMUX_HINT in copy_notice("copied 3 bytes", {"TMUX": "x"})
    plain = copy_notice("copied 3 bytes", {})
    assert plain.startswith("copied 3 bytes (OSC 52") and "tmux" not in plain


async def test_the_live_panel_shows_a_json_final_report(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        tree = session(turn(1, op("tool", op_id="t1", name="t")), agent="root", trace="root", ended=None,
                       success=None)
        await fed(app, pilot, [live_event("op_tree", sid="root", seq=1, tree=tree),
                               live_event("final_report", sid="root", seq=2,
                                          report={"format": "json", "content_json": {"verdict": "ok", "done": False}})])
        app.open_path("live:root")
        await wait_for(pilot, lambda: bool(app.screen.query("#live")) and "final report" in str(
            app.screen.query_one("#live").render()))
        text = str(top(app).query_one("#live").render())
        assert 'final report: {"verdict":"ok","done":false}' in text
        assert "None" not in text
