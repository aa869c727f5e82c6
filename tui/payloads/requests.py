"""What an LLM request body is: which dialect, model, how many messages and tools, streamed or not.

Told from the body's own keys: Gemini sends `contents`; the Responses API sends `input`; Ollama's `/api/generate`
sends `prompt`; `messages` is Anthropic when it has a top-level `system`, `thinking`, `anthropic_version` or tools
with `input_schema`, Ollama when it has `options` / `keep_alive` / `think` / `format`, else OpenAI Chat Completions.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.payloads import genai
from tui.payloads.result import DIALECT_LABELS, d, lst, s


@dataclass(slots=True)
class RequestInfo:
    dialect: str
    model: str = ""
    messages: int = 0
    tools: int = 0
    stream: bool | None = None

    @property
    def line(self) -> str:
        parts = [f"{DIALECT_LABELS.get(self.dialect, self.dialect)} request"]
        if self.model:
            parts.append(f"model {self.model}")
        parts.append(f"{self.messages} message{'s' if self.messages != 1 else ''}")
        if self.tools:
            parts.append(f"{self.tools} tool{'s' if self.tools != 1 else ''}")
        if self.stream is not None:
            parts.append("streamed" if self.stream else "not streamed")
        return " · ".join(parts)


def request_info(body: object) -> RequestInfo | None:
    if not isinstance(body, dict):
        return None
    model = s(body.get("model"))
    stream = body.get("stream") if isinstance(body.get("stream"), bool) else None
    tools = lst(body.get("tools"))
    if genai.is_request(body):
        return RequestInfo(genai.DIALECT, s(body.get("gen_ai.request.model")), len(lst(body.get(genai.INPUT_KEY))))
    if isinstance(body.get("contents"), list):
        n_tools = sum(len(lst(d(t).get("functionDeclarations"))) or 1 for t in tools)
        return RequestInfo("gemini", model, len(body["contents"]), n_tools, stream)
    if "input" in body and "messages" not in body and (model or "instructions" in body):
        inp = body.get("input")
        return RequestInfo("openai-responses", model, len(inp) if isinstance(inp, list) else 1, len(tools), stream)
    if isinstance(body.get("prompt"), str) and model and "messages" not in body:
        return RequestInfo("ollama-generate", model, 1, 0, stream)
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    if ("system" in body or "thinking" in body or "anthropic_version" in body or "stop_sequences" in body
            or any("input_schema" in d(t) for t in tools)):
        dialect = "anthropic"
    elif any(k in body for k in ("options", "keep_alive", "think", "format")):
        dialect = "ollama-chat"
    else:
        dialect = "openai-chat"
    return RequestInfo(dialect, model, len(messages), len(tools), stream)
