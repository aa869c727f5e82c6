"""Timing check (not a test): how long scan() takes over a directory of N small snapshot files.

    /work/venv/bin/python tests/bench/bench_browser_scan.py [N]   (default 100,000)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tui.sources.directory_scan import scan  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory(prefix="bench-scan-") as tmp:
        base = Path(tmp)
        (base / "session").mkdir()
        t0 = time.perf_counter()
        payload = b"\x1f\x8b" + b"\0" * 30
        for i in range(n):
            fd = os.open(base / f"{i:08x}-0000-4000-8000-000000000000.json.gz", os.O_WRONLY | os.O_CREAT, 0o644)
            os.write(fd, payload)
            os.close(fd)
            if i % 1000 == 0:  # a few orphaned writer files and empty entries, as in real directories
                (base / f"{i:08x}.json.gz.tmp-1-2").write_bytes(payload)
                (base / f"{i:08x}-empty.json.gz").write_bytes(b"")
        for i in range(100):
            (base / "session" / f"{i:08x}.jsonl").write_bytes(b'{"recordType":"session_start"}\n')
        print(f"created {n:,} files in {time.perf_counter() - t0:.1f}s")
        for attempt in range(3):
            t0 = time.perf_counter()
            rows = scan(base)
            elapsed = time.perf_counter() - t0
            print(f"scan #{attempt + 1}: {len(rows):,} rows in {elapsed * 1000:.0f} ms")


if __name__ == "__main__":
    main()
