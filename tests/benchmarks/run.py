"""The benchmark suite of aiagent-monitor (not part of the test run).

    python tests/benchmarks/run.py            # full: 2,000 / 20,000 / 100,000 ops, 100,000 files (~5 min)
    python tests/benchmarks/run.py --quick    # small sizes, few runs (~1 min)

Generates its inputs with the project's generator, measures each thing as the median of several runs (with the
spread), each next to its reference measured in the same run, prints Markdown tables (those of
tests/benchmarks/README.md) and writes everything to a JSON file. Sections: open, screen, browser, live, otlp, hostile,
scaling, index, stats, redraw.

    python tests/benchmarks/run.py --sections open --quick   # the start-up rows: first screen of 20,000 ops
                                                             # against floor + empty textual app (target 1.2×)
    python tests/benchmarks/run.py --sections index --index-files 100000   # the sessions index (default: the
                                                             # browser's size, 10,000 quick / 100,000 full)
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import browser_bench  # noqa: E402
import index_bench  # noqa: E402
import hostile_bench  # noqa: E402
import inputs  # noqa: E402
import live_bench  # noqa: E402
import open_bench  # noqa: E402
import otlp_bench  # noqa: E402
import redraw_bench  # noqa: E402
import screen_bench  # noqa: E402
import startup_bench  # noqa: E402
import stats_bench  # noqa: E402
from common import Row, fmt_mb, fmt_s, machine, markdown_table  # noqa: E402

SECTIONS = ("open", "screen", "browser", "live", "otlp", "hostile", "scaling", "index", "stats", "redraw")
STATS_ROWS = 300_000  # "a stats query over 300,000 sessions < 200 ms" (issue 16); quick runs too: it takes ~30 s
TARGET_OPS = 20_000  # the size the Open and First screen targets are judged at
NAV_OPS = 100_000  # "at 100,000 ops, scrolling and drill-down stay instant"


def plan(quick: bool) -> dict:
    if quick:
        return {"sizes": [2_000, 20_000], "runs": 3, "screen_runs": 3, "nav_sizes": [20_000], "files": 10_000,
                "browser_runs": 1, "browser_max_s": 60, "live_ops": 2_000, "live_runs": 1, "key_rate": 5_000,
                "key_seconds": 6, "live_sessions": 10_000, "otlp_spans": 100_000, "otlp_memory_spans": 200_000}
    return {"sizes": [2_000, 20_000, 100_000], "runs": 5, "screen_runs": 5, "nav_sizes": [100_000],
            "files": 100_000, "browser_runs": 2, "browser_max_s": 300, "live_ops": 20_000, "live_runs": 3,
            "key_rate": 5_000, "key_seconds": 20, "live_sessions": 100_000, "otlp_spans": 200_000,
            "otlp_memory_spans": 1_000_000}


def scaling_rows(open_results: dict[int, dict], screen_results: dict[int, dict]) -> list[Row]:
    """Growth from the smallest to the largest size: the exponent b of time ~ ops^b (1 = linear), taken between
    the two largest sizes (the smallest is dominated by start-up)."""
    out: list[Row] = []
    sizes = sorted(open_results)
    if len(sizes) < 2:
        return out
    a, b = sizes[-2], sizes[-1]

    def exponent(ya: float, yb: float, base_a: float = 0.0, base_b: float = 0.0) -> float:
        return math.log(max(yb - base_b, 1e-9) / max(ya - base_a, 1e-9)) / math.log(b / a)

    series = [
        ("dump --json time", lambda r: r["dump"]["seconds"]["median"], fmt_s, open_results),
        ("dump --json peak memory", lambda r: r["dump"]["rss_kb"]["median"], fmt_mb, open_results),
        ("floor time", lambda r: r["floor"]["seconds"]["median"], fmt_s, open_results),
        ("first screen time", lambda r: r["app"]["seconds"]["median"], fmt_s, screen_results),
        ("first screen peak memory", lambda r: r["app"]["rss_kb"]["median"], fmt_mb, screen_results),
    ]
    for name, get, fmt, results in series:
        if a not in results or b not in results:
            continue
        values = ", ".join(f"{fmt(get(results[n]))} @ {n:,}" for n in sorted(results))
        e = exponent(get(results[a]), get(results[b]))
        out.append(Row("Scaling", name, f"{a:,} → {b:,} ops", values, f"growth exponent {e:.2f} (1 = linear)",
                       target="≤ 1.0", holds=e <= 1.0))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and few runs (~1 minute)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {SECTIONS}")
    parser.add_argument("--out", type=Path, default=Path("benchmark-results.json"), help="where the JSON goes")
    parser.add_argument("--data", type=Path, help="keep generated inputs in this directory (reused next time)")
    parser.add_argument("--port", type=int, default=18765, help="TCP port for the WebSocket measure")
    parser.add_argument("--runs", type=int, help="override the number of runs per measure")
    parser.add_argument("--index-files", type=int, help="files in the index section's directory (writing 300,000 "
                        "takes minutes; default: the browser section's size)")
    args = parser.parse_args(argv)
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    p = plan(args.quick)
    if args.runs:
        p["runs"] = p["screen_runs"] = args.runs
    data = args.data or Path(tempfile.mkdtemp(prefix="aiagent-bench-"))
    data.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="aiagent-bench-scratch-"))
    started = time.time()
    report: dict = {"mode": "quick" if args.quick else "full", "plan": p, "machine_before": machine(),
                    "started": time.strftime("%Y-%m-%d %H:%M:%S"), "sections": {}}
    rows: list[Row] = []

    def step(message: str) -> None:
        print(f"[{time.time() - started:6.0f}s] {message}", file=sys.stderr, flush=True)

    try:
        files = {}
        if {"open", "screen", "scaling", "live"} & set(sections):
            for ops in sorted(set(p["sizes"] + p["nav_sizes"] + [p["live_ops"], TARGET_OPS])):
                step(f"generating a {ops:,}-op snapshot")
                files[ops] = inputs.snapshot(data, ops)
        open_results: dict[int, dict] = {}
        screen_results: dict[int, dict] = {}
        if "open" in sections or "scaling" in sections:
            for ops in p["sizes"]:
                step(f"open: {ops:,} ops, {p['runs']} runs")
                open_results[ops] = open_bench.measure(files[ops], p["runs"], scratch)
            report["sections"]["open"] = open_results
            if not shutil.which("jq"):
                report["notes"] = ["jq is not installed: the zcat | jq reference was skipped"]
            rows += open_bench.rows(open_results, TARGET_OPS)
        if "open" in sections:
            step(f"open: start-up to the first screen of {TARGET_OPS:,} ops against floor + empty textual app, "
                 f"{p['runs']} rounds")
            startup = startup_bench.measure(files[TARGET_OPS], p["runs"])
            step(f"open: {startup_bench.describe(startup)}")
            report["sections"]["startup"] = startup
            rows += startup_bench.rows(startup, TARGET_OPS)
        if "screen" in sections or "scaling" in sections:
            for ops in p["sizes"]:
                step(f"first screen: {ops:,} ops, {p['screen_runs']} runs")
                screen_results[ops] = screen_bench.measure(files[ops], p["screen_runs"])
            nav = {}
            for ops in p["nav_sizes"]:
                step(f"navigation: {ops:,} ops")
                nav[ops] = screen_bench.navigate(files[ops])
            report["sections"]["screen"] = {"first": screen_results, "navigation": nav}
            rows += screen_bench.rows(screen_results, nav, TARGET_OPS, NAV_OPS)
        if "browser" in sections:
            step(f"browser: writing {p['files']:,} files")
            folder = inputs.many_files(data, p["files"])
            step(f"browser: {p['browser_runs']} runs")
            result = browser_bench.measure(folder, p["files"], p["browser_runs"], p["runs"], p["browser_max_s"])
            report["sections"]["browser"] = result
            rows += browser_bench.rows(result, p["files"], p["files"] >= 100_000)
        if "live" in sections:
            step(f"live: replay of a {p['live_ops']:,}-op session, unix and ws, {p['live_runs']} runs each")
            tp = live_bench.throughput(files[p["live_ops"]], args.port, p["live_runs"])
            step(f"live: keys at {p['key_rate']:,} events/s for {p['key_seconds']} s")
            kl = live_bench.keys(p["key_rate"], p["key_seconds"], args.port)
            report["sections"]["live"] = {"throughput": tp, "keys": kl}
            rows += live_bench.rows(tp, p["live_ops"], kl, p["live_ops"] >= 20_000)
            step("live: the pre-encoded sender (mixed small events, the replay's lines)")
            fa = live_bench.fast(files[p["live_ops"]], args.port)
            report["sections"]["live"]["fast"] = fa
            rows += live_bench.fast_rows(fa, p["live_ops"])
            step(f"live: {p['live_sessions']:,} distinct sessions, then as many accounting events in reverse order")
            sc = [live_bench.scale(shape, p["live_sessions"], args.port) for shape in live_bench.SHAPES]
            report["sections"]["live"]["scale"] = sc
            rows += live_bench.scale_rows(sc)
        if "otlp" in sections:
            step(f"otlp: {p['otlp_spans']:,} spans over OTLP/gRPC, {p['live_runs']} runs; keys at {p['key_rate']:,} "
                 f"spans/s; {p['otlp_memory_spans']:,} spans for memory")
            result = otlp_bench.measure(p["otlp_spans"], p["live_runs"], p["key_rate"], p["key_seconds"],
                                        p["otlp_memory_spans"], args.port)
            report["sections"]["otlp"] = result
            rows += otlp_bench.rows(result, p["otlp_spans"] >= 100_000)
        if "hostile" in sections:
            step("hostile: lying gzip trailer, a million gzip members, a never-ending line, held frames, guessed tokens")
            hostile = hostile_bench.measure(args.quick)
            report["sections"]["hostile"] = hostile
            rows += hostile_bench.rows(hostile)
        if "stats" in sections:
            step(f"stats: {STATS_ROWS:,} sessions inserted into an index, then stats and search queries")
            result = stats_bench.measure(scratch, STATS_ROWS, max(5, p["runs"]))
            report["sections"]["stats"] = result
            rows += stats_bench.rows(result)
        if "redraw" in sections:
            step("redraw: bytes written to a 160x48 terminal per second, live and idle screens, 10 s each")
            result = redraw_bench.measure(scratch)
            report["sections"]["redraw"] = result
            rows += redraw_bench.rows(result)
        if "scaling" in sections:
            rows += scaling_rows(open_results, screen_results)
        if "index" in sections:
            count = args.index_files or p["files"]
            step(f"index: writing {count:,} files")
            folder = inputs.many_files(data, count)
            one = inputs.many_files(data, 1)
            step(f"index: today's fill, cold indexing, warm start and first rows, {p['runs']} runs")
            result = index_bench.measure(folder, one, count, p["runs"], scratch / "cache")
            report["sections"]["index"] = result
            rows += index_bench.rows(result)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)
    report["machine_after"] = machine()
    report["seconds"] = time.time() - started
    report["rows"] = [r.__dict__ for r in rows]
    table = markdown_table(rows)
    report["table"] = table
    args.out.write_text(json.dumps(report, indent=1, default=str))
    m = report["machine_before"]
    print(f"\n{report['mode']} run, {m.get('cpus')} CPUs ({m.get('cpu', '?')}), Python {m['python']}, "
          f"load average {' '.join(f'{x:.1f}' for x in m.get('loadavg', ()))} before and "
          f"{' '.join(f'{x:.1f}' for x in report['machine_after'].get('loadavg', ()))} after; "
          f"{report['seconds']:.0f} s\n")
    print(table)
    for note in report.get("notes", []):
        print(f"\nNote: {note}")
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
