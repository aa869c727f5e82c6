"""Benchmark (not a test): what insights and exports cost on a big session.

    python tests/benchmarks/insights_bench.py [--ops 20000]

Prints the time of loading, of computing the insights, of the text/JSON/Markdown outputs, and of `dump --json`
with and without `--insights` (best of several runs, each a fresh process).
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tui.demo import make_tree, write_snapshot  # noqa: E402
from tui.formats.load import load  # noqa: E402
from tui.model.insights import compute  # noqa: E402
from tui.text.export import render  # noqa: E402
from tui.text.insights_text import render_text  # noqa: E402


def best(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def process(args: list[str], repeat: int) -> float:
    return best(lambda: subprocess.run([sys.executable, "-m", "tui", *args], cwd=ROOT, check=True,
                                       stdout=subprocess.DEVNULL), repeat)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ops", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(write_snapshot(Path(tmp), make_tree(1, ops=args.ops, depth=3), version=2))
        gc.disable()
        t0 = time.perf_counter()
        doc = load(path)
        loaded = time.perf_counter() - t0
        root = doc.root
        ins = compute(root)
        print(f"{root.counts.ops:,} ops, {len(ins.failed_ops):,} failed, load {loaded * 1000:.0f} ms")
        print(f"insights compute           {best(lambda: compute(root)) * 1000:8.1f} ms")
        print(f"insights as JSON           {best(lambda: compute(root).as_dict()) * 1000:8.1f} ms")
        print(f"insights as text           {best(lambda: render_text(compute(root))) * 1000:8.1f} ms")
        print(f"export markdown            {best(lambda: render(root, 'markdown'), 3) * 1000:8.1f} ms")
        print(f"export json                {best(lambda: render(root, 'json'), 3) * 1000:8.1f} ms")
        plain = process(["dump", "--json", path], args.repeat)
        with_ins = process(["dump", "--json", "--insights", path], args.repeat)
        print(f"dump --json                {plain * 1000:8.0f} ms")
        print(f"dump --json --insights     {with_ins * 1000:8.0f} ms  (+{(with_ins - plain) / plain * 100:.1f}%)")


if __name__ == "__main__":
    main()
