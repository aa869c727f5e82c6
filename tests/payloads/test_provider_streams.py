"""The long tail of real provider streams (issue 27, points 1-5 and 8), each fixture read where a person reads it:
the payload screen's text and messages views, the `dump --payloads` line and the OTLP export's GenAI messages.
The fixtures follow the providers' API references and SDKs (tests/fixtures/streams/README.md), each with its
framing variants: SSE with and without `event:` lines, CRLF, `data:` without a space, and the JSON answer."""

from __future__ import annotations

import pytest

from helpers.providerstreams import seen
from helpers.stream_fixtures import chat_chunk, sse
from tui.payloads.decode import decode_bytes


def texts(parts: list[dict]) -> list[str]:
    return [p["content"] for p in parts if p["type"] == "text"]


def after(lines: list[str], heading: str) -> list[str]:
    """The lines of a text-view section, up to the next heading."""
    i = lines.index(heading) + 1
    j = next((k for k in range(i, len(lines)) if lines[k].startswith("── ")), len(lines))
    return lines[i:j]


# 1. Reasoning wherever the provider puts it ---------------------------------------------------------------------

MISTRAL_REQUEST = {"model": "magistral-medium-latest", "stream": True, "messages": [
    {"role": "user", "content": "What is 2 + 2?"},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Add them: 4."}]},
                                      {"type": "text", "text": "4"}]},
    {"role": "user", "content": "And 17 * 23?"}]}


@pytest.mark.parametrize("name", ["mistral-thinking.sse", "mistral-thinking.json"])
def test_mistral_typed_thinking_chunks_are_thinking(name):
    got = seen(name, request=MISTRAL_REQUEST)
    thinking = "The user asks for 17 * 23. 17 * 20 = 340, 17 * 3 = 51, so 391." if name.endswith(".sse") \
        else "Paris is the capital of France; answer briefly."
    answer = "17 × 23 = 391." if name.endswith(".sse") else "The capital of France is Paris."
    assert after(got.text, "── thinking") == [thinking] and after(got.text, "── text") == [answer]
    i = got.messages.index(f"  {thinking}")
    assert got.messages[i - 1] == "· thinking" and got.messages[i + 1] == answer
    assert got.parts == [{"type": "reasoning", "content": thinking}, {"type": "text", "content": answer}]
    # the thinking the request sends back (Mistral's typed chunk) is reasoning too, not a JSON blob
    assistant = next(m for m in got.inputs if m["role"] == "assistant")
    assert assistant["parts"] == [{"type": "reasoning", "content": "Add them: 4."}, {"type": "text", "content": "4"}]
    assert got.dump == "· payload response/raw: " + ("sse" if name.endswith(".sse") else "json") + \
        " · OpenAI Chat Completions " + ("stream" if name.endswith(".sse") else "response")


@pytest.mark.parametrize("name", ["openrouter-reasoning-details.sse", "openrouter-reasoning-details.json"])
def test_reasoning_details_as_the_only_carrier(name):
    got = seen(name)
    first = "Look up the release, then cite it." if name.endswith(".sse") else \
        "**Finding the flag**\n\nbuildinfo prints it."
    assert "── thinking (1 of 2)" in got.text and after(got.text, "── thinking (2 of 2)") == ["[redacted thinking]"]
    assert "\n".join(after(got.text, "── thinking (1 of 2)")) == first
    assert got.messages.count("· thinking") == 2
    assert [p["content"] for p in got.parts if p["type"] == "reasoning"] == [first, "[redacted thinking]"]
    assert not any("reasoning" in t or "Finding" in t for t in texts(got.parts))


def test_reasoning_sent_twice_is_shown_once():
    """OpenRouter sends `reasoning` and `reasoning_details` with the same text: the string wins."""
    detail = [{"type": "reasoning.text", "text": "Think.", "index": 0}]
    body = sse((None, chat_chunk({"role": "assistant", "content": "", "reasoning": "Think.",
                                  "reasoning_details": detail})),
               (None, chat_chunk({"content": "Done."}, finish="stop")), (None, "[DONE]"))
    r = decode_bytes(body.encode(), "sse").reassembled
    assert r.thinking_blocks == ["Think."] and r.text == "Done."
    only = sse((None, chat_chunk({"role": "assistant", "reasoning": None, "reasoning_details": detail})))
    assert decode_bytes(only.encode(), "sse").reassembled.thinking_blocks == ["Think."]


# 2. Usage wherever the provider puts it ---------------------------------------------------------------------------


def test_groq_usage_rides_in_x_groq():
    got = seen("groq-x-groq-usage.sse")
    usage = "usage queue_time=0.0512, prompt_tokens=40, prompt_time=0.0021, completion_tokens=3, " \
            "completion_time=0.0043, total_tokens=43, total_time=0.0064"
    assert got.text[1] == f"── {usage}" and usage in got.messages
    assert seen("groq-chat.json").text[1].startswith("── usage queue_time=0.02, prompt_tokens=40")
    on_choice = sse((None, chat_chunk({"content": "Hi"})), (None, chat_chunk({}, finish="stop") | {"choices": [
        {"index": 0, "delta": {}, "finish_reason": "stop", "usage": {"prompt_tokens": 8, "completion_tokens": 1}}]}))
    assert decode_bytes(on_choice.encode(), "sse").reassembled.usage == {"prompt_tokens": 8, "completion_tokens": 1}


@pytest.mark.parametrize("name", ["anthropic-compaction.sse", "anthropic-compaction.json"])
def test_anthropic_compaction_iterations_and_summary(name):
    got = seen(name)
    iterations = [
        "iteration 1 of 2 (compaction): input_tokens=180000, output_tokens=3500, cache_creation_input_tokens=0, "
        "cache_read_input_tokens=0",
        "iteration 2 of 2 (message): input_tokens=23000, output_tokens=1000, cache_creation_input_tokens=0, "
        "cache_read_input_tokens=0"]
    assert got.text[1].startswith("── usage input_tokens=23000, output_tokens=1000") and got.text[2:4] == iterations
    summary = ["## Session summary", "The user is tuning Netdata alerts; disk alerts were lowered to 90%."]
    assert after(got.text, "── compaction summary") == summary
    assert after(got.text, "── text") == ["Next: the network alerts."]
    i = got.messages.index(iterations[0])
    assert got.messages[i + 1] == iterations[1] and got.messages[i + 2] == "· compaction summary"
    assert got.messages[i + 3:i + 5] == [f"  {ln}" for ln in summary]
    assert got.parts == [{"type": "compaction", "content": "\n".join(summary)},
                         {"type": "text", "content": "Next: the network alerts."}]


def test_openrouter_cost_is_a_decimal():
    got = seen("openrouter-reasoning-details.sse")
    assert got.text[1].startswith("── usage cost=0.0000875, prompt_tokens=42")
    assert any(line.startswith("usage cost=0.0000875, ") for line in got.messages)


# 3. Sources --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai-chat-annotations.sse", "openai-chat-annotations.json",
                                  "openrouter-reasoning-details.sse"])
def test_chat_url_citations_are_listed_with_the_text(name):
    got = seen(name)
    source = "Releases · netdata/netdata <https://github.com/netdata/netdata/releases>" if "openrouter" in name \
        else "Netdata v2.6 release notes <https://www.netdata.cloud/blog/release-2-6/>"
    assert after(got.text, "── citations (1)") == [source]
    assert got.messages[got.messages.index(f"[citation] {source}") - 1].startswith("Netdata v2.6")


@pytest.mark.parametrize("name", ["openai-responses-annotations.sse", "openai-responses-annotations.json"])
def test_responses_file_and_url_citations_once(name):
    got = seen(name)
    assert after(got.text, "── citations (2)") == [
        "netdata-alerts.pdf", "Netdata v2.6 release notes <https://www.netdata.cloud/blog/release-2-6/>"]
    assert "[citation] netdata-alerts.pdf" in got.messages
    assert after(got.text, "── text") == ["Alerts run every 10 s. Netdata v2.6 is out."]


# 4. Blocked prompts say why ------------------------------------------------------------------------------------------


def test_gemini_blocked_prompts_and_stopped_candidates_say_why():
    why = "prompt blocked: PROHIBITED_CONTENT (The prompt was blocked because it may contain prohibited content.)"
    for name, dialect in (("gemini-blocked.json", "json · Google Gemini response"),
                          ("gemini-blocked.sse", "sse · Google Gemini stream")):
        got = seen(name)
        assert got.text[0].endswith(f"· stop {why}") and any(ln.endswith(f"· stop {why}") for ln in got.messages)
        assert got.dump == f"· payload response/raw: {dialect} · {why}"
        assert got.output[0]["finish_reason"] == "prompt blocked: PROHIBITED_CONTENT"
    got = seen("gemini-safety.json")
    assert got.text[0].endswith("· stop SAFETY (HARM_CATEGORY_HARASSMENT HIGH)")
    got = seen("gemini-safety.sse")
    assert got.text[0].endswith("· stop RECITATION (The response was stopped because it recited copyrighted "
                                "material.)")


# 5. Anthropic text flows -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["anthropic-citations.sse", "anthropic-citations.json"])
def test_anthropic_adjacent_text_blocks_are_one_text(name):
    got = seen(name)
    flowing = ["Here is what changed:", "", "- Netdata v2.6 is the latest release", "- alerts run every 10 seconds."]
    assert after(got.text, "── text") == flowing
    assert after(got.text, "── citations (2)")[1] == "Netdata docs: “Alerts are evaluated every 10 seconds.”"
    i = got.messages.index(flowing[0])
    assert got.messages[i:i + 5] == [*flowing, "[citation] Releases · netdata/netdata "
                                               "<https://github.com/netdata/netdata/releases>: “v2.6.0 Latest”"]
    assert texts(got.parts)[0] == "\n".join(flowing)


# 8. The OTLP export tells who wrote what -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["anthropic-server-tools.sse", "anthropic-server-tools.json"])
def test_anthropic_code_execution_and_mcp_results_are_tool_responses(name):
    got = seen(name)
    assert [(p["type"], p.get("id")) for p in got.parts] == [
        ("tool_call", "srvtoolu_01Bash"), ("tool_call_response", "srvtoolu_01Bash"),
        ("tool_call", "mcptoolu_01Mcp"), ("tool_call_response", "mcptoolu_01Mcp"), ("text", None)]
    assert got.parts[1]["response"] == "return code 0\nstdout:\n391\n"
    assert got.parts[3]["response"] == "3 alerts raised: disk_space, ram, load"
    assert texts(got.parts) == ["17 × 23 = 391; web1 has 3 alerts."]
    assert "← tool result server tool bash_code_execution [srvtoolu_01Bash]" in got.messages
    assert "← tool result mcp tool list_alerts [mcptoolu_01Mcp]" in got.messages
    assert after(got.text, "── results of the provider's tools (2)")[-1] == \
        "mcp_tool_result: 3 alerts raised: disk_space, ram, load"


@pytest.mark.parametrize("name", ["gemini-code-grounding.sse", "gemini-code-grounding.json"])
def test_gemini_code_execution_and_grounding_are_tool_responses(name):
    got = seen(name)
    assert [p["type"] for p in got.parts] == ["text", "tool_call", "tool_call_response", "text",
                                              "tool_call_response"]
    assert got.parts[2]["response"] == "code execution OUTCOME_OK: 391\n"
    assert got.parts[4]["response"].splitlines() == [
        "github.com <https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9>",
        "netdata.cloud <https://vertexaisearch.cloud.google.com/grounding-api-redirect/Cd7x>"]
    assert texts(got.parts) == ["Let me compute it.", "17 × 23 = 391. Netdata v2.6 is the latest."]
    assert after(got.text, "── text") == ["Let me compute it.", "", "17 × 23 = 391. Netdata v2.6 is the latest."]
    assert "← tool result server tool google_search" in got.messages


def test_reasoning_and_compaction_sent_back_in_requests_are_not_text():
    """What a request carries back from earlier answers: OpenRouter's `reasoning_details` (the only carrier) and
    Anthropic's `compaction` block are reasoning and a compaction summary, not JSON shown as text."""
    openrouter = {"model": "openai/o4-mini", "messages": [
        {"role": "user", "content": "Which flag?"},
        {"role": "assistant", "content": "Use -W buildinfo.", "reasoning_details": [
            {"type": "reasoning.summary", "summary": "buildinfo prints it.", "index": 0},
            {"type": "reasoning.encrypted", "data": "gAAAAABoZ2x1", "index": 1}]},
        {"role": "user", "content": "Thanks"}]}
    got = seen("openrouter-reasoning-details.json", request=openrouter)
    assert got.inputs[1]["parts"] == [{"type": "reasoning", "content": "buildinfo prints it."},
                                      {"type": "reasoning", "content": "[redacted thinking]"},
                                      {"type": "text", "content": "Use -W buildinfo."}]
    anthropic = {"model": "claude-opus-4-6", "max_tokens": 1024, "messages": [
        {"role": "user", "content": "Go on."},
        {"role": "assistant", "content": [{"type": "compaction", "content": "Alerts were tuned."},
                                          {"type": "text", "text": "Done."}]},
        {"role": "user", "content": "Next?"}]}
    got = seen("anthropic-compaction.json", request=anthropic)
    assert got.inputs[1]["parts"] == [{"type": "compaction", "content": "Alerts were tuned."},
                                      {"type": "text", "content": "Done."}]
    assert "· compaction summary" in got.messages and "  Alerts were tuned." in got.messages


def test_calls_the_provider_answered_are_not_left_for_tool_ops():
    """The export pairs the answer's tool calls with the agent's tool ops by name; a call the provider ran and
    answered in the same answer (code execution, MCP) is not one of them."""
    from helpers.payloadfixtures import tree
    from helpers.providerstreams import capture_op
    from tui.formats.aiagent.snapshot import build_session
    from tui.text.otlp.messages import op_messages

    op = build_session(tree(capture_op("anthropic-server-tools.json"))).turns[1].ops[0]
    assert op_messages(op).calls == []
