"""What an LLM request body is: which dialect, model, how many messages and tools, streamed or not.

The dialect is told from the body's whole shape, by score, never by one key: `system` is top-level in Anthropic and
Bedrock, `thinking` is sent by Anthropic, Z.ai and Cohere, `max_tokens` by nearly everyone. Each row of `_RULES` is a
piece of evidence and what it weighs for one dialect: 3 for what only that dialect sends (Anthropic's `input_schema`
tools and `tool_use` / `tool_result` blocks, Bedrock's `inferenceConfig` and untyped `{toolUse}` blocks, Cohere's
`documents` / `citation_options` / `safety_mode` / `k` / `p`, Ollama's `options` / `keep_alive`, Gemini's
`contents`), 1 or 2 for what it usually sends. The URL path of a captured HTTP request (`POST /v1/messages`) weighs
4. The OpenAI Chat shape (roles `system` / `tool`, `tools[].type = function`, `tool_calls`) is the lingua franca
Ollama and Cohere accept too: its evidence counts for them, and they are named only on evidence of their own (2 or
more: a `command-a` model in an OpenAI-shaped body is Cohere's OpenAI compatibility API).

A dialect is named when it scores at least 2, at least 1 ahead of every unrelated dialect, and no unrelated dialect
has strong (3+) evidence of its own; otherwise the request is "unknown request dialect" (its messages are still read
as plain role / content messages), never a wrong name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tui.payloads import genai
from tui.payloads.result import DIALECT_LABELS, d, lst, s

UNKNOWN = "unknown"
_NOT_LLM = "embeddings"  # the winner that means "not a chat request": shown as plain JSON
_MAX_SCANNED = 5000  # messages looked at for their shapes (linear; the first thousands say all there is)
_FAMILY = {"ollama-chat": "openai-chat", "cohere": "openai-chat"}
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
                               "mcp_tool_use", "search_result", "container_upload", "image+source",
                               "document+source"})
_CONVERSE_BLOCKS = frozenset({"toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent", "image",
                              "document", "video", "citationsContent"})
_OPENAI_KEYS = ("max_completion_tokens", "stream_options", "n", "logit_bias", "top_logprobs", "parallel_tool_calls",
                "reasoning_effort", "modalities", "functions", "function_call", "prediction", "web_search_options",
                "verbosity", "response_format", "presence_penalty", "frequency_penalty", "user",
                "transforms", "models", "route")  # the last three: OpenRouter's
_OLLAMA_KEYS = ("options", "keep_alive", "think")
_COHERE_KEYS = ("documents", "citation_options", "safety_mode", "strict_tools", "priority", "k", "p")
_CONVERSE_KEYS = ("additionalModelRequestFields", "additionalModelResponseFieldPaths", "guardrailConfig",
                  "promptVariables", "requestMetadata", "performanceConfig")
_GEMINI_KEYS = ("generationConfig", "generation_config", "systemInstruction", "system_instruction", "safetySettings",
                "safety_settings", "cachedContent", "cached_content", "tool_config")  # `toolConfig`: Bedrock's too
_RESPONSES_KEYS = ("instructions", "max_output_tokens", "previous_response_id", "include", "truncation",
                   "conversation", "background")
_RESPONSE_ITEMS = frozenset({"message", "function_call", "function_call_output", "reasoning", "custom_tool_call",
                             "custom_tool_call_output", "item_reference", "input_text", "input_image", "input_file"})
_COMPLETIONS_KEYS = ("max_tokens", "temperature", "top_p", "n", "echo", "best_of", "logprobs", "stop")
_PATHS = ((re.compile(r"/v1/messages\b"), "anthropic"), (re.compile(r"/chat/completions\b"), "openai-chat"),
          (re.compile(r"/v1/responses\b"), "openai-responses"),
          (re.compile(r":(?:stream)?[gG]enerate[cC]ontent\b"), "gemini"), (re.compile(r"/api/chat\b"), "ollama-chat"),
          (re.compile(r"/api/generate\b"), "ollama-generate"), (re.compile(r"/v2/chat\b"), "cohere"),
          (re.compile(r"/converse(?:-stream)?\b"), "bedrock-converse"), (re.compile(r"/embeddings\b"), _NOT_LLM))


@dataclass(slots=True)
class RequestInfo:
    dialect: str
    model: str = ""
    messages: int = 0
    tools: int = 0
    stream: bool | None = None
    provider: str = ""  # the provider a request names itself (ai-agent's TurnRequest), "" for a provider's body

    TOOLS_WORD = ""  # after the tool count ("offered" for ai-agent's TurnRequest)

    @property
    def title(self) -> str:
        if self.dialect == UNKNOWN:
            return "unknown request dialect"
        return f"{DIALECT_LABELS.get(self.dialect, self.dialect)} request"

    @property
    def line(self) -> str:
        parts = [self.title]
        if self.provider:
            parts.append(f"provider {self.provider}")
        if self.model:
            parts.append(f"model {self.model}")
        parts.append(f"{self.messages} message{'s' if self.messages != 1 else ''}")
        if self.tools:
            word = f" {self.TOOLS_WORD}" if self.TOOLS_WORD else ""
            parts.append(f"{self.tools} tool{'s' if self.tools != 1 else ''}{word}")
        if self.stream is not None:
            parts.append("streamed" if self.stream else "not streamed")
        return " · ".join(parts)


@dataclass(slots=True)
class _Shape:
    """What the rules look at, gathered in one pass over the messages and tools."""

    body: dict
    path: str = ""
    model: str = ""
    roles: set[str] = field(default_factory=set)
    blocks: set[str] = field(default_factory=set)  # `type` of typed content blocks (+ "image+source" and such)
    untyped: set[str] = field(default_factory=set)  # keys of content blocks without a `type` (Bedrock's)
    message_keys: set[str] = field(default_factory=set)
    tools: set[str] = field(default_factory=set)  # "input_schema" | "function" | "flat-function" | "toolSpec" | ...
    object_args: bool = False  # a tool call whose arguments are an object (Ollama), not JSON text


def _has(*keys: str) -> Callable[[_Shape], bool]:
    return lambda x: any(k in x.body for k in keys)


def _thinking(x: _Shape) -> dict:
    return d(x.body.get("thinking"))


_RULES: tuple[tuple[str, int, Callable[[_Shape], bool]], ...] = (
    ("anthropic", 3, lambda x: "input_schema" in x.tools),
    ("anthropic", 3, lambda x: bool(x.blocks & _ANTHROPIC_BLOCKS) or any(t.endswith("_tool_result") for t in x.blocks)),
    ("anthropic", 3, _has("anthropic_version", "mcp_servers", "container", "context_management")),
    ("anthropic", 2, lambda x: isinstance(_thinking(x).get("budget_tokens"), int)),
    ("anthropic", 2, lambda x: s(d(x.body.get("tool_choice")).get("type")) in ("auto", "any", "tool")),
    ("anthropic", 1, lambda x: isinstance(x.body.get("max_tokens"), int)),
    ("anthropic", 1, lambda x: isinstance(x.body.get("system"), str) or
     any(isinstance(d(b).get("type"), str) for b in lst(x.body.get("system")))),
    ("anthropic", 1, lambda x: isinstance(x.body.get("stop_sequences"), list)),
    ("anthropic", 1, lambda x: "top_k" in x.body or "user_id" in d(x.body.get("metadata"))),
    ("anthropic", 1, lambda x: x.model.startswith("claude")),
    ("bedrock-converse", 3, lambda x: isinstance(x.body.get("inferenceConfig"), dict)),
    ("bedrock-converse", 3, lambda x: "toolSpec" in x.tools or bool(x.untyped & _CONVERSE_BLOCKS)),
    ("bedrock-converse", 2, _has(*_CONVERSE_KEYS)),
    ("bedrock-converse", 2, lambda x: bool(lst(x.body.get("system"))) and
     all(isinstance(b, dict) and "type" not in b for b in lst(x.body.get("system")))),
    ("bedrock-converse", 1, lambda x: "text" in x.untyped),
    ("bedrock-converse", 1, lambda x: isinstance(x.body.get("modelId"), str)),
    ("openai-chat", 3, lambda x: bool(x.roles & {"system", "developer", "tool", "function"})),
    ("openai-chat", 3, lambda x: "function" in x.tools or bool(x.blocks & {"image_url", "input_audio", "file"})),
    ("openai-chat", 2, lambda x: bool(x.message_keys & {"tool_calls", "tool_call_id"})),
    ("openai-chat", 3, lambda x: "thinking+chunks" in x.blocks),  # Mistral (its Chat Completions dialect)
    ("openai-chat", 2, lambda x: bool(x.message_keys & {"reasoning_details", "reasoning_content"})),
    ("openai-chat", 2, _has(*_OPENAI_KEYS)),
    ("openai-chat", 2, lambda x: x.body.get("tool_choice") in ("auto", "none", "required")),
    ("openai-chat", 2, lambda x: "messages" in x.body and isinstance(x.body.get("reasoning"), dict)),  # OpenRouter
    ("openai-chat", 2, lambda x: _thinking(x).get("type") == "enabled" and "budget_tokens" not in _thinking(x)),
    ("openai-chat", 1, lambda x: "/" in x.model or x.model.startswith(("gpt-", "o1", "o3", "o4", "chatgpt"))),
    ("ollama-chat", 3, lambda x: "messages" in x.body and (_has(*_OLLAMA_KEYS)(x) or _format(x))),
    ("ollama-chat", 3, lambda x: bool(x.message_keys & {"images", "tool_name"}) or x.object_args),
    ("cohere", 3, _has(*_COHERE_KEYS)),
    ("cohere", 3, lambda x: "tool_plan" in x.message_keys or "document+document" in x.blocks),
    ("cohere", 3, lambda x: x.body.get("tool_choice") in ("REQUIRED", "NONE")),
    ("cohere", 2, lambda x: isinstance(_thinking(x).get("token_budget"), int)),
    ("cohere", 1, lambda x: x.model.startswith("command")),
    ("gemini", 4, lambda x: isinstance(x.body.get("contents"), list)),
    ("gemini", 2, _has(*_GEMINI_KEYS)),
    ("gemini", 3, lambda x: "declarations" in x.tools),
    ("openai-responses", 2, lambda x: "input" in x.body and (bool(x.model) or "instructions" in x.body)),
    ("openai-responses", 2, lambda x: "input" in x.body and (  # OpenRouter's chat requests send `reasoning` too
        _has(*_RESPONSES_KEYS)(x) or isinstance(d(x.body.get("text")).get("format"), dict))),
    ("openai-responses", 3, lambda x: "flat-function" in x.tools or _response_items(x)),
    ("ollama-generate", 2, lambda x: isinstance(x.body.get("prompt"), str) and bool(x.model)),
    ("ollama-generate", 3, lambda x: isinstance(x.body.get("prompt"), str) and (
        _has(*_OLLAMA_KEYS, "raw", "template", "context", "images", "system")(x) or _format(x))),
    ("completions", 2, lambda x: isinstance(x.body.get("prompt"), str) and _has(*_COMPLETIONS_KEYS)(x)),
    (_NOT_LLM, 3, _has("encoding_format", "dimensions")),
)


def _format(x: _Shape) -> bool:
    """Ollama's `format`: "json" or a JSON schema (OpenAI and Cohere call it `response_format`)."""
    f = x.body.get("format")
    return f == "json" or isinstance(f, dict)


def _response_items(x: _Shape) -> bool:
    items = lst(x.body.get("input"))
    return any(s(d(i).get("type")) in _RESPONSE_ITEMS or
               any(s(d(p).get("type")) in _RESPONSE_ITEMS for p in lst(d(i).get("content"))) for i in items[:50])


def _shape(body: dict, path: str) -> _Shape:
    x = _Shape(body, path, s(body.get("model")).lower())
    for m in lst(body.get("messages"))[:_MAX_SCANNED]:
        if not isinstance(m, dict):
            continue
        x.message_keys.update(m)
        if isinstance(m.get("role"), str):
            x.roles.add(m["role"])
        for block in lst(m.get("content")):
            _block(x, block)
        for call in lst(m.get("tool_calls")):
            x.object_args = x.object_args or isinstance(d(d(call).get("function")).get("arguments"), dict)
    for block in lst(body.get("system")):
        _block(x, block)
    for tool in lst(body.get("tools")):
        t = d(tool)
        if "input_schema" in t:
            x.tools.add("input_schema")
        if t.get("type") == "function":
            x.tools.add("function" if isinstance(t.get("function"), dict) else "flat-function" if "name" in t else "")
        if "functionDeclarations" in t or "function_declarations" in t:
            x.tools.add("declarations")
    if any("toolSpec" in d(t) for t in lst(d(body.get("toolConfig")).get("tools"))):
        x.tools.add("toolSpec")
    return x


def _block(x: _Shape, block: object) -> None:
    b = d(block)
    t = b.get("type")
    if isinstance(t, str):
        # Mistral's typed thinking chunk holds a list of texts where Anthropic's thinking block holds a string
        x.blocks.add("thinking+chunks" if t == "thinking" and isinstance(b.get("thinking"), list) else t)
        for inner in ("source", "document"):  # Anthropic's image/document `source`, Cohere's `document`
            if isinstance(b.get(inner), dict):
                x.blocks.add(f"{t}+{inner}")
    else:
        x.untyped.update(b)


def request_dialect(body: dict, path: str = "") -> str:
    """The dialect the shape of `body` (and the URL path, when captured) shows, UNKNOWN when it is not clear."""
    x = _shape(body, path)
    scores: dict[str, int] = {}
    for dialect, weight, holds in _RULES:
        if holds(x):
            scores[dialect] = scores.get(dialect, 0) + weight
    for pattern, dialect in _PATHS:
        if path and pattern.search(path):
            scores[dialect] = scores.get(dialect, 0) + 4
    for member, parent in _FAMILY.items():  # a model name alone (Cohere's compatibility API) is not enough
        if scores.get(member, 0) >= 2:
            scores[member] += scores.get(parent, 0)
    if not scores:
        return UNKNOWN
    best = max(scores, key=lambda k: scores[k])
    rivals = [v for k, v in scores.items() if k != best and _FAMILY.get(k) != best and _FAMILY.get(best) != k]
    second = max(rivals, default=0)
    if scores[best] < 2 or scores[best] - second < 1 or second >= 3 or best == "completions":
        return UNKNOWN
    return best


def request_info(body: object, path: str = "", dialect: str = "") -> RequestInfo | None:
    """What a request body is, or None when it is no LLM request (no messages, contents, input or prompt).
    `path`: the captured HTTP request line or URL, when there is one; `dialect`: the one its writer says it is in
    (a body rebuilt from an agent's session file)."""
    if not isinstance(body, dict):
        return None
    model = s(body.get("model"))
    stream = body.get("stream") if isinstance(body.get("stream"), bool) else None
    tools = lst(body.get("tools"))
    if genai.is_request(body):
        return RequestInfo(genai.DIALECT, s(body.get("gen_ai.request.model")), len(lst(body.get(genai.INPUT_KEY))))
    carriers = (isinstance(body.get("messages"), list) or isinstance(body.get("contents"), list) or
                ("input" in body and (bool(model) or "instructions" in body)) or
                (isinstance(body.get("prompt"), str) and bool(model)))
    if not carriers:
        return None
    dialect = dialect or request_dialect(body, path)
    if dialect == _NOT_LLM:
        return None
    if dialect == "gemini":
        n_tools = sum(len(lst(d(t).get("functionDeclarations"))) or 1 for t in tools)
        return RequestInfo("gemini", model, len(lst(body.get("contents"))), n_tools, stream)
    if dialect == "openai-responses":
        inp = body.get("input")
        return RequestInfo(dialect, model, len(inp) if isinstance(inp, list) else 1, len(tools), stream)
    if dialect == "ollama-generate":
        return RequestInfo(dialect, model, 1, 0, stream)
    if dialect == "bedrock-converse":
        return RequestInfo(dialect, model or s(body.get("modelId")), len(lst(body.get("messages"))),
                           len(lst(d(body.get("toolConfig")).get("tools"))), stream)
    n = len(lst(body.get("messages")) or lst(body.get("contents")) or lst(body.get("input")))
    return RequestInfo(dialect, model, n, len(tools), stream)
