"""`aiagent-monitor generate DIR`: everything inside DIR, a short summary (not one line per file), its own prog
name in --help, `--list` for scripts. Run as a real process (`python -m tui generate`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generate(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "tui", "generate", *args], capture_output=True, text=True, env=env,
                          check=True, cwd=ROOT, timeout=120)


def test_everything_lands_inside_dir_and_the_summary_is_short(tmp_path):
    parent = tmp_path / "parent"
    parent.mkdir()
    target = parent / "sessions"
    out = _generate(str(target), "--count", "6", "--seed", "3").stdout
    assert [p.name for p in parent.iterdir()] == ["sessions"]  # accounting.jsonl included: nothing beside DIR
    assert (target / "accounting.jsonl").is_file()
    files = [p for p in target.rglob("*") if p.is_file()]
    lines = out.splitlines()
    assert len(lines) <= 10 < len(files)
    assert lines[0].startswith(f"wrote {len(files)} files, ") and str(target.resolve()) in lines[0]
    assert "KiB" in lines[0] or "MiB" in lines[0]
    body = "\n".join(lines)
    for kind in ("snapshots (.json.gz)", "v3 ledgers", "payload files", "accounting.jsonl"):
        assert kind in body
    snap_line = next(ln for ln in lines if "snapshots (.json.gz)" in ln)
    assert snap_line.split()[0] == "6" and "v1" in snap_line and "running" in snap_line
    assert f"aiagent-monitor --sessions-dir {target.resolve()}" in body


def test_list_prints_every_path_with_its_size(tmp_path):
    out = _generate(str(tmp_path / "s"), "--count", "6", "--seed", "3", "--list").stdout
    lines = out.strip().splitlines()
    assert len(lines) > 8
    for ln in lines:
        path, size = ln.split("\t")
        assert Path(path).stat().st_size == int(size)


def test_help_names_the_command():
    out = _generate("--help").stdout
    assert out.startswith("usage: aiagent-monitor generate ")
