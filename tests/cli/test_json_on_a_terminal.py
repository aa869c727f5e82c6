"""`dump --json`, `export --format json` and `diff --json` on a terminal (a pty): C1 controls, bidi overrides and
isolates, DEL and line separators from the data are written as \\uXXXX escapes, so the terminal shows them instead of
obeying them, and the output is still the same JSON. Piped, the bytes are left as they are."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers.builders import llm_acc, op, session, turn, write
from helpers.ptyrun import ROOT, run_in_pty

# U+009B is CSI in one character: "\x9b2J" clears the screen on terminals that take 8-bit controls.
HOSTILE = "agent\u009b2J\u0085\u202eREVERSED\u2066iso\u2069\u200f\u2028\x7f"
RAW = [ch.encode() for ch in "\u009b\u0085\u202e\u2066\u2069\u200f\u2028\x7f"]


def snapshot(tmp_path, name: str, failed: bool):
    tree = session(turn(1, op("llm", accounting=[llm_acc(5, 6, cost=0.5)], provider="p", model=HOSTILE),
                        op("tool", status="failed" if failed else "ok", name=HOSTILE, error="boom")),
                   agent=HOSTILE, trace="trace-" + name)
    return write(tmp_path / f"{name}.json.gz", {"version": 1, "reason": "final", "opTree": tree})


def on_a_terminal(*args: str) -> bytes:
    out, status = run_in_pty(list(args), [], timeout=60)
    assert status == 0, out[-2000:]
    return out.replace(b"\r\n", b"\n")


@pytest.mark.parametrize("command", ["dump", "export", "diff"])
def test_json_on_a_terminal_escapes_what_the_terminal_would_obey(tmp_path, command):
    a, b = snapshot(tmp_path, "a", False), snapshot(tmp_path, "b", True)
    args = {"dump": ["dump", str(a), "--json"], "export": ["export", str(a), "--format", "json"],
            "diff": ["diff", str(a), str(b), "--json"]}[command]
    out = on_a_terminal(*args)
    for raw in RAW:
        assert raw not in out, (raw, out[:400])
    assert b"\\u009b2J" in out and b"\\u202eREVERSED" in out
    value = json.loads(out)
    assert HOSTILE in json.dumps(value, ensure_ascii=False)  # the same JSON: the text is all there
    piped = subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, cwd=ROOT, timeout=60)
    assert piped.returncode == 0 and json.loads(piped.stdout) == value
    assert "\u202e".encode() in piped.stdout  # not a terminal: unchanged
