"""`accounting.jsonl` as a second source of cost for stats (formats.md §3).

The producer appends one AccountingEntry per LLM or tool call to `~/.ai-agent/accounting.jsonl` (beside the
sessions directory; `generate DIR` writes it inside DIR): its cost may disagree with the sessions' stored totals
(a session file never written, a crash before the last snapshot), so stats offer it as a second column, per day,
agent and model (entries carry no headend). Read line by line, never whole: the file only grows. A sub-agent's
entries are written again at every ancestor's flush: each entry counts once (tui.formats.aiagent.accounting.EntrySet).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from pathlib import Path

import orjson

from tui.catalog.index.stats import Stats, TimeRange
from tui.formats.aiagent.accounting import EntrySet, looks_like_accounting
from tui.inputs.files import open_regular
from tui.model.fields import as_str
from tui.model.totals import llm_entry_usage

NAME = "accounting.jsonl"
GROUPABLE = ("day", "agent", "model")
MAX_LINE = 1 << 20  # a longer line is skipped, not parsed


def accounting_path(sessions_dir: Path | str | None) -> Path | None:
    """The accounting ledger of a sessions directory: inside it, else beside it (None when there is none)."""
    if sessions_dir is None:
        return None
    base = Path(sessions_dir)
    for candidate in (base / NAME, base.parent / NAME):
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            continue
    return None


def _day(ms: int) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ms / 1000))


class AccountingCost:
    """Cost by day, agent and model (and in total) of the llm entries in a time range."""

    def __init__(self) -> None:
        self.total = 0.0
        self.entries = 0
        self.seen = EntrySet()  # llm entries read, whatever their time: a repeat of one is not counted again
        self.by: dict[str, dict[str, float]] = {name: defaultdict(float) for name in GROUPABLE}

    def add(self, entry: dict, span: TimeRange) -> None:
        if entry.get("type") != "llm" or not self.seen.first(entry):
            return
        stamp = entry.get("timestamp")
        if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or not math.isfinite(stamp):
            return
        ms = int(stamp)
        if (span.since_ms is not None and ms < span.since_ms) or (span.until_ms is not None and ms >= span.until_ms):
            return
        cost = llm_entry_usage(entry)[4]
        self.entries += 1
        self.total += cost
        try:
            day = _day(ms)
        except (OverflowError, OSError, ValueError):
            return
        self.by["day"][day] += cost
        self.by["agent"][as_str(entry.get("agentId"))] += cost
        self.by["model"][as_str(entry.get("model"))] += cost


def read_cost(path: Path, span: TimeRange) -> AccountingCost:
    """Sum the file's llm entries in `span` (bad lines skipped; an unreadable file gives what was read)."""
    out = AccountingCost()
    try:
        with open_regular(path) as fh:
            skipping = False
            while line := fh.readline(MAX_LINE):
                whole = line.endswith(b"\n")
                if skipping or not whole and len(line) >= MAX_LINE:
                    skipping = not whole  # the rest of a line too long to parse
                    continue
                if not line.strip():
                    continue
                try:
                    entry = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if looks_like_accounting(entry):
                    out.add(entry, span)
    except OSError:
        pass
    return out


def attach(stats: Stats, cost: AccountingCost) -> None:
    """Put the accounting cost beside each group's (a group accounting knows nothing of gets 0.0)."""
    stats.totals.accounting_cost_usd = cost.total
    for name, groups in stats.by.items():
        known = cost.by.get(name)
        if known is None:
            continue
        for group in groups:
            group.accounting_cost_usd = known.get(group.key, 0.0)
