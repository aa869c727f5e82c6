"""Benchmark (not a test): `dump --json` against `zcat | jq`, and the app's first screen, on big inputs.

    python tests/bench/bench_load.py [--ops 20000] [--files 100000]

Prints wall time and peak RSS for each; files are generated into a temporary directory with the project's
generator and removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tui.gen import make_tree, write_snapshot  # noqa: E402


def timed(cmd: str, repeat: int = 3) -> tuple[float, int]:
    """Best wall time (s) and peak RSS (KiB, the largest process of the pipeline) over `repeat` runs."""
    best, rss = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = subprocess.run(["bash", "-c", f"set -o pipefail; {cmd}"], capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        if out.returncode != 0:
            raise SystemExit(f"failed: {cmd}\n{out.stderr[-2000:]}")
        best = min(best, elapsed)
        rss = max([rss, *[int(m) for m in re.findall(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr)]])
    return best, rss


def gnu_time(cmd: str) -> str:
    return f"/usr/bin/time -v {cmd}"


def bench_dump(tmp: Path, ops: int, payload_bytes: int) -> None:
    t0 = time.perf_counter()
    path = write_snapshot(tmp / f"ops{ops}", make_tree(1, ops=ops, payload_bytes=payload_bytes, depth=3), version=2)
    made = time.perf_counter() - t0
    raw = len(subprocess.run(["zcat", str(path)], capture_output=True).stdout)
    print(f"\n## {ops:,} ops: {raw / 1e6:.1f} MB decompressed, {path.stat().st_size / 1e6:.1f} MB gzip "
          f"(generated in {made:.1f}s)")
    py = sys.executable
    rows = [
        ("aiagent-monitor dump --json", gnu_time(f"{py} -m tui dump --json {path} > /dev/null")),
        ("zcat | jq .opTree.totals", f"zcat {path} | {gnu_time('jq .opTree.totals > /dev/null')}"),
        ("zcat | jq (count ops, like counts)",
         f"zcat {path} | /usr/bin/time -v jq '[.. | objects | select(has(\"opId\"))] | length' > /dev/null"),
        ("aiagent-monitor dump (text tree)", gnu_time(f"{py} -m tui dump {path} > /dev/null")),
    ]
    print(f"{'command':40} {'wall s':>8} {'peak RSS MB':>12}")
    for name, cmd in rows:
        wall, rss = timed(cmd)
        print(f"{name:40} {wall:8.2f} {rss / 1024:12.0f}")
    code = (
        "import time,resource,sys; t=time.perf_counter(); from tui.model.document import load; "
        "d=load(sys.argv[1]); print(f'{time.perf_counter()-t:.3f}', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([py, "-c", code, str(path)], capture_output=True, text=True).stdout.split()
    print(f"{'in-process load() (read+gunzip+parse+build)':40} {float(out[0]):8.2f} {int(out[1]) / 1024:12.0f}")
    code = ("import time,resource,sys,gzip,orjson; t=time.perf_counter(); "
            "v=orjson.loads(gzip.decompress(open(sys.argv[1],'rb').read())); "
            "print(f'{time.perf_counter()-t:.3f}', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([py, "-c", code, str(path)], capture_output=True, text=True).stdout.split()
    print(f"{'baseline: gunzip + orjson.loads only':40} {float(out[0]):8.2f} {int(out[1]) / 1024:12.0f}")
    bench_app(path)


APP_SESSION = """
import asyncio, resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, "tests/bench")
from keylag import key_latency
from tui.app import MonitorApp
from tui.model.document import load
from tui.screens.session import SessionScreen
async def main():
    app = MonitorApp(document=load(sys.argv[1]), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        while not isinstance(app.screen, SessionScreen):
            await pilot.pause(0.01)
        await pilot.pause()
        first = time.perf_counter() - t0
        tree = app.screen.tree
        lat = []
        for key in ["down"] * 40 + ["pagedown"] * 10:
            line = tree.cursor_line
            if line >= tree.last_line:
                break
            lat.append(await key_latency(app, key, lambda: tree.cursor_line != line))
            await pilot.pause(0.02)
        lat.sort()
        print(f"{first:.3f} {lat[len(lat) // 2] * 1000:.1f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
asyncio.run(main())
"""

APP_BROWSER = """
import asyncio, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
sys.path.insert(0, "tests/bench")
from keylag import key_latency
from tui.app import MonitorApp
from tui.screens.browser import BrowserScreen
async def main():
    app = MonitorApp(sessions_dir=Path(sys.argv[1]), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        while not (isinstance(app.screen, BrowserScreen) and app.screen.query_one("DataTable").row_count):
            await pilot.pause(0.01)
        first = time.perf_counter() - t0
        table = app.screen.query_one("DataTable")
        lat = []
        for _ in range(40):
            row = table.cursor_row
            lat.append(await key_latency(app, "down", lambda: table.cursor_row != row))
            await asyncio.sleep(0.05)
        lat.sort()
        per_key = lat[len(lat) // 2]
        await asyncio.sleep(3)
        rows = app.screen._rows
        loaded = sum(1 for r in rows.values() if r.loaded)
        print(f"{first:.3f} {per_key * 1000:.1f} {len(rows)} {loaded} "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
asyncio.run(main())
"""


def bench_app(path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", APP_SESSION, str(path)], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        print("session screen bench failed:", out.stderr[-1500:])
        return
    first, per_key, rss = out.stdout.split()
    print(f"session screen: first screen {float(first):.2f}s (process start to tree on screen), "
          f"median key latency {float(per_key):.1f} ms while scrolling, peak RSS {int(rss) / 1024:.0f} MB")


def bench_browser(tmp: Path, files: int) -> None:
    d = tmp / "many"
    d.mkdir()
    small = write_snapshot(tmp / "one", make_tree(2, ops=30, depth=1), version=1).read_bytes()
    t0 = time.perf_counter()
    for i in range(files):
        with open(d / f"{i:08x}-0000-4000-8000-{i:012x}.json.gz", "wb") as f:
            f.write(small)
        if i % 5000 == 0:
            os.utime(d / f"{i:08x}-0000-4000-8000-{i:012x}.json.gz", (1.7e9 + i, 1.7e9 + i))
    print(f"\n## browser on {files:,} snapshot files (written in {time.perf_counter() - t0:.1f}s)")
    out = subprocess.run([sys.executable, "-c", APP_BROWSER, str(d)], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        print("browser bench failed:", out.stderr[-1500:])
        return
    first, per_key, rows, loaded, rss = out.stdout.split()
    print(f"browser: first screen {float(first):.2f}s with {int(rows):,} rows listed, median key latency "
          f"{float(per_key):.1f} ms while rows fill in, {int(loaded):,} rows filled after ~5 s, "
          f"peak RSS {int(rss) / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, nargs="*", default=[20000])
    parser.add_argument("--payload-bytes", type=int, default=0)
    parser.add_argument("--files", type=int, default=100_000)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="aiagent-bench-"))
    try:
        for ops in args.ops:
            bench_dump(tmp, ops, args.payload_bytes)
        if args.files:
            bench_browser(tmp, args.files)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
