"""Live: events/s through `--listen unix:` and `--listen ws://` fed by `replay --speed 0`, with the UI running (its
live screen open, keys pressed; the UI thread's time per live tick and the longest stall);
key latency while a steady 5,000 events/s arrive; and the hostile shapes of issue 12 (100,000 distinct sessions,
accounting in reverse order) at full speed, keys pressed in the browser meanwhile."""

from __future__ import annotations

import tempfile
from pathlib import Path

from common import HERE, PY, Row, fmt_s, fmt_spread, run_json, summary


def urls(port: int) -> dict[str, str]:
    sock = Path(tempfile.mkdtemp(prefix="bench-sock-")) / "m.sock"
    return {"unix": f"unix:{sock}", "ws": f"ws://127.0.0.1:{port}"}


def throughput(path: Path, port: int, runs: int) -> dict[str, dict]:
    """Per transport: the run with the median rate, and every run's rate."""
    out = {}
    for name in ("unix", "ws"):
        got = [run_json([PY, str(HERE / "live_run.py"), "throughput", urls(port)[name], str(path)], timeout=900)
               for _ in range(runs)]
        got.sort(key=lambda r: r["events_per_s"] or 0)
        out[name] = {**got[len(got) // 2], "rates": summary([r["events_per_s"] or 0 for r in got]),
                     "all_lost": [r["sent"] - r["received"] for r in got], "all_gaps": [r["gaps"] for r in got]}
    return out


MIXED_EVENTS, MIXED_SESSIONS = 200_000, 1_000


def fast(path: Path, port: int) -> dict[str, dict]:
    """live_fast_sender.py (lines encoded before it connects, never the bound) into --listen unix:, the UI up: the
    mixed small-event load, and the replay's very lines."""
    url = urls(port)["unix"]
    return {"mixed": run_json([PY, str(HERE / "live_run.py"), "fast", url, "mixed", str(MIXED_EVENTS),
                               str(MIXED_SESSIONS)], timeout=900),
            "replay": run_json([PY, str(HERE / "live_run.py"), "fast", url, "replay", str(path)], timeout=900)}


def fast_rows(results: dict[str, dict], ops: int) -> list[Row]:
    out = []
    for shape, r in results.items():
        lost = r["sent"] - r["received"] - r.get("malformed", 0)
        what = (f"{MIXED_EVENTS:,} small events over {MIXED_SESSIONS:,} sessions" if shape == "mixed"
                else f"{ops:,}-op session's replay lines")
        rate = r["events_per_s"] or 0
        out.append(Row("Live", "pre-encoded sender → --listen unix: (UI up)", what, f"{rate:,.0f} events/s",
                       f"{r['received']:,} of {r['sent']:,} events, {r['bytes'] / 1e6:,.0f} MB in "
                       f"{fmt_s(r['seconds'])}; lost {lost:,}, gaps {r['gaps']:,}, malformed {r['malformed']:,}",
                       target="≥ 50,000/s, none lost", holds=rate >= 50_000 and lost == 0 and r["gaps"] == 0,
                       data=r))
    return out


def keys(rate: int, seconds: float, port: int) -> dict:
    return run_json([PY, str(HERE / "live_run.py"), "keys", urls(port)["unix"], str(rate), str(seconds)],
                    timeout=seconds + 300)


def scale(shape: str, n: int, port: int) -> dict:
    return run_json([PY, str(HERE / "live_run.py"), "scale", urls(port)["unix"], shape, str(n)], timeout=1800)


SHAPES = {"sessions": "distinct sessions, one event each", "reverse": "accounting events in reverse order"}


def scale_rows(results: list[dict]) -> list[Row]:
    out = []
    for r in results:
        k = r["keys"]
        lost = r["sent"] - r["received"]
        rate = r["events_per_s"] or 0
        holds = k["p95"] < 0.1 and rate >= 20_000 and lost == 0
        out.append(Row("Live", f"{r['n']:,} {SHAPES[r['shape']]} → --listen unix: ({k['n']} keys)",
                       "browser", f"{rate:,.0f} events/s; keys p50 {fmt_s(k['p50'])}, p95 {fmt_s(k['p95'])}, "
                       f"max {fmt_s(k['max'])}", f"lost {lost:,}; longest UI stall {fmt_s(r['stall_s'])}",
                       target="p95 < 100 ms, ≥ 20,000/s", holds=holds, data=r))
    return out


def rows(tp: dict[str, dict], ops: int, kl: dict | None, judged: bool) -> list[Row]:
    out = []
    for name, r in tp.items():
        rates = r["rates"]
        value = fmt_spread(rates, lambda v: f"{v:,.0f}") + " events/s"
        note = (f"median run: {r['received']:,} of {r['sent']:,} events, {r['bytes'] / 1e6:,.0f} MB in "
                f"{fmt_s(r['seconds'])}; the sender's own rate {r['sent'] / r['sender_seconds']:,.0f}/s; "
                f"lost {sum(r['all_lost']):,}, gaps {sum(r['all_gaps']):,} over {rates['n']} runs")
        holds = rates["median"] >= 50_000 and not any(r["all_lost"]) and not any(r["all_gaps"])
        out.append(Row("Live", f"replay --speed 0 → --listen {name}:", f"{ops:,}-op session", value, note,
                       target="≥ 50,000/s, none lost" if judged else "", holds=holds if judged else None, data=r))
        out.append(Row("Live", f"longest UI stall during the replay ({name})", f"{ops:,}-op session",
                       fmt_s(r["stall_s"]), f"{r.get('stalls_over_100ms', 0):,} stalls over 100 ms",
                       target="none over 100 ms" if judged else "",
                       holds=(r.get("stalls_over_100ms", 0) == 0) if judged else None))
        ui, worker = r.get("ui_tick_ms"), r.get("worker_tick_ms")
        if ui:  # the UI thread's handlers of one batch of the live worker, and the worker's own time per batch
            out.append(Row("Live", f"UI thread per live tick during the replay ({name})", f"{ops:,}-op session",
                           f"p50 {ui['p50']:.1f} ms, p99 {ui['p99']:.1f} ms, max {ui['max']:.1f} ms",
                           f"{ui['n']} ticks; the live worker's thread: p50 {worker['p50']:.0f} ms, "
                           f"p99 {worker['p99']:.0f} ms per batch", target="p99 ≤ 5 ms" if judged else "",
                           holds=ui["p99"] <= 5 if judged else None, data=r))
        k = r.get("keys")
        if k and k["n"]:
            out.append(Row("Live", f"key → cursor moved on the live screen during the replay ({name}, {k['n']} "
                           "keys)", f"{ops:,}-op session",
                           f"p50 {fmt_s(k['p50'])}, p95 {fmt_s(k['p95'])}, max {fmt_s(k['max'])}",
                           target="p95 < 50 ms" if judged else "", holds=k["p95"] < 0.05 if judged else None))
    if kl is not None:
        k = kl["keys"]
        lost = kl["sent"] - kl["received"]
        out.append(Row("Live", f"key → cursor moved while {kl['rate']:,} events/s arrive ({k['n']} keys)",
                       "unix socket", f"p50 {fmt_s(k['p50'])}, p95 {fmt_s(k['p95'])}, max {fmt_s(k['max'])}",
                       f"lost {lost:,}, gaps {kl['gaps']:,}", target="p95 < 100 ms",
                       holds=k["p95"] < 0.1 and lost == 0, data=kl))
    return out
