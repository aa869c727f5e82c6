"""``populate``: a whole realistic sessions directory (snapshots, ledgers, payloads, odd files, accounting)."""

from __future__ import annotations

import os
import random
import uuid
from pathlib import Path
from typing import Any

import orjson

from .accounting_jsonl import write_accounting
from .clock import _BASE_MS
from .file_io import _gz, _touch
from .generator import make_tree
from .ledger import _ledger
from .payloads import _Store, externalize_payloads
from .prose import HOSTILE_STRINGS
from .snapshots import write_snapshot
from .walk import last_activity

__all__ = ["populate"]


def populate(
    sessions_dir: str | os.PathLike,
    *,
    count: int = 12,
    seed: int = 0,
    big_ops: int | None = None,
    start_ms: int | None = None,
) -> list[Path]:
    """Fill ``sessions_dir`` with a realistic mix and return every path written.

    * ``count`` snapshot files ``<traceId>.json.gz``: ~60% version 1, the rest version 2 (one of them in the
      wire-envelope shape when count >= 6); the last one (and the 4th from last when count >= 8) is running
      (``reason: subagent_finish``, no ``endedAt``); index 1 failed; index 2 has mismatching stored totals;
      index 3 a title with escape sequences / Rich markup; index 0 has ``big_ops`` ops when given.
    * one of the v2 snapshots (index 4 when count >= 6) also has a v3 ledger, its LLM captures moved to
      payload files (``payload.ref``) shared with that ledger;
    * two ledger-only v3 sessions: a running one (ends after ``turn_start`` plus a half-written line) and a
      failed one (``session_error``, payloads not captured);
    * an orphaned ``<uuid>.json.gz.tmp-123-456`` and a zero-byte ``<uuid>.json.gz``;
    * ``sessions_dir / "accounting.jsonl"`` with the entries of the finished sessions (inside the directory:
      ``generate DIR`` writes nothing outside DIR; the producer keeps it at ``~/.ai-agent/accounting.jsonl``).
    File mtimes are set to the sessions' end (or last activity) times. Sessions start at ``start_ms`` (default:
    a fixed, seeded date in 2026) and follow each other by a few minutes to an hour and a half.
    """
    sd = Path(sessions_dir)
    sd.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    written: list[Path] = []
    finished_trees: list[dict] = []
    t = _BASE_MS + rng.randrange(0, 30 * 86_400_000)
    if start_ms is not None:
        t = int(start_ms)

    running_idx = {count - 1} if count >= 1 else set()
    if count >= 8:
        running_idx.add(count - 4)
    failed_idx = 1 if count >= 3 else -1
    mismatch_idx = 2 if count >= 4 else -1
    hostile_idx = 3 if count >= 5 else -1
    ledger_idx = 4 if count >= 6 else -1
    fixed_v2 = set(running_idx) | ({ledger_idx} if ledger_idx >= 0 else set())
    others = [i for i in range(count) if i not in fixed_v2]
    n_v1 = min(len(others), round(0.6 * count))
    v1_idx = set(rng.sample(others, n_v1)) if others else set()
    v2_plain = [i for i in others if i not in v1_idx]
    envelope_idx = v2_plain[0] if count >= 6 and v2_plain else -1

    for i in range(count):
        t += rng.randint(5, 90) * 60_000
        running = i in running_idx
        version = 1 if i in v1_idx else 2
        kw: dict[str, Any] = dict(
            ops=rng.randint(12, 90), depth=rng.choice((0, 1, 1, 2, 2, 3)), fanout=rng.choice((1, 2, 2, 3)),
            payload_bytes=rng.choice((400, 800, 1500, 2500)),
        )
        if i == 0 and big_ops:
            kw.update(ops=big_ops, depth=2, fanout=3, payload_bytes=800)
        if i == ledger_idx:
            kw.update(ops=rng.randint(16, 30), depth=1, fanout=2)
        tree = make_tree(
            seed * 1000 + i, version=version, running=running, failed=(i == failed_idx),
            mismatch=(i == mismatch_idx), started_at=t, **kw,
        )
        if i == hostile_idx:
            tree["sessionTitle"] = f"Deploy report {HOSTILE_STRINGS[0]} {HOSTILE_STRINGS[2]} {HOSTILE_STRINGS[1]}"
        if not running:
            finished_trees.append(tree)
        shape = "envelope" if i == envelope_idx else "file"
        doc_tree = tree
        if i == ledger_idx:
            store = _Store(sd)
            _ledger(sd, tree, with_payloads=True, running=False, partial_last_line=False, store=store, parent=None,
                    fan_out_rate=0.5)
            doc_tree = externalize_payloads(sd, tree)
            end = last_activity(tree)
            for p in [*store.paths, *store.ledgers]:
                _touch(p, end)
                written.append(p)
        path = write_snapshot(sd, doc_tree, version=version, reason="subagent_finish" if running else "final",
                              shape=shape)
        _touch(path, last_activity(tree))
        written.append(path)
        t = max(t, last_activity(tree))

    # ledger-only sessions
    for j, (running, failed) in enumerate(((True, False), (False, True))):
        t += rng.randint(5, 60) * 60_000
        tree = make_tree(seed * 1000 + 900 + j, ops=rng.randint(10, 24), depth=1, fanout=1, running=running,
                         failed=failed, payload_bytes=600, started_at=t)
        store = _Store(sd)
        _ledger(sd, tree, with_payloads=not failed, running=False, partial_last_line=running, store=store,
                parent=None, fan_out_rate=1.0)  # the finished one fans out: the demo shows a v3 fan-out
        end = last_activity(tree)
        for p in [*store.paths, *store.ledgers]:
            _touch(p, end)
            written.append(p)
        if not running:
            finished_trees.append(tree)

    # odd files
    t += 60_000
    orphan_tree = make_tree(seed * 1000 + 990, ops=8, depth=0, payload_bytes=300, started_at=t)
    blob = _gz(orjson.dumps({"version": 2, "reason": "final", "opTree": orphan_tree}))
    orphan = sd / f"{orphan_tree['traceId']}.json.gz.tmp-123-456"
    orphan.write_bytes(blob[: len(blob) // 2])
    _touch(orphan, last_activity(orphan_tree))
    written.append(orphan)
    zrng = random.Random(seed * 7919 + 1)
    zero = sd / f"{uuid.UUID(int=zrng.getrandbits(128), version=4)}.json.gz"
    zero.write_bytes(b"")
    _touch(zero, t + 120_000)
    written.append(zero)

    acc = write_accounting(sd / "accounting.jsonl", finished_trees)
    _touch(acc, t + 180_000)
    written.append(acc)
    return written
