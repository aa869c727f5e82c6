"""Byte-identical outputs of two checkouts: `dump`, `dump --json`, `dump --insights`, `export --format json` and
`export --format markdown` of every file of a generated sessions directory (`aiagent-monitor generate`, hostile
files included) and of the given files.

    python tests/benchmarks/same_outputs.py /work/main [FILE ...]    # this checkout against /work/main

Prints one line per difference and exits 1 if there is any (not part of the test run: it runs two checkouts'
command lines; tests/formats/test_lazy_load.py checks the same in one process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
EXE = str(Path(sys.executable).with_name("aiagent-monitor"))
COMMANDS = (["dump"], ["dump", "--json"], ["dump", "--insights"], ["export", "--format", "json"],
            ["export", "--format", "markdown"])


def run(root: Path, argv: list[str]) -> tuple[int, bytes, bytes]:
    env = dict(os.environ, PYTHONPATH=str(root), NO_COLOR="1")
    p = subprocess.run([EXE, *argv], capture_output=True, env=env, cwd=root, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main(argv: list[str]) -> int:
    other = Path(argv[0]).resolve()
    files = [Path(a) for a in argv[1:]]
    with tempfile.TemporaryDirectory(prefix="same-outputs-") as tmp:
        subprocess.run([EXE, "generate", "--count", "12", tmp], check=True, capture_output=True,
                       env=dict(os.environ, PYTHONPATH=str(HERE)))
        files += sorted(p for p in Path(tmp).rglob("*") if p.is_file())
        differences = compared = 0
        for path in files:
            for command in COMMANDS:
                argv_ = [*command, str(path)]
                ours, theirs = run(HERE, argv_), run(other, argv_)
                compared += 1
                if ours != theirs:
                    differences += 1
                    print(f"DIFFERENT: {' '.join(argv_)} (exit {ours[0]} / {theirs[0]})")
    print(f"{compared} outputs compared, {differences} different")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
