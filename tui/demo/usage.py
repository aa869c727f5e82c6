"""Token usage and cost of generated LLM ops, and the provider-specific ``tokens`` dict of their accounting."""

from __future__ import annotations

from .gen_state import _GenBase, _Sess
from .llm_types import Usage


class _UsageBuilder(_GenBase):
    def usage_for(self, s: _Sess, turn: int, out_extra: int) -> Usage:
        rng = self.rng
        ctx = min(190_000, 2200 + turn * rng.randint(300, 1600) + rng.randint(0, 3000))
        out = rng.randint(40, 1800) + out_extra
        if s.provider == "anthropic":
            if turn <= 1:
                cw = int(ctx * rng.uniform(0.6, 0.9))
                cr = 0
            else:
                cr = int(ctx * rng.uniform(0.55, 0.95))
                cw = int((ctx - cr) * rng.uniform(0.0, 0.8)) if rng.random() < 0.6 else 0
            inp = max(12, ctx - cr - cw)
            return Usage(input=inp, output=out, cache_read=cr, cache_write=cw)
        cached = (int(ctx * rng.uniform(0.3, 0.9)) // 128) * 128 if turn > 1 and rng.random() < 0.8 else 0
        if s.provider == "ollama":
            cached = 0  # Ollama reports no cached tokens
        reasoning = out_extra if s.thinking else 0
        return Usage(input=ctx, output=out, cache_read=cached, reasoning=reasoning)

    def cost_for(self, s: _Sess, u: Usage) -> float:
        pin, pout, pcr, pcw = s.prices
        if s.provider == "anthropic":
            c = u.input * pin + u.output * pout + u.cache_read * pcr + u.cache_write * pcw
        else:
            c = (u.input - u.cache_read) * pin + u.cache_read * pcr + u.output * pout
        return round(c / 1e6, 8)

    def tokens(self, s: _Sess, u: Usage) -> dict[str, int]:
        if s.provider == "anthropic":
            return {"inputTokens": u.input, "outputTokens": u.output, "cacheReadInputTokens": u.cache_read,
                    "cacheWriteInputTokens": u.cache_write,
                    "totalTokens": u.input + u.output + u.cache_read + u.cache_write}
        return {"inputTokens": u.input, "outputTokens": u.output, "cachedTokens": u.cache_read,
                "totalTokens": u.input + u.output}
