"""The files the real ai-agent wrote (tests/fixtures/aiagent-real: each run's sessions/*.json.gz and the
accounting.jsonl of the same run; make/ says how they were made)."""

from __future__ import annotations

from pathlib import Path

import orjson

REAL = Path(__file__).parents[1] / "fixtures" / "aiagent-real"
RUNS = ("master", "flaky", "killed", "handoff", "live")
# runs whose snapshot holds every session the run's accounting.jsonl speaks of (handoff's file lost its master)
WHOLE_RUNS = ("master", "flaky", "killed", "live")
HANDOFF_FILE = REAL / "handoff" / "sessions" / "c75f0ff6-b12c-4847-b470-824df33502d3.json.gz"
HANDOFF_TRACE = "1cd8301a-8531-49f4-91df-7754112ee94b"  # the formatter's traceId, held in the master's file


def snapshot(run: str) -> Path:
    """The run's one snapshot file."""
    (path,) = sorted((REAL / run / "sessions").glob("*.json.gz"))
    return path


def accounting(run: str) -> Path:
    return REAL / run / "accounting.jsonl"


def accounting_lines(run: str) -> list[dict]:
    """Every line of the run's accounting.jsonl, repeats included."""
    return [orjson.loads(line) for line in accounting(run).read_bytes().splitlines() if line.strip()]


def snapshot_entries(run: str) -> list[dict]:
    """Every accounting entry in the run's snapshot tree (ops' `accounting[]`, sub-agents included)."""
    import gzip

    out: list[dict] = []
    stack = [orjson.loads(gzip.decompress(snapshot(run).read_bytes()))["opTree"]]
    while stack:
        node = stack.pop()
        for turn in node.get("turns") or []:
            for op in turn.get("ops") or []:
                out.extend(op.get("accounting") or [])
                if isinstance(op.get("childSession"), dict):
                    stack.append(op["childSession"])
    return out


def live_events() -> list[bytes]:
    """The live run's events as the bridge would forward them, one JSON object each (live/README.md)."""
    import gzip

    return [line for line in gzip.decompress((REAL / "live" / "events.jsonl.gz").read_bytes()).split(b"\n") if line]
