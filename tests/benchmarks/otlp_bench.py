"""OTLP: spans/s received over `--listen otlp://` and applied (decoded, assembled into sessions, in the hub, rows
in the browser) with the UI running; key latency in the browser while 5,000 spans/s arrive; and what the process
holds after a million spans (the sink's caps: tui.formats.otlp.sink MAX_SPANS, whole traces evicted beyond it)."""

from __future__ import annotations

from common import HERE, PY, Row, fmt_s, fmt_spread, run_json, summary

PORT_OFFSET = 17  # away from the live section's ports


def run(mode: str, port: int, *args: object, timeout: float = 1800) -> dict:
    return run_json([PY, str(HERE / "otlp_run.py"), mode, str(port + PORT_OFFSET), *map(str, args)], timeout=timeout)


def measure(spans: int, runs: int, key_rate: int, key_seconds: float, memory_spans: int, port: int) -> dict:
    tp = [run("throughput", port, spans) for _ in range(runs)]
    tp.sort(key=lambda r: r["spans_per_s"] or 0)
    return {"throughput": {**tp[len(tp) // 2], "rates": summary([r["spans_per_s"] or 0 for r in tp]),
                           "all_lost": [r["sent"] - r["received"] for r in tp]},
            "keys": run("keys", port, key_rate, key_seconds),
            "memory": run("memory", port, memory_spans, timeout=3600), "big": big(port)}


BIG_SPANS, BIG_RATE = 50_000, 2_500  # one trace to the sink's per-trace cap, 2,500 spans/s (a batch every 0.2 s)


def big(port: int, spans: int = BIG_SPANS, rate: int = BIG_RATE) -> dict:
    """One ai-agent trace grown to the cap over OTLP/gRPC with its session screen open (otlp_big_run.py)."""
    return run_json([PY, str(HERE / "otlp_big_run.py"), str(port + PORT_OFFSET + 1), str(spans), str(rate)],
                    timeout=1800)


def rows(result: dict, judged: bool) -> list[Row]:
    tp, kl, mem = result["throughput"], result["keys"], result["memory"]
    rates = tp["rates"]
    out = [Row("OTLP", "OTLP/gRPC → --listen otlp://, applied to the hub and the browser rows",
               f"{tp['sent']:,} ai-agent spans, {tp['sessions']:,} sessions",
               fmt_spread(rates, lambda v: f"{v:,.0f}") + " spans/s",
               f"median run: {tp['received']:,} of {tp['sent']:,} in the hub after {fmt_s(tp['seconds'])}, every "
               f"browser row after {fmt_s(tp['rows_seconds'] or float('nan'))}; the sender's "
               f"own rate {tp['sent'] / tp['sender_seconds']:,.0f}/s; lost {sum(tp['all_lost']):,} over "
               f"{rates['n']} runs; longest UI stall {fmt_s(tp['stall_s'])}",
               target="≥ 20,000/s, none lost" if judged else "",
               holds=(rates["median"] >= 20_000 and not any(tp["all_lost"])) if judged else None, data=tp)]
    k = kl["keys"]
    out.append(Row("OTLP", f"key → cursor moved while {kl['rate']:,.0f} spans/s arrive ({k['n']} keys)", "browser",
                   f"p50 {fmt_s(k['p50'])}, p95 {fmt_s(k['p95'])}, max {fmt_s(k['max'])}",
                   f"lost {kl['sent'] - kl['received']:,}", target="p95 < 100 ms",
                   holds=k["p95"] < 0.1 and kl["sent"] == kl["received"], data=kl))
    out.append(Row("OTLP", "memory after a million spans (caps: spans held, whole traces evicted)",
                   f"{mem['sent']:,} spans, {mem['sessions']:,} sessions",
                   f"{mem['rss_kb'] / 1024:,.0f} MB resident",
                   f"held {mem['held']:,} spans, {mem['evicted']:,} traces evicted, {mem['roots']:,} sessions in the "
                   f"hub; peak {mem['max_rss_kb'] / 1024:,.0f} MB", target="bounded", data=mem))
    if "big" in result:
        out.append(big_row(result["big"]))
    return out


def big_row(b: dict) -> Row:
    k = b["keys"]
    return Row("OTLP", f"key → cursor moved on the session screen of one trace growing to {b['spans']:,} spans "
                       f"({k['n']} keys)", f"{b['turns']:,} turns, {b['rate']:,.0f} spans/s, batches of 512",
               f"p50 {fmt_s(k['p50'])}, p95 {fmt_s(k['p95'])}, max {fmt_s(k['max'])}",
               f"longest UI stall {fmt_s(b['stall_s'])}; RSS {b['rss_start_kb'] / 1024:,.0f} → peak "
               f"{b['rss_peak_kb'] / 1024:,.0f} MB ({b['rss_after_collect_trim_kb'] / 1024:,.0f} MB once collected "
               f"and trimmed); {b['changes_seen']} changes seen, all turns shown "
               f"{fmt_s(b['settle_after_send_s'] or float('nan'))} after the last batch; load "
               f"{b['load'][0]:.1f}", target="p95 < 100 ms, max < 500 ms",
               holds=k["p95"] < 0.1 and k["max"] < 0.5, data=b)
