"""`aiagent-monitor generate DIR [--count N] [--seed S] [--big-ops N] [--list]`: fill DIR with a realistic sessions
directory (the demo generator, tui.demo) and say in a few lines what it wrote and how to open it (`--list` prints
every path with its size instead, for scripts). Everything goes inside DIR. Never imports textual."""

from __future__ import annotations

import argparse
import gzip
import re
import shlex
import sys
import zlib
from collections import Counter
from pathlib import Path

from tui.cli.load import PROG
from tui.demo import populate
from tui.model.format import fmt_bytes

_HEAD = re.compile(rb'"(version|reason)":\s*("?)(\w+)')


def _snapshot_kind(path: Path) -> str:
    """`v1`, `v2` or `v2 wire envelope`, ` running` added while a session is unfinished; read from the first bytes
    only (a --big-ops snapshot is tens of megabytes)."""
    try:
        with gzip.open(path, "rb") as f:
            head = f.read(160)
    except (OSError, EOFError, zlib.error):
        return "unreadable"
    found = {m.group(1).decode(): m.group(3).decode() for m in _HEAD.finditer(head)}
    kind = f"v{found['version']}" if "version" in found else "v2 wire envelope"
    return kind + (" running" if found.get("reason") == "subagent_finish" else "")


def _kind(path: Path, root: Path) -> str:
    rel = path.relative_to(root) if path.is_relative_to(root) else path
    if rel.parts[0] == "payloads":
        return "payload files (payloads/)"
    if rel.parts[0] == "session":
        return "v3 ledgers (session/*.jsonl)"
    if rel.name == "accounting.jsonl":
        return "accounting.jsonl"
    if ".tmp-" in rel.name:
        return "orphaned temp file (on purpose)"
    if path.stat().st_size == 0:
        return "empty snapshot (on purpose)"
    return "snapshots (.json.gz)"


def summary(root: Path, written: list[Path]) -> str:
    """A few lines: counts per kind (snapshots split by version), total size, where, how to open it."""
    kinds: Counter[str] = Counter()
    snaps: Counter[str] = Counter()
    total = 0
    for p in written:
        k = _kind(p, root)
        kinds[k] += 1
        total += p.stat().st_size
        if k.startswith("snapshots"):
            version, running, _ = _snapshot_kind(p).partition(" running")
            snaps[version] += 1
            snaps["running"] += bool(running)
    where = shlex.quote(str(root.resolve()))
    lines = [f"wrote {len(written)} files, {fmt_bytes(total)}, into {root.resolve()}"]
    for k, n in kinds.most_common():
        detail = ""
        if k.startswith("snapshots") and snaps:
            detail = "  (" + ", ".join(f"{n2} {k2}" for k2, n2 in sorted(snaps.items(), key=lambda kv: (kv[0] == "running", kv[0])) if n2) + ")"
        lines.append(f"  {n:>4}  {k}{detail}")
    lines += [
        f"open it:  {PROG} --sessions-dir {where}",
        f"one file: {PROG} {where}/<name>.json.gz   (--list prints every path with its size)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{PROG} generate", description="Generate ai-agent session test data.")
    ap.add_argument("dir", type=Path, help="sessions directory to fill (all files, accounting.jsonl too, go inside it)")
    ap.add_argument("--count", type=int, default=12, help="number of snapshot sessions (default 12)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--big-ops", type=int, default=None, help="make the first session this many ops big")
    ap.add_argument("--list", action="store_true", help="print every path written with its size (PATH<TAB>BYTES)")
    args = ap.parse_args(argv)
    written = populate(args.dir, count=args.count, seed=args.seed, big_ops=args.big_ops)
    if args.list:
        for p in written:
            try:
                size = p.stat().st_size
            except OSError:
                size = -1
            print(f"{p}\t{size}")
    else:
        print(summary(args.dir, written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
