"""Open: `dump --json` against `zcat FILE | jq .opTree.totals` and the parse floor, with peak memory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from common import PY, Row, fmt_mb, ratio_row, run_timed, summary

# The floor: one Python process that only reads, gunzips and parses the file, collector off (parsed JSON has no
# cycles), and leaves without freeing what it parsed, as `dump` does.
FLOOR_CODE = ("import gc, os, sys, zlib, orjson; gc.disable(); "
              "orjson.loads(zlib.decompress(open(sys.argv[1], 'rb').read(), 31)); os._exit(0)")


FLOOR_BEATEN_AT = (20_000, 100_000)  # the sizes whose dump --json is judged against the floor


def commands(path: Path) -> dict[str, list[list[str]]]:
    cmds = {
        "dump": [[PY, "-m", "tui", "dump", "--json", str(path)]],
        "floor": [[PY, "-c", FLOOR_CODE, str(path)]],
    }
    if shutil.which("jq") and shutil.which("zcat"):
        cmds["jq"] = [["zcat", str(path)], ["jq", ".opTree.totals"]]
    return cmds


def check_dump(path: Path, scratch: Path) -> dict:
    out = scratch / "dump.json"
    run_timed(commands(path)["dump"], stdout_file=out)
    summary_json = json.loads(out.read_bytes())
    if not summary_json.get("counts", {}).get("ops"):
        raise RuntimeError(f"dump --json of {path} counted no ops: {summary_json}")
    return summary_json


def measure(path: Path, runs: int, scratch: Path) -> dict:
    """Each round runs every command once, back to back, so that a busy moment hits them all alike."""
    dumped = check_dump(path, scratch)
    cmds = commands(path)
    samples: dict[str, list] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, argvs in cmds.items():
            samples[name].append(run_timed(argvs))
    result = {"ops": dumped["counts"]["ops"], "gzip_bytes": path.stat().st_size}
    for name, got in samples.items():
        result[name] = {"seconds": summary([s.seconds for s in got]), "rss_kb": summary([s.rss_kb for s in got])}
        result[name]["per_round"] = [s.seconds for s in got]
        result[name]["per_round_rss"] = [s.rss_kb for s in got]
    return result


def rows(results: dict[int, dict], target_ops: int) -> list[Row]:
    out: list[Row] = []
    for ops, r in sorted(results.items()):
        size = f"{ops:,} ops ({r['gzip_bytes'] / 1e6:.0f} MB gz)"
        judged = ops == target_ops
        dump = r["dump"]
        if "jq" in r:
            ratios = [a / b for a, b in zip(dump["per_round"], r["jq"]["per_round"])]
            out.append(ratio_row("Open", "dump --json time", size, dump["seconds"], "zcat|jq", r["jq"]["seconds"],
                                 0.8 if judged else None, target_text="≤ 0.8× jq" if judged else "", ratios=ratios))
        else:
            out.append(Row("Open", "dump --json time", size, "", "zcat|jq: jq not installed, skipped"))
        # beating the floor (issue 17): the lazy reader decodes what the tree needs, payloads when opened
        beats = ops in FLOOR_BEATEN_AT
        ratios = [a / b for a, b in zip(dump["per_round"], r["floor"]["per_round"])]
        out.append(ratio_row("Open", "dump --json time", size, dump["seconds"], "floor", r["floor"]["seconds"],
                             0.6 if beats else None, target_text="≤ 0.6× floor" if beats else "", ratios=ratios))
        ratios = [a / b for a, b in zip(dump["per_round_rss"], r["floor"]["per_round_rss"])]
        out.append(ratio_row("Open", "dump --json peak memory", size, dump["rss_kb"], "floor", r["floor"]["rss_kb"],
                             0.5 if beats else None, fmt=fmt_mb, target_text="≤ 0.5× floor" if beats else "",
                             ratios=ratios))
        if "jq" in r:
            out.append(ratio_row("Open", "dump --json peak memory", size, dump["rss_kb"], "zcat|jq",
                                 r["jq"]["rss_kb"], None, fmt=fmt_mb))
    return out
