"""Session files with absurd numbers (issue 28, item 6), written by the demo generator and then edited: a token count
of 2^63, costs whose sum is inf, a start in year 9999, a negative cost, a 1e300 token total. One file each, beside
ordinary ones, so that a test sees whether one such file spoils the index, stats or the browser for all."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tui.demo import make_tree, write_snapshot
from tui.demo.snapshots import snapshot_document

YEAR_9999_MS = 253_402_300_799_000


def _accounting(tree: dict):
    for turn in tree.get("turns", []):
        for op in turn.get("ops", []):
            for entry in op.get("accounting", []) or []:
                if isinstance(entry.get("tokens"), dict):
                    yield entry


def _edit(tree: dict, what: str) -> dict:
    entries = list(_accounting(tree))
    assert entries, "the generated tree has LLM accounting"
    if what == "tokens-2^63":
        entries[0]["tokens"]["inputTokens"] = 2 ** 63
    elif what == "tokens-1e300":
        entries[0]["tokens"]["inputTokens"] = 10 ** 300
    elif what == "cost-inf":
        for entry in entries:
            entry["costUsd"] = 1e308
    elif what == "negative-cost":
        for entry in entries:
            entry["costUsd"] = -12.79 / len(entries)
    elif what == "year-9999":
        tree["startedAt"] = YEAR_9999_MS
    else:
        raise ValueError(what)
    tree.pop("totals", None)  # the stored totals would only add a mismatch: the recomputed ones are the absurd ones
    return tree


ABSURD = ("tokens-2^63", "tokens-1e300", "cost-inf", "negative-cost", "year-9999")


def absurd_sessions(directory: Path, what: str, ordinary: int = 3) -> Path:
    """`ordinary` ordinary snapshots and one whose numbers are `what` (one of ABSURD) in `directory`; its path."""
    for seed in range(ordinary):
        write_snapshot(directory, make_tree(seed, ops=6, depth=0))
    tree = _edit(make_tree(100, ops=12, depth=0), what)
    path = directory / f"{tree['traceId']}.json.gz"  # (the stdlib's JSON: orjson refuses integers over 64 bits)
    path.write_bytes(gzip.compress(json.dumps(snapshot_document(tree, version=2)).encode()))
    return path
