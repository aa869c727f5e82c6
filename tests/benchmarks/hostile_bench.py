"""The `hostile` section of run.py (issue 12): hostile files and hostile local clients, as table rows.

Runs the two standalone scripts beside it (hostile_files_bench.py, hostile_clients_bench.py), each in its own
process so that their peak RSS and CPU are theirs alone, and turns what they print into rows judged against the
issue's numbers: a lying gzip trailer must cost no more than a plain small file, a million gzip members must be
refused in well under a second (was 6-8 s of CPU), a never-ending ledger line must be read about once (was 21x), 40
clients holding unfinished 64 MiB frames must leave the listener far below the 2.45 GB they used to, and wrong
tokens must be answered far slower than the 4,650/s an attacker used to get.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from common import Row

HERE = Path(__file__).resolve().parent


def measure(quick: bool) -> dict:
    files = subprocess.run([sys.executable, str(HERE / "hostile_files_bench.py"), *([] if quick else ["--full"])],
                           capture_output=True, text=True, timeout=1800)
    clients_args = ["--clients", "10", "--guess-seconds", "5"] if quick else ["--clients", "40"]
    clients = subprocess.run([sys.executable, str(HERE / "hostile_clients_bench.py"), *clients_args],
                             capture_output=True, text=True, timeout=1800)
    last = files.stdout.strip().splitlines()[-1] if files.stdout.strip() else "{}"
    return {"files": json.loads(last), "files_rc": files.returncode, "clients": clients.stdout.strip().splitlines(),
            "clients_rc": clients.returncode, "stderr": (files.stderr + clients.stderr)[-2000:]}


def rows(result: dict) -> list[Row]:
    out: list[Row] = []
    f = result.get("files", {})
    plain, liar = f.get("plain"), f.get("liar")
    if plain and liar:
        ratio = liar["peak_rss_mb"] / max(plain["peak_rss_mb"], 1e-9)
        out.append(Row("hostile", "gzip with a lying trailer: peak RSS", "104 B + FF FF FF FF",
                       f"{liar['peak_rss_mb']:.0f} MB", f"plain file {plain['peak_rss_mb']:.0f} MB", ratio,
                       "≤ 1.5× a plain file (was 1 GiB)", ratio <= 1.5))
    for key, label in (("empty", "1,000,000 empty gzip members"), ("tiny", "1,000,000 one-byte gzip members")):
        r = f.get(key)
        if r:
            out.append(Row("hostile", f"{label}: CPU", "", f"{r['cpu_s']:.2f} s", "was 6-8 s", None, "< 1 s",
                           r["cpu_s"] < 1.0, str(r.get("result", ""))[:80]))
    r = f.get("line")
    if r:
        out.append(Row("hostile", "never-ending ledger line: bytes read", f"{r['appended']:,} B appended",
                       f"{r['read']:,} B", "was 21× the bytes appended", r["ratio"], "≤ 2.5× appended",
                       r["ratio"] <= 2.5))
    for line in result.get("clients", []):
        rss = re.search(r"peak RSS ([\d,]+) MB", line)
        if rss:
            mb = int(rss.group(1).replace(",", ""))
            out.append(Row("hostile", "clients holding unfinished 64 MiB frames: listener peak RSS",
                           line.split(":")[0], f"{mb:,} MB", "was 2.45 GB for 40", None, "< 512 MB", mb < 512))
        rate = re.search(r"\(([\d,.]+)/s\)", line)
        if line.startswith("wrong tokens") and rate:
            per_s = float(rate.group(1).replace(",", ""))
            out.append(Row("hostile", "wrong tokens answered", "8 guessers", f"{per_s:,.1f}/s", "was 4,650/s",
                           None, "< 50/s", per_s < 50))
    return out
