"""issue 30, point 4: `|` hands the payload on screen, or the session's Markdown export, to `$PAGER` (a script here
that writes what it read to a file), the app suspended meanwhile as ctrl+z does."""

from __future__ import annotations

import stat

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write
from tui.ui.screens.payload import PayloadScreen


def pager_script(tmp_path):
    out = tmp_path / "paged.txt"
    script = tmp_path / "pager.sh"
    script.write_text(f"#!/bin/sh\ncat > '{out}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, out


def a_session(tmp_path):
    tool = op("tool", op_id="t1", name="shell__rg")
    tool["request"] = {"kind": "tool", "payload": {"cmd": "rg needle-in-the-request"}, "size": 40}
    tool["response"] = {"payload": "found the needle", "size": 16, "truncated": False}
    return write(tmp_path / "s.json.gz", session(turn(1, tool), agent="pager-agent"))


async def test_the_session_export_goes_to_the_pager(tmp_path, monkeypatch):
    script, out = pager_script(tmp_path)
    monkeypatch.setenv("PAGER", str(script))
    app = session_app(a_session(tmp_path), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("vertical_line")
        await pilot.pause()
        assert isinstance(app.screen, type(top(app)))
    text = out.read_text()
    assert text.startswith("#") and "pager-agent" in text and "shell\\_\\_rg" in text, text[:400]  # (markdown-escaped)


async def test_the_payload_on_screen_goes_to_the_pager(tmp_path, monkeypatch):
    script, out = pager_script(tmp_path)
    monkeypatch.setenv("PAGER", str(script))
    app = session_app(a_session(tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        top(app).select_op("1-1")
        await pilot.press("p")
        for _ in range(20):
            await pilot.pause(0.05)
            if isinstance(app.screen, PayloadScreen) and "needle" in "\n".join(app.screen.current_lines):
                break
        shown = "\n".join(app.screen.current_lines)
        await pilot.press("vertical_line")
        await pilot.pause()
    assert out.read_text() == shown + "\n"
    assert "needle" in shown
