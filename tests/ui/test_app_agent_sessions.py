"""A Codex CLI rollout and a Gemini CLI chat opened in the app: the session screen shows their turns, model calls
and tool calls like an ai-agent session's (Pilot, as a user would)."""

from __future__ import annotations

from helpers.agentfixtures import CODEX_MCP, GEMINI_JSON
from helpers.apphelpers import SIZE, panel_text, top, wait_for
from tui.formats.load import load
from tui.model.nodes import Op
from tui.ui.app import MonitorApp
from tui.ui.screens.payload import PayloadScreen
from tui.ui.widgets.totals_panel import TotalsPanel


def app_on(path) -> MonitorApp:
    return MonitorApp(sessions_dir=path.parent, document=load(str(path)), watch=False)


def visible_ops(tree) -> list[Op]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        if isinstance(node.data, Op):
            out.append(node.data)
        if node.is_expanded:
            stack.extend(reversed(node.children))
    return out


async def test_codex_rollout_opens_with_its_calls_and_tokens():
    app = app_on(CODEX_MCP)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        assert screen.session.title.startswith("[REDACTED_MESSAGE")
        ops = [op for turn in screen.session.turns for op in turn.ops]
        assert [op.kind for op in ops].count("llm") == 6
        totals = panel_text(screen.query_one(TotalsPanel))
        assert "238.8k" in totals or "238,848" in totals


async def test_gemini_chat_errors_only_shows_the_failed_tool_calls():
    app = app_on(GEMINI_JSON)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        await pilot.press("e")
        await pilot.pause()
        failed = visible_ops(screen.tree)
        assert [(op.kind, op.name) for op in failed] == [("tool", "write_file"), ("tool", "write_file")]


async def test_codex_tool_call_details_show_its_command_and_output():
    from helpers.agentfixtures import CODEX_PLAIN

    app = app_on(CODEX_PLAIN)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        for _ in range(12):
            data = screen.tree.cursor_node.data if screen.tree.cursor_node is not None else None
            if isinstance(data, Op) and data.kind == "tool":
                break
            await pilot.press("down")
        await pilot.pause(0.3)
        details = str(screen.query_one("#detail-body").render())
        assert "target shell" in details and "response payload text 268 Bytes" in details
        await pilot.press("enter")  # the payload viewer: the command's output (`ls`), out of its JSON envelope
        await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen) and bool(app.screen.current_lines))
        shown = app.screen.current_lines
        assert shown[0] == "_bmad" and "vitest.config.ts" in shown
