"""Estimated cost of LLM calls whose producer recorded none (Claude Code, Codex CLI, Gemini CLI session files).

A shipped, dated price table: US dollars per million tokens (input, output, cache write, cache read), looked up by
the longest model-name prefix. An estimate is always shown as one (`~$0.0123`, `costEstimated: true` in `dump
--json`): a recorded cost is never replaced, a recorded cost of 0 stays 0, and a model the table does not know
gives no estimate (None), never a made-up $0. Each agent kind adds its vendor's models to PRICES; PRICES_DATE says
when they were last checked against the vendors' public price pages.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

# When each vendor's rows were last checked against its public price page (standard tier, prompts up to 200k
# tokens: Gemini's and Claude's dearer long-prompt tier is not modelled, so a longer prompt is underestimated)
PRICES_DATE = {"anthropic": "2026-02-05", "openai": "2026-05-05", "google": "2026-02-19"}


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens. `cache_write`: 5-minute prompt-cache writes; `cache_read`: cache hits."""

    input: float
    output: float
    cache_write: float = 0.0
    cache_read: float = 0.0


# Model-name prefix -> price. Longest prefix wins ("claude-opus-4-5" before "claude-opus-4"); a dated suffix
# (claude-sonnet-4-5-20250929) matches its family's prefix.
PRICES: dict[str, Price] = {
    # Anthropic (Claude Code)
    "claude-opus-4-6": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4": Price(15.0, 75.0, 18.75, 1.50),  # claude-opus-4-20250514, claude-opus-4-1-20250805
    "claude-3-opus": Price(15.0, 75.0, 18.75, 1.50),
    "claude-sonnet-4": Price(3.0, 15.0, 3.75, 0.30),  # 4, 4.5 (up to 200k input tokens)
    "claude-3-7-sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "claude-3-5-sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "claude-3-sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.10),
    "claude-3-5-haiku": Price(0.80, 4.0, 1.0, 0.08),
    "claude-3-haiku": Price(0.25, 1.25, 0.30, 0.03),
    # OpenAI (Codex CLI; OpenCode records its own): no charge for a cache write, so it costs what input does
    "gpt-5.5": Price(5.0, 30.0, 5.0, 0.50),
    "gpt-5.4-mini": Price(0.75, 4.50, 0.75, 0.075),
    "gpt-5.4": Price(2.50, 15.0, 2.50, 0.25),
    "gpt-5.3": Price(1.75, 14.0, 1.75, 0.175),  # gpt-5.3-codex
    "gpt-5.2": Price(1.75, 14.0, 1.75, 0.175),  # gpt-5.2, gpt-5.2-codex
    "gpt-5-mini": Price(0.25, 2.0, 0.25, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.05, 0.005),
    "gpt-5": Price(1.25, 10.0, 1.25, 0.125),  # gpt-5, gpt-5-codex, gpt-5.1, gpt-5.1-codex(-max)
    "gpt-4.1-mini": Price(0.40, 1.60, 0.40, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.10, 0.025),
    "gpt-4.1": Price(2.0, 8.0, 2.0, 0.50),
    "gpt-4o-mini": Price(0.15, 0.60, 0.15, 0.075),
    "gpt-4o": Price(2.50, 10.0, 2.50, 1.25),
    "o4-mini": Price(1.10, 4.40, 1.10, 0.275),
    "o3": Price(2.0, 8.0, 2.0, 0.50),
    # Google (Gemini CLI): thoughts are billed as output (the reader counts them there)
    "gemini-3-pro": Price(2.0, 12.0, 2.0, 0.20),
    "gemini-3-flash": Price(0.50, 3.0, 0.50, 0.05),
    "gemini-2.5-pro": Price(1.25, 10.0, 1.25, 0.125),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.10, 0.01),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.30, 0.03),
    "gemini-2.0-flash-lite": Price(0.075, 0.30, 0.075, 0.075),
    "gemini-2.0-flash": Price(0.10, 0.40, 0.10, 0.025),
}


PRICES_ENV = "AIAGENT_MONITOR_PRICES"  # a JSON file {"model-prefix": {"input": .., "output": .., ...}}: overrides
PRICE_FIELDS = ("input", "output", "cache_write", "cache_read")
_loaded: dict[str, Price] | None = None
_config: dict[str, Price] = {}


def prices() -> dict[str, Price]:
    """The prices in force, decided here only. Precedence, lowest first: the shipped table (PRICES), the
    configuration file's `[prices]` table (set_config_prices), then the JSON file named by $AIAGENT_MONITOR_PRICES
    (read once): a user's negotiated prices, or a model newer than the table. A JSON file that cannot be read, or
    an entry in it that is not a price, is ignored (the configuration file's are refused when it is read)."""
    global _loaded
    if _loaded is None:
        _loaded = dict(PRICES)
        _loaded.update(_config)
        _loaded.update(_overrides(os.environ.get(PRICES_ENV, "")))
    return _loaded


def set_config_prices(table: dict[str, Price]) -> None:
    """The configuration file's `[prices]` (tui.cli.config): over the shipped table, under $AIAGENT_MONITOR_PRICES."""
    global _config
    _config = {prefix.lower(): price for prefix, price in table.items()}
    reload()


def reload() -> None:
    """Read $AIAGENT_MONITOR_PRICES again at the next look-up (after the variable or the file changed)."""
    global _loaded
    _loaded = None


def price_entry(entry: object, strict: bool = False) -> Price | None:
    """A price from `{"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.3}` ($ per million
    tokens; a missing field is 0), or None when it is not one (a field not a number, negative or absurd; `strict`:
    or a field of another name, a misspelt one that would silently price at 0)."""
    if not isinstance(entry, dict) or (strict and any(key not in PRICE_FIELDS for key in entry)):
        return None
    numbers = [entry.get(key, 0.0) for key in PRICE_FIELDS]
    if all(isinstance(n, (int, float)) and not isinstance(n, bool) and 0 <= n < 1e6 for n in numbers):
        return Price(*(float(n) for n in numbers))
    return None


def _overrides(path: str) -> dict[str, Price]:
    if not path:
        return {}
    try:
        with open(path, "rb") as fh:
            value = json.loads(fh.read(1024 * 1024))
    except (OSError, ValueError, RecursionError):
        return {}
    out: dict[str, Price] = {}
    for prefix, entry in (value.items() if isinstance(value, dict) else ()):
        price = price_entry(entry)
        if price is not None:
            out[str(prefix).lower()] = price
    return out


def price_of(model: str) -> Price | None:
    """The price of a model by its longest known prefix (case-insensitive; a `provider/` prefix is ignored)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    table = prices()
    best = ""
    for prefix in table:
        if name.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return table[best] if best else None


def estimate(model: str, tokens_in: int, tokens_out: int, cache_read: int = 0, cache_write: int = 0) -> float | None:
    """The estimated cost of one call (tokens_in without the cached ones), or None for a model not in the table."""
    price = price_of(model)
    if price is None:
        return None
    return (tokens_in * price.input + tokens_out * price.output + cache_write * price.cache_write
            + cache_read * price.cache_read) / 1_000_000
