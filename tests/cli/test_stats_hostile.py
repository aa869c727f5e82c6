"""`stats` and the sessions index against hostile data (issue 28, items 6, 12, 14): one file with absurd numbers
(2^63 tokens, costs summing to inf, a start in year 9999, a negative cost, 10^300 tokens) among ordinary ones, a
cache filesystem that fills up while the index is written, a damaged index file. Real files, a real tmpfs (or a
real file-size limit), the real command in a subprocess (in this process for the 30 runs of the absurd numbers)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.absurdfixtures import ABSURD, absurd_sessions
from helpers.cli_inproc import run_main
from tui.catalog.index.store import index_path
from tui.demo import make_tree, write_snapshot

FORMS = ([], ["--json"], ["--by", "agent"], ["--by", "model"], ["--by", "headend"], ["--since", "3650d"])


def stats(sessions: Path, cache: Path, *args: str, file_size_limit: int | None = None):
    """`stats` in a child process. `file_size_limit`: writes past it fail with EFBIG, as on a full disk; set by the
    child itself before it runs the command (a preexec_fn forks this process, threads and all: a forked gRPC
    poller of an earlier test wrote its error in place of the command's)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    command = ["-m", "tui"]
    if file_size_limit is not None:
        command = ["-c", "import resource, runpy, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
                   f"resource.setrlimit(resource.RLIMIT_FSIZE, ({file_size_limit}, {file_size_limit})); "
                   "sys.argv[0] = 'tui'; runpy.run_module('tui', run_name='__main__', alter_sys=True)"]
    return subprocess.run([sys.executable, *command, "stats", "--sessions-dir", str(sessions), *args],
                          capture_output=True, timeout=120, env=env)


def stats_here(sessions: Path, cache: Path, *args: str):
    """`stats` run in this process (tests/helpers/cli_inproc.py): the absurd-numbers test runs it 30 times."""
    return run_main("stats", "--sessions-dir", str(sessions), *args, env={"XDG_CACHE_HOME": str(cache)})


def index_rows(sessions: Path, cache: Path) -> int:
    with sqlite3.connect(index_path(sessions, cache / "aiagent-monitor")) as conn:
        return conn.execute("SELECT count(*) FROM sessions").fetchone()[0]


def numbers(doc) -> list:
    """Every value of a number's key in the --json document (None where a number should be)."""
    if isinstance(doc, dict):
        return [v for k, v in doc.items() if k in ("cost_usd", "tokens_in", "tokens_out", "sessions")
                and not isinstance(v, (dict, list))] + [x for v in doc.values() for x in numbers(v)]
    if isinstance(doc, list):
        return [x for v in doc for x in numbers(v)]
    return []


@pytest.mark.parametrize("what", ABSURD)
def test_absurd_numbers_in_one_file_keep_the_index_and_every_stats_form(tmp_path, what):
    sessions, cache = tmp_path / "sessions", tmp_path / "cache"
    absurd = absurd_sessions(sessions, what)
    for form in FORMS:
        result = stats_here(sessions, cache, *form)
        out, err = result.stdout.decode(), result.stderr.decode()
        assert result.returncode == 0 and "Traceback" not in err, (form, err)
        assert not re.search(r"\d{19,}", out), (form, out[:2000])  # no 300-digit (nor 2^63) number printed
        if form == ["--json"]:
            doc = json.loads(out)
            assert None not in numbers(doc["totals"]) and None not in numbers(doc["by"]), out[:2000]
            sums = numbers(doc["totals"]) + numbers(doc["by"])
            assert all(isinstance(v, (int, float)) and v >= 0 for v in sums), out[:2000]
            assert doc["suspect"]["count"] == 1 and doc["suspect"]["sessions"][0]["path"] == str(absurd)
        elif not form:
            assert "suspect: 1 session with absurd numbers" in out and str(absurd) in out, out
    assert index_rows(sessions, cache) == 4  # every session kept in the index, the absurd one included


def _full_disk_sessions(tmp_path: Path) -> Path:
    sessions = tmp_path / "sessions"
    for seed in range(150):
        write_snapshot(sessions, make_tree(seed, ops=4, depth=0))
    return sessions


def _refuses_a_partial_answer(result) -> None:
    err = result.stderr.decode()
    assert result.returncode != 0, (result.stdout.decode()[:500], err)
    assert result.stdout == b"", result.stdout.decode()[:500]  # no partial answer
    assert "Traceback" not in err and "stats not given" in err, err


def test_a_full_cache_filesystem_makes_stats_fail_not_answer_in_part(tmp_path):
    sessions = _full_disk_sessions(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(cache)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.decode().strip()}): the file-size limit test covers it")
    try:
        _refuses_a_partial_answer(stats(sessions, cache))
    finally:
        subprocess.run(["umount", str(cache)], check=False)


def test_a_file_size_limit_makes_stats_fail_not_answer_in_part(tmp_path):
    sessions = _full_disk_sessions(tmp_path)
    _refuses_a_partial_answer(stats(sessions, tmp_path / "cache", file_size_limit=160 * 1024))


def test_a_damaged_index_is_called_damaged_with_what_to_do(tmp_path):
    sessions, cache = tmp_path / "sessions", tmp_path / "cache"
    for seed in range(5):
        write_snapshot(sessions, make_tree(seed, ops=4, depth=0))
    assert stats(sessions, cache).returncode == 0
    path = index_path(sessions, cache / "aiagent-monitor")
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)  # every page after the first: garbage
    path.write_bytes(bytes(data))
    for name in ("-wal", "-shm"):
        Path(f"{path}{name}").unlink(missing_ok=True)
    result = stats(sessions, cache, "--no-refresh")
    err = result.stderr.decode()
    assert result.returncode == 1 and len(err.splitlines()) == 1, err
    assert "damaged" in err and "run the monitor once" not in err and "delete" in err, err
