"""`dump --payloads` names the provider a router sent the request to (OpenRouter's `provider` on every chunk), as
the payload viewer's heading does. Hand-written from OpenRouter's streaming docs: `: OPENROUTER PROCESSING` comment
lines, Chat Completions chunks with `provider`, and a last chunk with `usage.cost`."""

from __future__ import annotations

import json

from tui.payloads.check import describe


def _chunk(delta: dict, finish: str | None = None, **extra) -> str:
    body = {"id": "gen-1", "provider": "Anthropic", "model": "anthropic/claude-3.5-sonnet",
            "object": "chat.completion.chunk", "created": 1,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    body.update(extra)
    return f"data: {json.dumps(body)}\n\n"


def test_an_openrouter_stream_names_its_routed_provider():
    stream = (": OPENROUTER PROCESSING\n\n" + _chunk({"role": "assistant", "content": "hi"})
              + _chunk({}, "stop") + _chunk({}, usage={"prompt_tokens": 3, "completion_tokens": 1, "cost": 0.001})
              + "data: [DONE]\n\n")
    line, fine = describe(stream.encode(), "sse")
    assert fine and line == "sse · OpenAI Chat Completions stream · via Anthropic"


def test_a_direct_stream_names_no_router():
    stream = _chunk({"content": "hi"}).replace('"provider": "Anthropic", ', "") + "data: [DONE]\n\n"
    line, _ = describe(stream.encode(), "sse")
    assert "via" not in line


def test_a_choice_that_only_refused_shows_its_refusal_not_no_text():
    """n=2: choice 0 answers, choice 1 refuses (`delta.refusal`); the refusing choice has no "(no text)" filler."""
    from tui.payloads.decode import decode_bytes
    from tui.payloads.op_captures import _reassembled_lines

    def chunk(choices: list) -> str:
        return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o",
                                      "choices": choices}) + "\n\n"
    stream = (chunk([{"index": 0, "delta": {"role": "assistant", "content": "Hello"}, "finish_reason": None},
                     {"index": 1, "delta": {"role": "assistant", "refusal": "I can't."}, "finish_reason": None}])
              + chunk([{"index": 0, "delta": {}, "finish_reason": "stop"},
                       {"index": 1, "delta": {}, "finish_reason": "stop"}]) + "data: [DONE]\n\n")
    lines = _reassembled_lines(decode_bytes(stream.encode(), "sse"))
    assert lines[1:] == ["── text (choice 0, stop stop)", "Hello", "── text (choice 1, stop stop)",
                         "── refusal (choice 1)", "I can't."]
