"""LLM ops: captured request/response (via ``llm_exchange``), accounting, reasoning, logs and failures."""

from __future__ import annotations

from typing import Any

import orjson

from .catalog import _OPENROUTER_UPSTREAM
from .clock import _iso
from .exchange import llm_exchange
from .gen_state import _Sess
from .llm_types import Exchange, ToolCall, Usage
from .logs import _LogBuilder
from .prose import binary_blob, rand_id, text
from .usage import _UsageBuilder

_FULL_CAPTURE_BYTES = 400


class _LlmOps(_LogBuilder, _UsageBuilder):
    def llm_op(
        self,
        s: _Sess,
        *,
        turn: int,
        pos: int,
        path: str | None,
        is_final: bool,
        tool_calls: list[ToolCall],
        running: bool = False,
        fail: tuple[str, str] | None = None,
        small: bool = False,
    ) -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        op: dict[str, Any] = {
            "opId": self.uid(start),
            "kind": "llm",
            "startedAt": start,
            "attributes": {"provider": s.provider, "model": s.model, "isFinalTurn": is_final},
            "logs": [],
            "accounting": [],
        }
        pb = self.pb // 3 if small else self.pb
        target = int(pb * rng.uniform(0.6, 1.4)) if pb else 0
        s.n_messages = min(25, 2 * turn - 1) if turn > 0 else 1
        remote = f"{s.provider}:{s.model}"
        thinking_txt = ""
        hidden_reasoning = 0
        if s.thinking and not running and fail is None:
            if s.provider == "openai":
                hidden_reasoning = rng.randint(64, 3000)  # OpenAI streams don't carry the reasoning text
            else:
                thinking_txt = text(rng, max(40, int(pb * rng.uniform(0.05, 0.25))) if pb else rng.randint(40, 160))
        text_out = ""
        if not tool_calls or rng.random() < 0.5:
            text_out = text(rng, max(16, int(pb * rng.uniform(0.03, 0.12))) if pb else rng.randint(16, 80))
        latency = int(rng.lognormvariate(8.2, 0.7)) + 300
        end = start + latency
        if not running and rng.random() < 0.3:
            op["logs"].append(
                self.log(s, start, "VRB", turn, 0, path, "request", "llm", remote,
                         f"LLM request: {s.n_messages} messages, {max(1, target // 1024)} KB, tools={len(s.tools)}",
                         details={"messages": s.n_messages, "bytes": target, "tools": len(s.tools)})
            )
        if running:
            # in flight: no endedAt, no status, no accounting, no response yet
            op["request"] = self.llm_request(s, turn, is_final, target, tool_calls, thinking_txt, text_out,
                                             Usage(0, 0), start, "tool_use")[0]
            s.t = start + rng.randint(100, 5000)
            return op
        usage = self.usage_for(s, turn, len(thinking_txt) // 4 + hidden_reasoning)
        if fail is not None:
            slug, msg = fail
            op["request"] = self.llm_request(s, turn, is_final, target, tool_calls, "", "", usage, start, "end_turn")[0]
            status_line = {"rate_limited": "429 Too Many Requests", "overloaded": "529 Overloaded"}.get(
                slug, "400 Bad Request")
            err_body = orjson.dumps({"type": "error", "error": {"type": slug, "message": msg}})
            raw = err_body
            if rng.random() < 0.15:  # headers only in captures made by other tools
                raw = (f"HTTP/1.1 {status_line}\r\ncontent-type: application/json\r\n\r\n").encode() + err_body
            op["response"] = {"payload": {"raw": self.capture(raw, "http", s.legacy_raw)}, "size": len(raw),
                              "truncated": False}
            op["accounting"].append(
                {
                    "type": "llm",
                    "timestamp": end,
                    "status": "failed",
                    "latency": latency,
                    "provider": s.provider,
                    "model": s.model,
                    "actualProvider": s.provider,
                    "actualModel": s.actual_model,
                    "costUsd": 0,
                    "upstreamInferenceCostUsd": 0,
                    "stopReason": "error",
                    "tokens": self.tokens(s, Usage(0, 0)),
                    "error": msg,
                    "agentId": s.agent,
                    "callPath": s.call_path,
                    "txnId": s.txn,
                    "originTxnId": s.origin,
                    **({"parentTxnId": s.parent_txn} if s.parent_txn else {}),
                }
            )
            op["logs"].append(self.log(s, end, "ERR", turn, 0, path, "response", "llm", remote,
                                       f"LLM request failed: {msg}", fatal=True,
                                       details={"error": slug, "latency_ms": latency}))
            op["attributes"]["latency"] = latency
            op["attributes"]["error"] = slug
            op["endedAt"] = end
            op["status"] = "failed"
            s.t = end
            return op
        stop = "tool_use" if tool_calls else ("max_tokens" if rng.random() < 0.02 else "end_turn")
        req, ex = self.llm_request(s, turn, is_final, target, tool_calls, thinking_txt, text_out, usage, start, stop)
        op["request"] = req
        cost = self.cost_for(s, usage)
        actual_provider = s.provider
        upstream = cost
        if s.provider == "openrouter":
            ups = _OPENROUTER_UPSTREAM.get(s.model, ("OpenRouter",))
            actual_provider = ups[rng.randrange(len(ups))]
            upstream = round(cost * 0.95, 8)
        op["accounting"].append(
            {
                "type": "llm",
                "timestamp": end,
                "status": "ok",
                "latency": latency,
                "provider": s.provider,
                "model": s.model,
                "actualProvider": actual_provider,
                "actualModel": s.actual_model,
                "costUsd": cost,
                "upstreamInferenceCostUsd": upstream,
                "stopReason": stop,
                "tokens": self.tokens(s, usage),
                "agentId": s.agent,
                "callPath": s.call_path,
                "txnId": s.txn,
                "originTxnId": s.origin,
                **({"parentTxnId": s.parent_txn} if s.parent_txn else {}),
            }
        )
        if ex is not None:
            resp_payload: dict[str, Any] = {}
            r = rng.random()
            if r < 0.005:
                resp_payload["raw"] = self.unavailable(ex.response_format, s.legacy_raw)
            elif r < 0.015:
                resp_payload["raw"] = self.capture(binary_blob(rng, rng.randint(16, 96)), "http", s.legacy_raw)
            else:
                resp_payload["raw"] = self.capture(ex.response_raw, ex.response_format, s.legacy_raw)
            if "sdk" in req["payload"]:
                resp_payload["sdk"] = self.capture(ex.sdk_response, "sdk", s.legacy_raw)
            op["response"] = {"payload": resp_payload, "size": len(ex.response_raw), "truncated": False}
        else:
            op["response"] = {"payload": {"textPreview": text_out[:200]}, "size": len(text_out), "truncated": False}
        if thinking_txt:
            if rng.random() < 0.6:
                op["reasoning"] = {"chunks": [], "final": thinking_txt, "chunkCount": rng.randint(3, 40),
                                   "charCount": len(thinking_txt)}
            else:
                chunks = []
                ts = start + rng.randint(200, 900)
                i = 0
                while i < len(thinking_txt):
                    j = i + rng.randint(40, 240)
                    chunks.append({"text": thinking_txt[i:j], "ts": ts})
                    ts += rng.randint(20, 300)
                    i = j
                op["reasoning"] = {"chunks": chunks}
                if rng.random() < 0.5:
                    op["reasoning"]["final"] = thinking_txt
            if rng.random() < 0.3:
                op["logs"].append(self.log(s, start + latency // 2, "THK", turn, 0, path, "response", "llm", remote,
                                           thinking_txt[:120]))
        if rng.random() < 0.03:
            op["logs"].append(self.log(s, start + latency // 4, "TRC", turn, 0, path, "response", "llm", remote,
                                       f"stream: first token after {latency // 4} ms",
                                       details={"ttft_ms": latency // 4}))
        if rng.random() < 0.03:
            op["logs"].append(self.log(s, start + latency // 3, "WRN", turn, 0, path, "response", "llm", remote,
                                       rng.choice(("LLM response slow: no tokens for 30 s",
                                                   "retrying after 429 rate_limit_error (attempt 2/3)",
                                                   "context window 85% used; consider summarizing"))))
        tk = usage
        op["logs"].append(
            self.log(s, end, "VRB", turn, 0, path, "response", "llm", remote,
                     f"LLM response: stop={stop}, in={tk.input} out={tk.output} cacheR={tk.cache_read} "
                     f"cacheW={tk.cache_write}, {latency} ms, ${cost:.4f}",
                     details={"latency_ms": latency, "input_tokens": tk.input, "output_tokens": tk.output,
                              "cost_usd": cost, "stop_reason": stop})
        )
        op["attributes"]["latency"] = latency
        op["endedAt"] = end
        op["status"] = "ok"
        s.t = end
        return op

    def llm_request(self, s, turn, is_final, target, tool_calls, thinking_txt, text_out, usage, start, stop):
        rng = self.rng
        payload: dict[str, Any] = {"messages": s.n_messages, "bytes": 0, "isFinalTurn": is_final}
        # Below _FULL_CAPTURE_BYTES the budget also thins out how many LLM ops carry raw/sdk captures, so the
        # snapshot size keeps scaling with payload_bytes instead of hitting the floor of minimal SSE streams.
        if self.capture_rate is not None:
            captured = bool(self.pb) and rng.random() < self.capture_rate
        else:
            captured = bool(self.pb) and (self.pb >= _FULL_CAPTURE_BYTES or rng.random() < self.pb / _FULL_CAPTURE_BYTES)
        if not captured:
            payload["bytes"] = target or rng.randint(2000, 90000)
            return {"kind": "llm", "payload": payload, "size": payload["bytes"]}, None
        ex: Exchange = llm_exchange(
            rng,
            provider=s.provider,
            model=s.model,
            system=s.system,
            user_prompt=s.user,
            tools=s.tools,
            n_messages=s.n_messages,
            target_bytes=target,
            thinking=thinking_txt,
            text_out=text_out,
            tool_calls=tool_calls,
            stop_reason=stop,
            usage=usage,
            created_s=start // 1000,
            ts_iso=_iso(start),
            # the producer captures the body as fetch decoded it; captures with HTTP headers come from other tools
            headers=rng.random() < 0.15,
            stream=rng.random() < 0.92,
        )
        payload["messages"] = ex.messages
        payload["bytes"] = ex.request_body_bytes
        r = rng.random()
        legacy = s.legacy_raw or (self.version >= 2 and r < 0.02)
        if r > 0.995:
            payload["raw"] = self.unavailable(ex.request_format, legacy)
        else:
            payload["raw"] = self.capture(ex.request_raw, ex.request_format, legacy)
        if rng.random() < 0.9:
            payload["sdk"] = self.capture(ex.sdk_request, "sdk", legacy)
        return {"kind": "llm", "payload": payload, "size": len(ex.request_raw)}, ex

    def call_id(self, s: _Sess) -> str:
        if s.provider == "anthropic":
            return "toolu_01" + rand_id(self.rng, 22)
        return "call_" + rand_id(self.rng, 24)
