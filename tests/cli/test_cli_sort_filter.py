"""`--sort` and `--filter` on the command line (issue 30, point 2): listed in --help, a bad sort refused in one line
(exit 2) before anything starts; the app under them is tested in tests/ui/test_browser_places.py."""

from __future__ import annotations

import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=60)


def test_help_names_sort_and_filter():
    text = run("--help").stdout.decode()
    assert "--sort COLUMN" in text and "--filter EXPR" in text and "cost" in text


def test_a_bad_sort_is_refused_in_one_line(tmp_path):
    result = run("--sessions-dir", str(tmp_path), "--sort", "price")
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "'price': not a sort" in err and "Traceback" not in err
