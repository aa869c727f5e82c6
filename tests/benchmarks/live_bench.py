"""Live: events/s through `--listen unix:` and `--listen ws://` fed by `replay --speed 0`, with the UI running;
key latency while a steady 5,000 events/s arrive."""

from __future__ import annotations

import tempfile
from pathlib import Path

from common import HERE, PY, Row, fmt_s, run_json


def urls(port: int) -> dict[str, str]:
    sock = Path(tempfile.mkdtemp(prefix="bench-sock-")) / "m.sock"
    return {"unix": f"unix:{sock}", "ws": f"ws://127.0.0.1:{port}"}


def throughput(path: Path, port: int) -> dict[str, dict]:
    return {name: run_json([PY, str(HERE / "live_run.py"), "throughput", url, str(path)], timeout=900)
            for name, url in urls(port).items()}


def keys(rate: int, seconds: float, port: int) -> dict:
    return run_json([PY, str(HERE / "live_run.py"), "keys", urls(port)["unix"], str(rate), str(seconds)],
                    timeout=seconds + 300)


def rows(tp: dict[str, dict], ops: int, kl: dict | None) -> list[Row]:
    out = []
    for name, r in tp.items():
        lost = r["sent"] - r["received"]
        value = f"{r['events_per_s']:,.0f} events/s" if r["events_per_s"] else "n/a"
        note = (f"{r['received']:,} of {r['sent']:,} events, {r['bytes'] / 1e6:,.0f} MB in {fmt_s(r['seconds'])};"
                f" lost {lost:,}, gaps {r['gaps']:,}; the sender's own rate {r['sent'] / r['sender_seconds']:,.0f}/s")
        holds = bool(r["events_per_s"]) and r["events_per_s"] >= 20_000 and lost == 0 and r["gaps"] == 0
        out.append(Row("Live", f"replay --speed 0 → --listen {name}:", f"{ops:,}-op session", value, note,
                       target="≥ 20,000/s, none lost", holds=holds, data=r))
        out.append(Row("Live", f"longest UI stall during the replay ({name})", f"{ops:,}-op session",
                       fmt_s(r["stall_s"])))
    if kl is not None:
        k = kl["keys"]
        lost = kl["sent"] - kl["received"]
        out.append(Row("Live", f"key → cursor moved while {kl['rate']:,} events/s arrive ({k['n']} keys)",
                       "unix socket", f"p50 {fmt_s(k['p50'])}, p95 {fmt_s(k['p95'])}, max {fmt_s(k['max'])}",
                       f"lost {lost:,}, gaps {kl['gaps']:,}", target="p95 < 100 ms",
                       holds=k["p95"] < 0.1 and lost == 0, data=kl))
    return out
