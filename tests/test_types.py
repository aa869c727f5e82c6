"""mypy over the whole `tui` package, held to a recorded baseline that only goes down (issue 13).

Attribute errors are not allowed at all: mypy found the `_update_live_panel` typo (a live update while `[` showed
an older version raised AttributeError), and that is the kind of bug it catches for free. Every other error code
is counted per file in tests/mypy-baseline.txt (`path: [code] count`, no line numbers, so edits elsewhere in a file
do not disturb it); a count above its baseline fails, a count below it is reported so the baseline can be lowered
by hand (`python tests/test_types.py` prints the current counts in the baseline's format).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = Path(__file__).with_name("mypy-baseline.txt")
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: .*\[(?P<code>[a-z0-9-]+)\]\s*$")
NEVER = ("attr-defined",)  # no baseline: zero, always


def run_mypy() -> tuple[str, Counter[tuple[str, str]]]:
    """mypy's output and its errors counted by (file, code). The config is pyproject.toml's [tool.mypy]."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache"), "--no-color-output", "--no-error-summary"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    counts: Counter[tuple[str, str]] = Counter()
    for line in proc.stdout.splitlines():
        m = ERROR.match(line)
        if m:
            counts[(m["path"].replace("\\", "/"), m["code"])] += 1
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not counts):  # 2: mypy crashed or was not found
        raise AssertionError(f"mypy did not run (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout, counts


def read_baseline(path: Path = BASELINE) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"(?P<path>\S+): \[(?P<code>[a-z0-9-]+)\] (?P<n>\d+)", line)
        assert m, f"bad baseline line: {raw!r}"
        counts[(m["path"], m["code"])] = int(m["n"])
    return counts


def format_baseline(counts: Counter[tuple[str, str]]) -> str:
    return "".join(f"{path}: [{code}] {n}\n" for (path, code), n in sorted(counts.items()) if n)


def test_mypy_no_attribute_errors_and_no_more_errors_than_the_baseline():
    output, counts = run_mypy()
    baseline = read_baseline()
    forbidden = [line for line in output.splitlines() if any(f"[{code}]" in line for code in NEVER)
                 and ": error: " in line]
    assert not forbidden, "attribute errors are not allowed (fix them, or cast to a precise type):\n" + \
        "\n".join(forbidden)
    above = {key: (n, baseline.get(key, 0)) for key, n in counts.items() if n > baseline.get(key, 0)}
    below = {key: (counts.get(key, 0), n) for key, n in baseline.items() if counts.get(key, 0) < n}
    if below:
        print("mypy: fewer errors than tests/mypy-baseline.txt records; lower it (python tests/test_types.py):")
        for (path, code), (now, was) in sorted(below.items()):
            print(f"  {path}: [{code}] {was} -> {now}")
    new_lines = [line for line in output.splitlines()
                 if (m := ERROR.match(line)) and (m["path"], m["code"]) in above]
    assert not above, "mypy found new errors (more than tests/mypy-baseline.txt allows):\n" + "\n".join(
        f"  {path}: [{code}] {now} > {was}" for (path, code), (now, was) in sorted(above.items())) + \
        "\n" + "\n".join(new_lines)


def test_baseline_has_no_attribute_errors_and_parses():
    baseline = read_baseline()
    assert not [key for key in baseline if key[1] in NEVER]
    assert all(n > 0 for n in baseline.values())


def test_error_lines_are_parsed_with_and_without_columns():
    for line, want in [
        ('tui/a/b.py:12: error: Incompatible types  [assignment]', ("tui/a/b.py", "assignment")),
        ('tui/a/b.py:12:5: error: "X" has no attribute "y"  [attr-defined]', ("tui/a/b.py", "attr-defined")),
    ]:
        m = ERROR.match(line)
        assert m and (m["path"], m["code"]) == want
    assert ERROR.match('tui/a/b.py:12: note: See https://mypy.rtfd.io  [annotation-unchecked]') is None


if __name__ == "__main__":
    sys.stdout.write("# mypy errors allowed per file and code (tests/test_types.py): only ever lower these.\n")
    sys.stdout.write(format_baseline(run_mypy()[1]))
