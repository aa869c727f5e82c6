"""The common shape every stream dialect reassembles into, and the builder the dialects fill.

A provider's stream is a sequence of small deltas; a person wants the finished answer. Every dialect module feeds
one `Builder` and gets one `Reassembled`: ordered content blocks (text, thinking, redacted thinking, refusal, tool
calls, citations, search results) tagged with the choice/candidate they belong to, plus the stop reason, usage,
model, routed provider and every error met on the way. Blocks keep their order so a later "messages" view can
show the answer as the model produced it; the views of today read the flat properties.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

DIALECT_LABELS = {
    "anthropic": "Anthropic Messages",
    "openai-chat": "OpenAI Chat Completions",
    "openai-responses": "OpenAI Responses",
    "gemini": "Google Gemini",
    "ollama-chat": "Ollama /api/chat",
    "ollama-generate": "Ollama /api/generate",
    "cohere": "Cohere v2 Chat",
    "bedrock-converse": "Amazon Bedrock Converse",
    "genai": "OpenTelemetry GenAI messages",
    "aiagent": "ai-agent turn",  # ai-agent's own TurnRequest / TurnResult (`sdk` captures: tui.payloads.aiagent_turn)
    "generic": "generic text deltas",
    "error": "error response",
    "unknown": "unknown",
}


@dataclass(slots=True)
class ToolCall:
    name: str = ""
    id: str = ""
    arguments: str = ""  # as the provider streamed it (JSON text, or free text for custom tools)
    kind: str = ""  # "" (function) | "custom" | "server" | "web_search" | "file_search" | ...
    choice: int = 0
    error: bool = False  # on a provider-run tool's result: the provider said it failed


@dataclass(slots=True)
class Block:
    kind: str  # "text" | "thinking" | "redacted_thinking" | "refusal" | "tool_call" | "citation" | "search_result"
    #            | "tool_result" (of a tool the provider ran: code execution, MCP) | "compaction" (Anthropic's
    #            summary of the context it compacted)
    choice: int = 0
    parts: list[str] = field(default_factory=list)
    tool: ToolCall | None = None  # a tool_call's call; on a search_result / tool_result, the call it answers

    @property
    def text(self) -> str:
        return "".join(self.parts)


@dataclass(slots=True)
class Reassembled:
    dialect: str = ""  # a key of DIALECT_LABELS
    streamed: bool = True
    blocks: list[Block] = field(default_factory=list)
    stop_reason: str = ""
    stop_details: str = ""
    usage: dict | None = None
    model: str = ""
    provider: str = ""  # the provider a router (OpenRouter) sent the request to
    errors: list[str] = field(default_factory=list)
    stops: dict[int, str] = field(default_factory=dict)  # per choice/candidate, when there are several
    blocked: str = ""  # why the provider refused the prompt itself (Gemini promptFeedback): reason and message
    status: str = ""  # the answer's own status, when it states one (ai-agent's TurnResult `status.type`)
    meta: list[str] = field(default_factory=list)  # more facts for its heading ("latency 812 ms")

    @property
    def label(self) -> str:
        name = DIALECT_LABELS.get(self.dialect, self.dialect or "unknown")
        if self.dialect in ("unknown", "generic", "error"):
            return name
        if self.dialect == "aiagent":
            return f"{name} result"  # a TurnResult: never a provider's response
        return f"{name} {'stream' if self.streamed else 'response'}"

    @property
    def choices(self) -> list[int]:
        return sorted({b.choice for b in self.blocks} | set(self.stops)) or [0]

    def text_runs(self, choice: int) -> list[str]:
        """The texts of a choice, one per run of adjacent text blocks. Adjacent blocks are one flowing text (Anthropic
        splits an answer into blocks wherever a citation starts or ends, even mid-line: `- ` then its sentence);
        citations between them belong to the text and do not break it; thinking, a tool call or a tool's result
        does."""
        runs: list[list[str]] = []
        flowing = False
        for b in self.blocks:
            if b.choice != choice or b.kind == "citation":
                continue
            if b.kind == "text":
                if not flowing:
                    runs.append([])
                runs[-1].append(b.text)
            flowing = b.kind == "text"
        return [t for t in ("".join(run) for run in runs) if t] or ([""] if runs else [])

    def text_of(self, choice: int) -> str:
        """The text of a choice: its runs of text (text_runs) a blank line apart."""
        return "\n\n".join(self.text_runs(choice))

    @property
    def text(self) -> str:
        """The text of the first choice (all of it when there is only one)."""
        return self.text_of(self.choices[0])

    @property
    def thinking_blocks(self) -> list[str]:
        return [("[redacted thinking]" if b.kind == "redacted_thinking" else b.text)
                for b in self.blocks if b.kind in ("thinking", "redacted_thinking")]

    @property
    def thinking(self) -> str:
        return "\n\n".join(t for t in self.thinking_blocks if t)

    @property
    def refusal(self) -> str:
        return "".join(b.text for b in self.blocks if b.kind == "refusal")

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b.tool for b in self.blocks if b.kind == "tool_call" and b.tool is not None]

    def of_kind(self, kind: str) -> list[Block]:
        return [b for b in self.blocks if b.kind == kind]


_SCALARS = (str, int, float, bool, type(None))


def _hashable(key: object) -> object:
    """Keys are built from the data (`index`, `output_index`, `item_id`): a dict or list there must not raise."""
    if isinstance(key, _SCALARS):
        return key
    if isinstance(key, tuple):
        return tuple(_hashable(k) for k in key)
    return ("?", compact(key))


class _Keys(dict):
    """A dict whose keys are made hashable first (see _hashable)."""

    def __getitem__(self, key):
        return dict.__getitem__(self, _hashable(key))

    def __setitem__(self, key, value):
        dict.__setitem__(self, _hashable(key), value)

    def __contains__(self, key):
        return dict.__contains__(self, _hashable(key))

    def get(self, key, default=None):
        return dict.get(self, _hashable(key), default)

    def setdefault(self, key, default=None):
        return dict.setdefault(self, _hashable(key), default)

    def set_plain(self, key, value) -> None:
        """Remember a non-block value (a dialect's own bookkeeping, e.g. the last tool key of a choice)."""
        dict.__setitem__(self, _hashable(key), value)


class Builder:
    """Collects blocks by a dialect's own key (content-block index, output index, choice + tool index...)."""

    __slots__ = ("r", "by_key", "hit")

    def __init__(self, dialect: str = "", streamed: bool = True) -> None:
        self.r = Reassembled(dialect, streamed)
        self.by_key: _Keys = _Keys()  # Block values, plus a dialect's own set_plain bookkeeping
        self.hit = False

    def block(self, key: object, kind: str, choice: int = 0) -> Block:
        """The block under `key`, created (at the end) when new; `key=None` always makes a new one."""
        b = self.by_key.get(key) if key is not None else None
        if b is None:
            b = Block(kind, choice)
            if kind == "tool_call":
                b.tool = ToolCall(choice=choice)
            self.r.blocks.append(b)
            if key is not None:
                self.by_key[key] = b
        return b

    def append(self, kind: str, text: str, choice: int = 0, key: object = None) -> None:
        """Append text to the last block of `kind` for `choice`, or the keyed one (new block when it changes)."""
        if not text:
            return
        if key is None:
            last = self.r.blocks[-1] if self.r.blocks else None
            if last is None or last.kind != kind or last.choice != choice:
                last = self.block(None, kind, choice)
            last.parts.append(text)
        else:
            self.block(key, kind, choice).parts.append(text)

    def tool(self, key: object, choice: int = 0, *, name: str = "", id: str = "", kind: str = "") -> ToolCall:
        b = self.block(key, "tool_call", choice)
        tc = b.tool
        if tc is None:  # the key first named another kind of block (odd data): the call rides along
            tc = b.tool = ToolCall(choice=choice)
        if name and not tc.name:
            tc.name = name
        if id and not tc.id:
            tc.id = id
        if kind and not tc.kind:
            tc.kind = kind
        return tc

    def args(self, key: object, delta: str, choice: int = 0) -> None:
        if delta:
            b = self.block(key, "tool_call", choice)
            b.parts.append(delta)

    def set_args(self, key: object, full: str, choice: int = 0) -> None:
        """A `.done` event's complete arguments replace what the deltas built (they are the same when all arrived)."""
        if full:
            b = self.block(key, "tool_call", choice)
            b.parts[:] = [full]

    def once(self, kind: str, text: str, choice: int = 0, tool: ToolCall | None = None) -> Block | None:
        """A source line (citation, search result) listed once: streams repeat them chunk after chunk (Gemini's
        grounding, OpenAI-compatible annotations, Perplexity's citations). The new block, or None when known."""
        key = ("once", kind, choice, text)
        if not text or key in self.by_key:
            return None
        b = self.block(key, kind, choice)
        b.parts.append(text)
        b.tool = tool
        return b

    def set_usage(self, u: object, merge: bool = True) -> None:
        if isinstance(u, dict) and u:
            self.r.usage = {**self.r.usage, **u} if merge and self.r.usage else dict(u)

    def model(self, m: object) -> None:
        if isinstance(m, str) and m and not self.r.model:
            self.r.model = m

    def stop(self, reason: object, choice: int | None = None) -> None:
        if isinstance(reason, str) and reason:
            self.r.stop_reason = reason
            if choice is not None:
                self.r.stops[choice] = reason

    def error(self, obj: object) -> None:
        """An error object in any provider's shape: {error: {type|code|status, message}}, {type, message}, a string."""
        self.r.errors.append(error_text(obj))

    def result(self) -> Reassembled:
        for b in self.r.blocks:  # tool arguments live in the block parts while streaming
            if b.kind == "tool_call" and b.tool is not None and b.parts:
                b.tool.arguments = "".join(b.parts)
        return self.r


def error_text(obj: object) -> str:
    if isinstance(obj, str):
        return obj
    if not isinstance(obj, dict):
        return compact(obj)
    err = obj.get("error")
    if isinstance(err, str) and err:
        return err
    if not isinstance(err, dict):
        err = obj
    kind = err.get("type") if err.get("type") != "error" else None
    kind = kind or err.get("status") or err.get("code") or ""
    msg = err.get("message") or ""
    if not isinstance(msg, str):
        msg = compact(msg)
    if not isinstance(kind, str):
        kind = str(kind)
    if not msg and not kind:
        msg = compact(err)
    return f"{kind}: {msg}" if kind and msg else str(kind or msg)


def titled(r: dict) -> str:
    """`title <url>` of a source (a citation, a search result, an annotation), or whichever of the two it has."""
    title, url = s(r.get("title")), s(r.get("url")) or s(r.get("uri"))
    return f"{title} <{url}>" if title and url else title or url


def compact(value: object) -> str:
    """Compact JSON of a parsed value; orjson writes 255 levels of nesting, fewer than it reads (1,024)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return "[nested too deeply to show]"


def s(v: object) -> str:
    return v if isinstance(v, str) else ""


def d(v: object) -> dict:
    return v if isinstance(v, dict) else {}


def lst(v: object) -> list:
    return v if isinstance(v, list) else []


def idx(v: object, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default
