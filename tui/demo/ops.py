"""A generated session's ops. Same seed, same bytes: keep new rng draws after the existing ones."""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass
from typing import Any

import orjson

from .bodies import Reply, Usage, binary_blob, http_message, llm_exchange
from .catalog import (AGENTS, B36, DATA, HOSTILE_STRINGS, MODELS, TITLES, TOOLS, fill, iso, rand_id, text,
                      tool_result, uuid4)

FULL_CAPTURE_BYTES = 400  # below it, payload_bytes also thins out how many LLM ops carry captures


def b36(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = B36[r] + out
    return out or "0"


class Gen:
    """The generator's state: the seeded rng, the options, the tree's origin, headend and call path style."""

    def __init__(self, seed: int, *, version: int, payload_bytes: int, provider_mix: tuple[str, ...],
                 hostile_rate: float, capture_rate: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.version, self.pb, self.capture_rate = version, max(0, int(payload_bytes)), capture_rate
        self.providers, self.hostile_rate, self.origin = tuple(provider_mix) or ("anthropic",), hostile_rate, ""
        self.headend = self.rng.choice(("cli", "cli", "slack", "api", "mcp"))
        self.style = "arrow" if self.rng.random() < 0.6 else "cli"

    def uid(self, ts: int) -> str:
        return f"{b36(ts)}-{rand_id(self.rng, 6, B36)}"

    def hostile(self, s: str) -> str:
        hit = self.hostile_rate > 0 and self.rng.random() < self.hostile_rate
        return f"{s} {self.rng.choice(HOSTILE_STRINGS)}" if hit else s

    def gap(self) -> int:
        return self.rng.randint(1, 40)

    def pick_model(self, provider: str, cheap: bool = False) -> tuple[str, str, tuple[float, ...], bool]:
        models = MODELS.get(provider)
        if models is None:
            return (f"{provider}-default", f"{provider}-default", (1.0, 4.0, 0.25, 0.0), False)
        if cheap:
            return models[DATA["cheap"].get(provider, 0)]
        return self.rng.choice(models) if self.rng.random() < 0.4 else models[0]

    def capture(self, data: bytes, fmt: str, legacy: bool) -> Any:
        """``payload.raw``/``payload.sdk``: an object (real files) or a plain base64 string (old spec)."""
        value = base64.b64encode(data).decode()
        return value if legacy else {"format": fmt, "encoding": "base64", "value": value}

    def unavailable(self, fmt: str, legacy: bool) -> Any:
        """The producer's capture bug: ``[unavailable]`` for a body, base64-encoded (a few older files: literally)."""
        return "[unavailable]" if self.rng.random() < 0.25 else self.capture(b"[unavailable]", fmt, legacy)


class Sess:
    """One session being generated: who it is, its model and tools (drawn here), and its clock ``t``."""

    def __init__(self, g: Gen, level: int, agent: str, call_path: str, parent_txn: str | None, prompt: str,
                 start: int, prefix: str) -> None:
        rng = g.rng
        self.agent, self.call_path, self.parent_txn, self.user, self.t, self.prefix = \
            agent, call_path, parent_txn, prompt, start, prefix
        self.level, self.title, self.n_messages = level, "", 1
        self.status_text: str | None = None
        self.children_named, self.report_text = 0, ""  # sub-agents named so far, the final report
        self.report_params: dict[str, Any] = {}
        self.txn = uuid4(rng)
        self.origin = g.origin = g.origin or self.txn
        self.provider = rng.choice(g.providers)
        self.model, self.actual_model, self.prices, thinking_capable = g.pick_model(self.provider)
        self.tool_names, self.sub_agents = AGENTS.get(agent, (("web__search",), ("web-fetch",)))
        self.work_tools = [n for n in self.tool_names if n != "agent__task_status"] or list(self.tool_names)
        self.tools: list[dict[str, Any]] = [
            {"name": n, "description": TOOLS[n][2] + " " + text(rng, 60), "schema": DATA["tool_schema"]}
            for n in self.tool_names + ("agent__final_report",)]
        self.system = f"You are {agent}, an autonomous agent. " + text(rng, max(200, min(4000, g.pb // 2 or 300)))
        self.thinking = thinking_capable and rng.random() < 0.7
        self.legacy_raw = g.version == 1 and rng.random() < 0.5


@dataclass
class At:
    """Where an op logs from: ``log`` adds to its ``logs`` what every log entry of the op repeats."""

    g: Gen
    s: Sess
    op: dict[str, Any]
    turn: int
    sub: int
    path: str
    remote: str
    typ: str
    tool_kind: str | None = None

    def log(self, ts: int, template: str, **values: Any) -> None:
        """data.json's ``op_logs[template]`` (severity, direction, message, maybe details) filled with ``values`` and
        the session's and op's attributes, and what every entry repeats (``log``; a None value leaves its key out)."""
        g, s = self.g, self.s
        path = self.path[len(s.prefix):]  # a sub-agent's log says 1-1, not 1-5.1-1
        v = vars(s) | vars(self) | {"ts": ts, "path": path, "fatal": False, "details": None,
                                    "turn_path": f"{self.turn}.{self.sub}", "headend": g.headend} | values
        entry = fill(DATA["op_logs"][template], v)
        v |= entry | {"message": g.hostile(entry["message"])}
        self.op["logs"].append(fill(DATA["log"], v) | (fill(DATA["log_extra"], v) if g.rng.random() < 0.08 else {})
                               | ({"details": entry["details"]} if entry.get("details") else {}))


def new_op(g: Gen, kind: str, start: int, attrs: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"opId": g.uid(start), "kind": kind, "startedAt": start, "attributes": attrs, "logs": [], "accounting": [],
            **more}


def response(payload: Any, size: int, truncated: bool = False) -> dict[str, Any]:
    return {"payload": payload, "size": size, "truncated": truncated}


def close(s: Sess, op: dict[str, Any], end: int, status: str) -> dict[str, Any]:
    op["endedAt"], op["status"], s.t = end, status, end
    return op


def usage_for(g: Gen, s: Sess, turn: int, out_extra: int) -> Usage:
    rng = g.rng
    ctx = min(190_000, 2200 + turn * rng.randint(300, 1600) + rng.randint(0, 3000))
    out = rng.randint(40, 1800) + out_extra
    if s.provider == "anthropic":
        if turn <= 1:
            cw, cr = int(ctx * rng.uniform(0.6, 0.9)), 0
        else:
            cr = int(ctx * rng.uniform(0.55, 0.95))
            cw = int((ctx - cr) * rng.uniform(0.0, 0.8)) if rng.random() < 0.6 else 0
        return Usage(input=max(12, ctx - cr - cw), output=out, cache_read=cr, cache_write=cw)
    cached = (int(ctx * rng.uniform(0.3, 0.9)) // 128) * 128 if turn > 1 and rng.random() < 0.8 else 0
    return Usage(input=ctx, output=out, cache_read=0 if s.provider == "ollama" else cached,  # Ollama: none cached
                 reasoning=out_extra if s.thinking else 0)


def cost_for(s: Sess, u: Usage) -> float:
    pin, pout, pcr, pcw = s.prices
    if s.provider == "anthropic":
        return round((u.input * pin + u.output * pout + u.cache_read * pcr + u.cache_write * pcw) / 1e6, 8)
    return round(((u.input - u.cache_read) * pin + u.cache_read * pcr + u.output * pout) / 1e6, 8)


def accounting(s: Sess, kind: str, *, origin: bool = True, usage: Usage | None = None, **v: Any) -> dict[str, Any]:
    """An ``llm`` or ``tool`` AccountingEntry (data.json's ``accounting``; a value left None leaves its key out)."""
    who = vars(s) | {"error": None, "origin": s.origin if origin else None,  # (placeholders: Sess's attributes)
                     "parent_txn": (s.parent_txn or None) if origin else None}
    if usage is not None:  # token counts in the provider's semantics (data.json's ``tokens``: Anthropic's or not)
        u, anthropic = usage, s.provider == "anthropic"
        total = u.input + u.output + (u.cache_read + u.cache_write if anthropic else 0)
        who["tokens"] = fill(DATA["tokens"]["anthropic" if anthropic else "other"], vars(u) | {"total": total})
        v["upstream"] = v["upstream"] if origin else None
    return fill(DATA["accounting"][kind], who | v)


def call_id(g: Gen, s: Sess) -> str:
    return "toolu_01" + rand_id(g.rng, 22) if s.provider == "anthropic" else "call_" + rand_id(g.rng, 24)


def llm_request(g: Gen, s: Sess, c: Reply, usage: Usage, start: int,
                stop: str) -> tuple[dict, tuple[bytes, str, bytes] | None]:
    rng, pb = g.rng, g.pb
    payload: dict[str, Any] = {"messages": s.n_messages, "bytes": 0, "isFinalTurn": c.is_final}
    # a small budget also thins out the captures, so the size keeps scaling with payload_bytes
    captured = bool(pb) and (rng.random() < g.capture_rate if g.capture_rate is not None
                             else pb >= FULL_CAPTURE_BYTES or rng.random() < pb / FULL_CAPTURE_BYTES)
    if not captured:
        payload["bytes"] = c.target or rng.randint(2000, 90000)
        return {"kind": "llm", "payload": payload, "size": payload["bytes"]}, None
    c.model, c.provider, c.stop, c.usage, c.created_s = s.model, s.provider, stop, usage, start // 1000
    (raw, sdk, messages), answer = llm_exchange(
        rng, c, system=s.system, user_prompt=s.user, tools=s.tools, n_messages=s.n_messages, ts_iso=iso(start),
        headers=rng.random() < 0.15, stream=rng.random() < 0.92)
    payload.update(messages=messages, bytes=len(sdk))
    r = rng.random()
    legacy = s.legacy_raw or (g.version >= 2 and r < 0.02)
    payload["raw"] = g.unavailable("http", legacy) if r > 0.995 else g.capture(raw, "http", legacy)
    payload |= {"sdk": g.capture(sdk, "sdk", legacy)} if rng.random() < 0.9 else {}
    return {"kind": "llm", "payload": payload, "size": len(raw)}, answer


def llm_op(g: Gen, s: Sess, *, turn: int, path: str, is_final: bool, tool_calls: list[dict[str, Any]],
           running: bool = False, fail: tuple[str, str] | None = None, small: bool = False) -> dict[str, Any]:
    rng, start = g.rng, s.t + g.gap()
    op = new_op(g, "llm", start, {"provider": s.provider, "model": s.model, "isFinalTurn": is_final})
    pb = g.pb // 3 if small else g.pb
    c = Reply(is_final, int(pb * rng.uniform(0.6, 1.4)) if pb else 0, tool_calls)
    s.n_messages = min(25, 2 * turn - 1) if turn > 0 else 1
    at = At(g, s, op, turn, 0, path, f"{s.provider}:{s.model}", "llm")
    hidden_reasoning = 0
    if s.thinking and not running and fail is None:
        if s.provider == "openai":
            hidden_reasoning = rng.randint(64, 3000)  # OpenAI streams don't carry the reasoning text
        else:
            c.thinking = text(rng, max(40, int(pb * rng.uniform(0.05, 0.25))) if pb else rng.randint(40, 160))
    if not tool_calls or rng.random() < 0.5:
        c.text_out = text(rng, max(16, int(pb * rng.uniform(0.03, 0.12))) if pb else rng.randint(16, 80))
    latency = int(rng.lognormvariate(8.2, 0.7)) + 300
    if not running and rng.random() < 0.3:
        at.log(start, "llm_request", messages=s.n_messages, kb=max(1, c.target // 1024), bytes=c.target,
               n_tools=len(s.tools))
    if running:  # in flight: no endedAt, no status, no accounting, no response yet
        op["request"] = llm_request(g, s, c, Usage(0, 0), start, "tool_use")[0]
        s.t = start + rng.randint(100, 5000)
        return op
    usage = usage_for(g, s, turn, len(c.thinking) // 4 + hidden_reasoning)
    if fail is not None:
        return _failed_llm(g, s, op, c, at, usage, latency, fail)
    stop = "tool_use" if tool_calls else ("max_tokens" if rng.random() < 0.02 else "end_turn")
    op["request"], answer = llm_request(g, s, c, usage, start, stop)
    cost = cost_for(s, usage)
    actual_provider, upstream = (rng.choice(DATA["openrouter_upstream"].get(s.model, ("OpenRouter",))),
                                 round(cost * 0.95, 8)) if s.provider == "openrouter" else (s.provider, cost)
    op["accounting"].append(accounting(s, "llm", end=start + latency, latency=latency, status="ok", cost=cost,
                                       upstream=upstream, stop=stop, usage=usage, actual_provider=actual_provider))
    op["response"] = _llm_response(g, s, op["request"], answer, c.text_out)
    _llm_extras(g, op, at, c.thinking, start, latency)
    at.log(start + latency, "llm_response", **vars(usage), stop=stop, latency=latency, cost=cost, usd=f"${cost:.4f}")
    op["attributes"]["latency"] = latency
    return close(s, op, start + latency, "ok")


def _failed_llm(g: Gen, s: Sess, op: dict, c: Reply, at: At, usage: Usage, latency: int,
                fail: tuple[str, str]) -> dict[str, Any]:
    slug, msg = fail
    start, end = op["startedAt"], op["startedAt"] + latency
    op["request"] = llm_request(g, s, Reply(c.is_final, c.target, c.calls), usage, start, "end_turn")[0]
    status_line = {"rate_limited": "429 Too Many Requests", "overloaded": "529 Overloaded"}.get(slug, "400 Bad Request")
    err_body = orjson.dumps({"type": "error", "error": {"type": slug, "message": msg}})
    raw = http_message(f"HTTP/1.1 {status_line}", [("content-type", "application/json")], err_body) \
        if g.rng.random() < 0.15 else err_body  # headers only in captures made by other tools
    op["response"] = response({"raw": g.capture(raw, "http", s.legacy_raw)}, len(raw))
    op["accounting"].append(accounting(s, "llm", end=end, latency=latency, status="failed", cost=0, upstream=0,
                                       stop="error", usage=Usage(0, 0), actual_provider=s.provider, error=msg))
    at.log(end, "llm_failed", error=msg, slug=slug, latency=latency)
    op["attributes"].update(latency=latency, error=slug)
    return close(s, op, end, "failed")


def _llm_response(g: Gen, s: Sess, req: dict, answer: tuple[bytes, str, bytes] | None, text_out: str) -> dict[str, Any]:
    if answer is None:
        return response({"textPreview": text_out[:200]}, len(text_out))
    raw, fmt, sdk = answer
    r, legacy = g.rng.random(), s.legacy_raw  # a few captures are unavailable, a few more binary
    blob = binary_blob(g.rng, g.rng.randint(16, 96)) if 0.005 <= r < 0.015 else b""
    payload = {"raw": g.unavailable(fmt, legacy) if r < 0.005 else
               g.capture(blob or raw, "http" if blob else fmt, legacy)}
    payload |= {"sdk": g.capture(sdk, "sdk", legacy)} if "sdk" in req["payload"] else {}
    return response(payload, len(raw))


def _llm_extras(g: Gen, op: dict, at: At, thinking: str, start: int, latency: int) -> None:
    rng = g.rng
    if thinking:
        if rng.random() < 0.6:
            op["reasoning"] = {"chunks": [], "final": thinking, "chunkCount": rng.randint(3, 40),
                               "charCount": len(thinking)}
        else:
            chunks, ts, i = [], start + rng.randint(200, 900), 0
            while i < len(thinking):
                j = i + rng.randint(40, 240)
                chunks.append({"text": thinking[i:j], "ts": ts})
                ts += rng.randint(20, 300)
                i = j
            op["reasoning"] = {"chunks": chunks, **({"final": thinking} if rng.random() < 0.5 else {})}
        if rng.random() < 0.3:
            at.log(start + latency // 2, "thinking", text=thinking[:120])
    if rng.random() < 0.03:
        at.log(start + latency // 4, "first_token", ttft=latency // 4)
    if rng.random() < 0.03:
        at.log(start + latency // 3, "llm_warning", text=rng.choice(DATA["llm_warnings"]))


def call_op(g: Gen, s: Sess, kind: str, where: tuple[int, int, str], attrs: dict[str, Any],
            params: dict[str, Any], remote: str) -> tuple[dict[str, Any], At]:
    """A tool call's op (kind ``session`` for a tool of kind ``agent``: a sub-agent or tool_output), where it logs."""
    op = new_op(g, kind, s.t + g.gap(), attrs, request={"kind": "tool", "payload": params,
                                                         "size": len(orjson.dumps(params))})
    return op, At(g, s, op, *where, remote, "tool", attrs["kind"])


def tool_op(g: Gen, s: Sess, *, turn: int, sub: int, path: str, name: str, params: dict[str, Any],
            running: bool = False) -> dict[str, Any]:
    rng, (provider, kind, _desc) = g.rng, TOOLS.get(name, ("mcp", "mcp", ""))
    op, at = call_op(g, s, "tool", (turn, sub, path), {"name": name, "provider": provider, "kind": kind}, params,
                     f"{kind}:{provider}:{name.split('__', 1)[-1]}")
    start, attrs, req_json = op["startedAt"], op["attributes"], orjson.dumps(params)
    if rng.random() < 0.2 or running:
        at.log(start, "tool_request", name=name, args=req_json[:80].decode(errors="replace"))
    if running:
        s.t = start + rng.randint(50, 3000)
        return op
    latency = int(rng.lognormvariate(6.0, 1.1)) + 5
    end = start + latency
    failed = name != "agent__task_status" and rng.random() < 0.04  # (the final report is turn 0's, not a tool op)
    if failed:
        attrs["error"] = rng.choice(DATA["err_slugs"])
        result: Any = g.hostile(f"Tool execution failed: {attrs['error'].replace('_', ' ')} ({name})")
    else:
        result = tool_result(rng, name, max(20, int(g.pb * rng.uniform(0.05, 0.6))) if g.pb else rng.randint(20, 120))
    truncated = not failed and isinstance(result, str) and rng.random() < 0.02
    if truncated:
        result = result[: max(20, len(result) // 2)] + "\n[... response truncated: toolResponseMaxBytes ...]"
    if not failed and isinstance(result, str):
        result = g.hostile(result)
    out_len = len(result) if isinstance(result, str) else len(orjson.dumps(result))
    attrs.update(latency=latency, size=out_len)
    op["accounting"].append(accounting(s, "tool", end=end, latency=latency, status="failed" if failed else "ok",
                                       server=provider, command=name, chars_in=len(req_json), chars_out=out_len,
                                       error=result if failed else None))
    op["response"] = response(result, out_len, truncated)
    if failed:
        at.log(end, "tool_failed", name=name, error=attrs["error"], latency=latency)
        return close(s, op, end, "failed")
    at.log(end, "tool_response", name=name, size=out_len, latency=latency,
           details={"latency_ms": latency, "bytes": out_len} if rng.random() < 0.3 else None)
    if truncated:
        at.log(end, "tool_truncated", name=name, size=out_len)
    if name == "agent__task_status":
        s.status_text = params.get("now")
        if not s.title and rng.random() < 0.5:
            s.title = rng.choice(TITLES)
    return close(s, op, end, "ok")


def system_op(g: Gen, s: Sess, n: int, label: str) -> dict[str, Any]:
    """Turn 0's ``init`` (opens every session) and ``fin`` (closes it), its ``n``-th op."""
    start = s.t + g.gap()
    end = start + g.rng.randint(2, 60)
    op = new_op(g, "system", start, {"label": label})
    at = At(g, s, op, 0, 0, f"{s.prefix}0-{n}", "agent:init", "llm")
    if label == "init":
        at.log(start, "session_started", n_tools=len(s.tools))
        at.log(start + 1, "tools_loaded", n_tools=len(s.tools),
               providers=len({t["name"].split("__")[0] for t in s.tools}))
        if g.rng.random() < 0.3:
            at.log(end, "prompts", system_chars=len(s.system), user_chars=len(s.user))
    else:
        at.log(start, "session_finished")
    return close(s, op, end, "ok")


def final_report_op(g: Gen, s: Sess, n: int) -> dict[str, Any]:
    """The committed report: a ``final-report`` system op, turn 0's ``n``-th (the report itself is the session's)."""
    start, latency, params, report = s.t + g.gap(), g.rng.randint(1, 12), s.report_params, s.report_text
    fmt = "sub-agent" if s.level > 0 else params.get("report_format", "markdown")
    acc = accounting(s, "tool", end=start + latency, latency=latency, status="ok", server="agent",
                     command="agent__final_report", chars_in=len(orjson.dumps(params)) if params else 0,
                     chars_out=len(report))
    op = new_op(g, "system", start, {"label": "final-report"}, accounting=[acc])
    At(g, s, op, 0, 0, f"{s.prefix}0-{n}", "agent:final-report", "tool", "agent").log(
        start + latency, "report_accepted", format=fmt, chars=len(report))
    return close(s, op, start + latency, "ok")
