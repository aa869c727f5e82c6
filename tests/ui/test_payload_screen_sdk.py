"""The payload screen on ai-agent's own `sdk` captures (Pilot): the capture line names them ai-agent's turn request
and turn result, and the messages and text views show the conversation sent, the tools offered, the status, stop
reason, tool calls, tool results and tokens of the answer."""

from __future__ import annotations

from tui.formats.load import load
from tui.ui.screens.payload import PayloadScreen

from helpers.payloadhelpers import PayloadApp, header, op_of, settled, visible
from helpers.sdkfixtures import FLAKY_SNAPSHOT, master_turn, sdk_op


def real_op(path: str):
    """An op of the real flaky snapshot, as the app loads it."""
    root = load(str(FLAKY_SNAPSHOT), None).root
    return next(op for turn in root.turns for op in turn.ops if op.path == path)


async def test_sdk_only_op_opens_on_the_turn_result_in_the_messages_view():
    app = PayloadApp(op_of(sdk_op(master_turn("request"), master_turn("response"))))
    async with app.run_test(size=(160, 200)) as pilot:
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source, screen.view_name) == ("response", "sdk", "messages")
        assert "sdk (ai-agent turn result)" in header(screen)
        shown = visible(screen)
        assert shown[0].startswith("ai-agent turn request + result · provider fake · model fake-chat · 2 messages")
        at = shown.index("── assistant · result")
        assert shown[at + 1] == ("ai-agent turn result · status success (tool calls) · model fake-chat · stop "
                                 "tool-calls · provider fake · cost $0.0085614")
        assert "→ tool call agent__researcher  [call_0_agent__researcher]" in shown
        assert "← tool result agent__refuser [call_2_agent__refuser]" in shown
        assert "OpenAI" not in " ".join(shown)

        await pilot.press("v")  # the text view of the result
        assert screen.view_name == "text"
        shown = visible(screen)
        assert shown[0].startswith("── ai-agent turn result · status success (tool calls)")
        assert "── tool calls (3)" in shown and "── tool results (3)" in shown

        await pilot.press("r")  # the request: its own text view lists the tools offered
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source) == ("request", "sdk")
        assert "sdk (ai-agent turn request)" in header(screen)
        assert screen.view_name == "text"  # the view it was on
        shown = visible(screen)
        assert shown[0] == ("── ai-agent turn request · provider fake · model fake-chat · 3 messages · 4 tools "
                            "offered · not streamed")
        assert shown[2] == "── tools offered (4)"
        assert shown[3].startswith("agent__task_status: Provides live feedback to the user")


async def test_real_failed_turn_shows_its_status_in_the_messages_view():
    app = PayloadApp(real_op("1-1"))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source) == ("response", "raw")  # the HTTP body first
        await pilot.press("s")
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source, screen.view_name) == ("response", "sdk", "messages")
        assert "sdk (ai-agent turn result)" in header(screen)
        shown = visible(screen)
        assert shown[0] == ("ai-agent turn request + result · provider fake · model fake-chat · 2 messages · "
                            "tools: agent__final_report")
        at = shown.index("── assistant · result")
        assert shown[at + 1] == "ai-agent turn result · status model_error"
        assert shown[at + 2].startswith("error: model_error: 400 [string_above_max_length]: Invalid")
        assert isinstance(app.screen, PayloadScreen)


def test_details_panel_names_the_sdk_captures():
    from tui.ui.widgets.detail_panel import describe

    text = describe(real_op("1-2")).plain
    assert "request sdk (ai-agent turn request) sdk" in text
    assert "response sdk (ai-agent turn result) sdk" in text
