"""The payload viewer on a Claude Code call, in the app: the session opened, the call selected, Enter opens the
viewer on its messages view, which shows the conversation the model was sent and its answer role by role."""

from __future__ import annotations

from textual.widgets import Static

from helpers import scenes
from tui.ui.screens.payload import PayloadScreen
from tui.ui.widgets.text_lines import TextLines


async def test_claude_code_call_opens_on_its_messages():
    app = scenes.claude_code_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await scenes.open_claude_code_call(pilot)
        screen = app.screen
        assert isinstance(screen, PayloadScreen) and screen.mode == "view"
        header = str(screen.query_one("#payload-capture", Static).render())
        assert header.startswith("response  payload  json") and " messages " in header
        lines = list(screen.query_one("#payload-body", TextLines).lines)
        assert lines[0].startswith("Anthropic Messages request + response · model claude-opus-4-6 · 13 messages")
        assert lines[2:4] == ["── user", "start phoenix in background"]
        assert "→ tool call WebSearch  [toolu_01DKTWcKpZ2ksZQmoKKfxiw6]" in lines
        assert any(line.startswith("← tool result WebSearch") for line in lines)
        answer = lines.index("── assistant · response")
        assert lines[answer + 1] == "Anthropic Messages response · model claude-opus-4-6"
        assert lines[answer + 2].startswith("usage input_tokens=47, ")
        await pilot.press("r")  # the request side, said to be rebuilt from the file
        await pilot.pause(0.3)
        assert str(screen.query_one("#payload-capture", Static).render()).startswith("request  payload  json")
        assert "rebuilt from the session file" in str(screen.query_one("#payload-status", Static).render())
