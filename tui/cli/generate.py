"""`aiagent-monitor generate DIR [--count N] [--seed S] [--big-ops N]`: fill DIR with a realistic sessions directory
(the demo generator, tui.demo). Never imports textual."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.demo.files import populate


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="aiagent-monitor generate", description="Generate ai-agent session test data.")
    ap.add_argument("dir", type=Path, help="sessions directory to fill (all files, accounting.jsonl too, go inside it)")
    ap.add_argument("--count", type=int, default=12, help="number of snapshot sessions (default 12)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--big-ops", type=int, default=None, help="make the first session this many ops big")
    args = ap.parse_args(argv)
    for p in populate(args.dir, count=args.count, seed=args.seed, big_ops=args.big_ops):
        try:
            size = p.stat().st_size
        except OSError:
            size = -1
        print(f"{p}\t{size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
