"""The benchmark's inputs, made with the project's generator (tui.demo): big snapshots and a big directory."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from common import PY, ROOT, child_env

# Real snapshot files carry raw HTTP/SSE captures on about a tenth of their LLM ops.
CAPTURE_RATE = 0.1
PAYLOAD_BYTES = 1500
DEPTH = 3  # 15 sessions: a root, 2 sub-agents, 4 sub-sub-agents, 8 below them


def snapshot(data_dir: Path, ops: int) -> Path:
    """A gzipped v2 snapshot of about `ops` ops (reused when it is already in data_dir)."""
    path = data_dir / f"snapshot-{ops}ops-d{DEPTH}-p{PAYLOAD_BYTES}-c{CAPTURE_RATE}.json.gz"
    if not path.exists():  # in a child process, so that this one stays small (see common.run_timed)
        code = ("import sys; from tui.demo import make_tree, write_snapshot; "
                f"write_snapshot(sys.argv[1], make_tree({ops}, ops={ops}, depth={DEPTH}, "
                f"payload_bytes={PAYLOAD_BYTES}, capture_rate={CAPTURE_RATE}), name=sys.argv[2])")
        subprocess.run([PY, "-c", code, str(data_dir), path.name], check=True, cwd=ROOT, env=child_env())
    return path


def many_files(data_dir: Path, files: int) -> Path:
    """A sessions directory of `files` small snapshots (30 ops each, a few dozen distinct ones, spread mtimes)."""
    folder = data_dir / f"dir-{files}files"
    marker = folder / ".complete"
    if marker.exists():
        return folder
    from tui.demo import make_tree, write_snapshot

    folder.mkdir(parents=True, exist_ok=True)
    variants = []
    for seed in range(32):
        tree = make_tree(seed, ops=30, depth=1, payload_bytes=400, capture_rate=CAPTURE_RATE)
        variants.append(write_snapshot(data_dir, tree, name=f"variant-{seed}.json.gz").read_bytes())
    base = time.time() - files
    for i in range(files):
        name = folder / f"{i:08x}-0000-4000-8000-{i:012x}.json.gz"
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, variants[i % len(variants)])
        os.close(fd)
        os.utime(name, (base + i, base + i))
    marker.write_text("ok")
    return folder
