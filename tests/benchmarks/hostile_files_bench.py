"""Hostile files (issue 12, point 14): the numbers behind tests/formats/test_hostile_gzip_and_tail.py.

    python tests/benchmarks/hostile_files_bench.py            # ~40 MB line case (a few seconds)
    python tests/benchmarks/hostile_files_bench.py --full     # the issue's 400 MB line case

Cases, each in a fresh child process so that peak RSS and CPU belong to that case alone:
- liar:   `dump --json` of a valid ~100-byte gzip with FF FF FF FF appended (its "trailer" says 4 GiB).
          Was 1 GiB of RSS (the buffer was sized from the trailer); target: the RSS of a plain small file.
- empty:  loading a snapshot followed by 1,000,000 empty gzip members (20 bytes each). Was 6 s of CPU.
- tiny:   the same with 1,000,000 one-byte members. Was 6-8 s of CPU.
- line:   a ledger whose last line never ends, appended in 64 KiB steps with a tail read after each; bytes the
          process read (/proc/self/io rchar). Was 8.6 GB read for 400 MB appended; target: about twice the bytes
          appended. Also the same line past --max-bytes: reported "longer than ... skipped".
Prints one JSON object (and a short table).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SNAPSHOT = (b'{"version":2,"reason":"final","opTree":{"id":"s","traceId":"t","agentId":"small","startedAt":1,'
            b'"endedAt":2,"success":true,"turns":[]}}')


def _child(code: str, *args: str) -> dict:
    """Run `code` in a fresh interpreter; returns its JSON line (with its own CPU seconds and peak RSS)."""
    started = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=900)
    out = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {"stderr": p.stderr[-500:]}
    out.update(wall_s=round(time.monotonic() - started, 3))
    return out


USAGE = """
import resource
def usage(start):
    u = resource.getrusage(resource.RUSAGE_SELF)
    try:  # VmHWM: ru_maxrss keeps the parent's peak across exec on Linux
        with open("/proc/self/status") as f:
            peak_kb = int(next(l for l in f if l.startswith("VmHWM:")).split()[1])
    except OSError:
        peak_kb = u.ru_maxrss
    return {"cpu_s": round(u.ru_utime + u.ru_stime - start, 3), "peak_rss_mb": round(peak_kb / 1024, 1)}
u0 = resource.getrusage(resource.RUSAGE_SELF)
START = u0.ru_utime + u0.ru_stime
"""


LOAD = USAGE + """
import json, sys
from tui.inputs.files import LoadError, read_source
try:
    data = read_source(sys.argv[1])
    print(json.dumps({"result": f"{len(data):,} bytes", **usage(START)}))
except LoadError as exc:
    print(json.dumps({"result": exc.reason, **usage(START)}))
"""

LINE = USAGE + """
import json, os, sys
from pathlib import Path
from tui.formats.aiagent.ledger_tail import LedgerTail
from tui.inputs import files as source_bytes

def rchar():
    with open("/proc/self/io", "rb") as f:
        return int(next(l for l in f if l.startswith(b"rchar:")).split()[1])

path, total, cap = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
if cap:
    source_bytes.set_document_limit(cap)
path.write_bytes(b'{"version":3,"recordType":"session_start","seq":1,"sessionId":"s"}\\n{"text":"')
tail = LedgerTail(path)
tail.read_new()
step = b"x" * (64 * 1024)
before = rchar()
with path.open("ab") as f:
    for _ in range(total // len(step)):
        f.write(step); f.flush()
        tail.read_new()
read = rchar() - before
print(json.dumps({"appended": total, "read": read, "ratio": round(read / total, 2),
                  "problems": tail.document().problems[-1:], **usage(START)}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="append 400 MB to the never-ending line (not 40 MB)")
    args = parser.parse_args(argv)
    line_bytes = (400 if args.full else 40) * 1024 * 1024
    results = {}
    with tempfile.TemporaryDirectory(prefix="aim-hostile-") as d:
        tmp = Path(d)
        small = gzip.compress(SNAPSHOT, mtime=0)
        (tmp / "plain.json.gz").write_bytes(small)
        (tmp / "liar.json.gz").write_bytes(small + b"\xff\xff\xff\xff")
        (tmp / "empty.json.gz").write_bytes(small + gzip.compress(b"", mtime=0) * 1_000_000)
        (tmp / "tiny.json.gz").write_bytes(small + gzip.compress(b" ", mtime=0) * 1_000_000)
        results["plain"] = _child(LOAD, str(tmp / "plain.json.gz"))
        results["liar"] = _child(LOAD, str(tmp / "liar.json.gz"))
        results["liar"]["file_bytes"] = (tmp / "liar.json.gz").stat().st_size
        results["empty"] = _child(LOAD, str(tmp / "empty.json.gz"))
        results["tiny"] = _child(LOAD, str(tmp / "tiny.json.gz"))
        if Path("/proc/self/io").exists():
            results["line"] = _child(LINE, str(tmp / "line.jsonl"), str(line_bytes), "0")
            results["line_capped"] = _child(LINE, str(tmp / "capped.jsonl"), str(line_bytes), str(16 * 1024 * 1024))
    for name, r in results.items():
        extra = f"read {r['read']:,} for {r['appended']:,} appended ({r['ratio']}x)" if "read" in r else r.get("result")
        print(f"{name:12} cpu {r['cpu_s']:7.3f} s  wall {r['wall_s']:7.3f} s  peak RSS {r['peak_rss_mb']:8.1f} MB  "
              f"{extra}", file=sys.stderr)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
