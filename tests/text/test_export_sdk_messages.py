"""The OTLP export's GenAI messages of an LLM op that holds only ai-agent's `sdk` captures (what its own test
provider leaves): the input is the TurnRequest's conversation, the output the TurnResult's answer, tool calls and
finish reason (before, the result was read as no LLM's and the output was empty)."""

from __future__ import annotations

import json

from helpers.payloadhelpers import op_of
from helpers.sdkfixtures import master_turn, sdk_op
from tui.text.otlp.messages import op_messages


def test_sdk_only_op_exports_request_and_result():
    m = op_messages(op_of(sdk_op(master_turn("request"), master_turn("response"))))
    inputs, outputs = json.loads(m.input), json.loads(m.output)
    assert [i["role"] for i in inputs] == ["system", "user", "user"]
    assert inputs[1]["parts"] == [{"type": "text", "content": "Tell me about tides."}]
    assert m.finish_reason == "tool-calls"
    assert [o["role"] for o in outputs] == ["assistant"]  # the tool results it holds are the next turn's input
    assert outputs[0]["finish_reason"] == "tool-calls"
    assert [p["name"] for p in outputs[0]["parts"] if p["type"] == "tool_call"] == [
        "agent__researcher", "agent__researcher", "agent__refuser"]
    assert m.calls[2] == ("call_2_agent__refuser", "agent__refuser")
