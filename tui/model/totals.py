"""Session totals, recomputed the way the producer does (src/session-tree.ts, recomputeTotals)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tui.model.fields import as_int, as_num

_NO_TOKENS: dict = {}
_INF = float("inf")
TOTAL_KEYS = ("tokensIn", "tokensOut", "tokensCacheRead", "tokensCacheWrite", "costUsd", "toolsRun", "agentsRun")
# The producer compares these on endSession (agentsRun is not compared).
COMPARED_KEYS = ("tokensIn", "tokensOut", "tokensCacheRead", "tokensCacheWrite", "costUsd", "toolsRun")


class OpUsage(Protocol):
    """What Totals.add_op reads of an op (tui.model.nodes.Op)."""

    kind: str
    tokens_in: int
    tokens_out: int
    cache_read: int
    cache_write: int
    cost: float


@dataclass(slots=True)
class Totals:
    tokensIn: int = 0
    tokensOut: int = 0
    tokensCacheRead: int = 0
    tokensCacheWrite: int = 0
    costUsd: float = 0.0
    toolsRun: int = 0
    agentsRun: int = 0

    def add(self, other: "Totals") -> None:
        self.tokensIn += other.tokensIn
        self.tokensOut += other.tokensOut
        self.tokensCacheRead += other.tokensCacheRead
        self.tokensCacheWrite += other.tokensCacheWrite
        self.costUsd += other.costUsd
        self.toolsRun += other.toolsRun
        self.agentsRun += other.agentsRun

    def add_usage(self, tokens_in: int, tokens_out: int, cache_read: int, cache_write: int, cost: float) -> None:
        """One LLM call's tokens and cost (llm_usage's answer, or an op's counts): the one place usage is added up,
        by the tree builders (add_op) and the readers of accounting entries (tui.formats.aiagent.accounting and
        the facts reader), so that their sums agree to the last bit of the cost."""
        self.tokensIn += tokens_in
        self.tokensOut += tokens_out
        self.tokensCacheRead += cache_read
        self.tokensCacheWrite += cache_write
        self.costUsd += cost

    def add_op(self, op: OpUsage) -> None:
        """An op's own tokens and cost, and a tool run for a tool op (its sub-agent's totals are added apart)."""
        self.add_usage(op.tokens_in, op.tokens_out, op.cache_read, op.cache_write, op.cost)
        if op.kind == "tool":
            self.toolsRun += 1

    def as_dict(self) -> dict:
        out = {key: getattr(self, key) for key in TOTAL_KEYS}
        out["costUsd"] = round(self.costUsd, 4)
        return out

    @property
    def cost(self) -> float:
        return round(self.costUsd, 4)


def llm_entry_usage(entry: dict) -> tuple[int, int, int, int, float]:
    """Tokens and cost of one accounting entry of type llm.

    Cache read is `cacheReadInputTokens`, else `cachedTokens` (OpenAI's dialect), never both: the producer uses `??`,
    so an explicit 0 in cacheReadInputTokens wins over cachedTokens.
    """
    return llm_usage(entry.get("tokens"), entry.get("costUsd"))


def llm_usage(tokens: object, cost: object) -> tuple[int, int, int, int, float]:
    """llm_entry_usage of an entry's `tokens` and `costUsd`, read already."""
    get = (tokens if isinstance(tokens, dict) else _NO_TOKENS).get
    tin, tout, cache_read, cwrite = (get("inputTokens"), get("outputTokens"), get("cacheReadInputTokens"),
                                     get("cacheWriteInputTokens"))
    if cache_read is None:
        cache_read = get("cachedTokens")
    # (a plain int or an absent count, nearly every one, and a finite float cost are as_int's and as_num's
    # answers: taken without the call, for the 10 entries of each of 100,000s of files the sessions index reads)
    return (
        tin if type(tin) is int else 0 if tin is None else as_int(tin),
        tout if type(tout) is int else 0 if tout is None else as_int(tout),
        cache_read if type(cache_read) is int else 0 if cache_read is None else as_int(cache_read),
        cwrite if type(cwrite) is int else 0 if cwrite is None else as_int(cwrite),
        cost if type(cost) is float and -_INF < cost < _INF else as_num(cost),
    )


def stored_totals(value: object) -> Totals | None:
    """The `totals` object a producer stored, or None when absent or not an object."""
    if not isinstance(value, dict):
        return None
    return Totals(
        tokensIn=as_int(value.get("tokensIn")),
        tokensOut=as_int(value.get("tokensOut")),
        tokensCacheRead=as_int(value.get("tokensCacheRead")),
        tokensCacheWrite=as_int(value.get("tokensCacheWrite")),
        costUsd=as_num(value.get("costUsd")),
        toolsRun=as_int(value.get("toolsRun")),
        agentsRun=as_int(value.get("agentsRun")),
    )


def mismatched_keys(stored: Totals | None, recomputed: Totals) -> list[str]:
    """Keys where the stored totals disagree with the recomputed ones (cost compared to 4 decimals)."""
    if stored is None:
        return []
    out = []
    for key in COMPARED_KEYS:
        a, b = getattr(stored, key), getattr(recomputed, key)
        if key == "costUsd":
            a, b = round(a, 4), round(b, 4)
        if a != b:
            out.append(key)
    return out


def plain_usage(tokens: object, cost_usd: object) -> bool:
    """True for the usual llm accounting entry (its `tokens` and `costUsd`): every token count and the cost are
    numbers (or absent). Anything else the tree builder reports as problems (and reads as 0)."""
    cost = type(cost_usd)
    if cost is not float and cost is not int and cost is not type(None):
        return False
    if tokens is None:
        return True
    if type(tokens) is not dict:
        return False
    return all(type(v) is int or type(v) is float for v in tokens.values())
