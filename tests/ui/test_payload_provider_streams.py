"""The payload screen (Pilot) on long-tail provider answers (tests/fixtures/streams): Anthropic text blocks split by
citations flow as one text in the messages and text views, and provider-run tool results show as their call's."""

from __future__ import annotations

from helpers.payloadhelpers import PayloadApp, op_of, settled, visible
from helpers.providerstreams import capture_op

REQUEST = {"model": "claude-sonnet-4-5-20250929", "max_tokens": 1024, "system": "Cite your sources.",
           "messages": [{"role": "user", "content": "What changed?"}]}


async def test_cited_bullets_stay_on_their_lines_in_both_views():
    app = PayloadApp(op_of(capture_op("anthropic-citations.sse", request=REQUEST)))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "messages"
        shown = visible(screen)
        i = shown.index("Here is what changed:")
        assert shown[i:i + 4] == ["Here is what changed:", "", "- Netdata v2.6 is the latest release",
                                  "- alerts run every 10 seconds."]
        assert shown[i + 4].startswith("[citation] Releases · netdata/netdata")
        await pilot.press("v")
        assert screen.view_name == "text"
        shown = visible(screen)
        i = shown.index("── text")
        assert shown[i + 3:i + 5] == ["- Netdata v2.6 is the latest release", "- alerts run every 10 seconds."]


async def test_provider_run_tool_results_are_their_calls_results():
    app = PayloadApp(op_of(capture_op("anthropic-server-tools.json", request=REQUEST)))
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await settled(pilot)
        shown = visible(screen)
        i = shown.index("← tool result server tool bash_code_execution [srvtoolu_01Bash]")
        assert shown[i + 1:i + 4] == ["  return code 0", "  stdout:", "  391"]
        assert "← tool result mcp tool list_alerts [mcptoolu_01Mcp]" in shown
