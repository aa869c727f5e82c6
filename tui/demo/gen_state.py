"""The generator's core state: ``_Sess`` (one session being generated) and ``_GenBase`` (the seeded rng, options
and small helpers every op builder uses: ids, hostile strings, time gaps, model choice, capture encoding)."""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass
from typing import Any

from .catalog import _CHEAP, _MODELS
from .ids import _b36
from .prose import HOSTILE_STRINGS, rand_id

_b64 = base64.b64encode


@dataclass
class _Sess:
    agent: str
    call_path: str
    txn: str
    parent_txn: str | None
    origin: str
    prefix: str
    provider: str
    model: str
    actual_model: str
    prices: tuple[float, float, float, float]
    thinking: bool
    tools: list[dict[str, Any]]
    tool_names: tuple[str, ...]
    system: str
    user: str
    legacy_raw: bool
    t: int
    level: int
    status_text: str | None = None
    title: str = ""
    n_messages: int = 1


class _GenBase:
    def __init__(
        self,
        seed: int,
        *,
        version: int,
        payload_bytes: int,
        provider_mix: tuple[str, ...],
        hostile_rate: float,
        style: str,
        capture_rate: float | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.version = version
        self.pb = max(0, int(payload_bytes))
        self.capture_rate = capture_rate
        self.providers = tuple(provider_mix) or ("anthropic",)
        self.hostile_rate = hostile_rate
        self.style = style
        self.origin = ""
        self.headend = self.rng.choice(("cli", "cli", "slack", "api", "mcp"))

    def uid(self, ts: int) -> str:
        return f"{_b36(ts)}-{rand_id(self.rng, 6, '0123456789abcdefghijklmnopqrstuvwxyz')}"

    def hostile(self, s: str) -> str:
        if self.hostile_rate > 0 and self.rng.random() < self.hostile_rate:
            h = HOSTILE_STRINGS[self.rng.randrange(len(HOSTILE_STRINGS))]
            return f"{s} {h}"
        return s

    def gap(self) -> int:
        return self.rng.randint(1, 40)

    def pick_model(self, provider: str, cheap: bool = False):
        models = _MODELS.get(provider)
        if models is None:
            return (f"{provider}-default", f"{provider}-default", (1.0, 4.0, 0.25, 0.0), False)
        if cheap:
            return models[_CHEAP.get(provider, 0)]
        return models[self.rng.randrange(len(models))] if self.rng.random() < 0.4 else models[0]

    def capture(self, data: bytes, fmt: str, legacy: bool) -> Any:
        """``payload.raw``/``payload.sdk`` value: object (real files) or plain base64 string (old spec)."""
        if legacy:
            return _b64(data).decode()
        return {"format": fmt, "encoding": "base64", "value": _b64(data).decode()}

    def unavailable(self, fmt: str, legacy: bool) -> Any:
        """The producer's capture bug: the text ``[unavailable]`` stored in place of a body. The producer
        base64-encodes it like any body (``W3VuYXZhaWxhYmxlXQ==``); older files hold it literally (a minority)."""
        if self.rng.random() < 0.25:
            return "[unavailable]"
        return self.capture(b"[unavailable]", fmt, legacy)
