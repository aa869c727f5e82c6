"""Shared helpers of the benchmark suite: child processes timed with their peak memory, statistics, the table."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PY = sys.executable


@dataclass
class Sample:
    seconds: float
    rss_kb: int  # peak resident set size of the (largest) process


# Measured children keep their compiled bytecode here, outside the checkout: an installed package has its .pyc
# files, so a start-up that compiled every module from source (PYTHONDONTWRITEBYTECODE set in a developer's shell
# or a sandbox) would measure something no user sees.
PYCACHE = Path(tempfile.gettempdir()) / "aiagent-bench-pycache"


def child_env(**extra: str) -> dict:
    """The environment of measured children: this checkout's `tui` first on the path, bytecode cached."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


GNU_TIME = shutil.which("time", path="/usr/bin:/bin") if sys.platform.startswith("linux") else None


def run_timed(argvs: list[list[str]], *, cwd: Path = ROOT, stdout_file: Path | None = None) -> Sample:
    """Run a pipeline (argv | argv | ...) with its output discarded; wall time and the largest peak RSS.

    Peak RSS comes from GNU time when it is installed: a process started straight from this one would report at
    least this process's own peak (Linux carries it over fork and exec)."""
    procs: list[subprocess.Popen] = []
    env = child_env()
    out = open(stdout_file, "wb") if stdout_file is not None else subprocess.DEVNULL
    rss_files = []
    start = time.perf_counter()
    try:
        previous = None
        for i, argv in enumerate(argvs):
            last = i == len(argvs) - 1
            if GNU_TIME:
                fd, rss_file = tempfile.mkstemp(prefix="bench-rss-")
                os.close(fd)
                rss_files.append(rss_file)
                argv = [GNU_TIME, "-f", "%M", "-o", rss_file, *argv]
            p = subprocess.Popen(argv, stdin=previous.stdout if previous else subprocess.DEVNULL,
                                 stdout=out if last else subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
            if previous is not None:
                previous.stdout.close()  # the reader owns the pipe now
            procs.append(p)
            previous = p
        rss = 0
        for p in procs:
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            rss = max(rss, usage.ru_maxrss)
        elapsed = time.perf_counter() - start
    finally:
        if stdout_file is not None:
            out.close()
    if rss_files:
        rss = 0
        for name in rss_files:
            text = Path(name).read_text().split()
            os.unlink(name)
            rss = max(rss, int(text[-1]) if text and text[-1].isdigit() else 0)
    for p, argv in zip(procs, argvs):
        if p.returncode != 0:
            err = p.stderr.read().decode(errors="replace")[-2000:] if p.stderr else ""
            raise RuntimeError(f"failed ({p.returncode}): {' '.join(argv)}\n{err}")
        if p.stderr:
            p.stderr.close()
    return Sample(elapsed, rss)


def run_json(argv: list[str], *, timeout: float = 900, cwd: Path = ROOT) -> dict:
    """Run a child that prints one JSON object as its last stdout line; return it."""
    p = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=child_env(), timeout=timeout)
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"failed ({p.returncode}): {' '.join(argv)}\n{p.stdout[-1500:]}\n{p.stderr[-3000:]}")
    return json.loads(lines[-1])


def summary(values: list[float]) -> dict:
    values = sorted(values)
    return {"median": statistics.median(values), "min": values[0], "max": values[-1], "n": len(values),
            "values": values}


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def fmt_s(value: float) -> str:
    if value != value:
        return "n/a"
    if value < 0.01:
        return f"{value * 1000:.1f} ms"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def fmt_spread(s: dict, fmt=fmt_s) -> str:
    if s["n"] == 1:
        return fmt(s["median"])
    return f"{fmt(s['median'])} ({fmt(s['min'])}–{fmt(s['max'])})"


def fmt_mb(kb: float) -> str:
    return f"{kb / 1024:,.0f} MB"


@dataclass
class Row:
    """One line of the results table: a measure, its reference and the target it is judged against."""

    section: str
    measure: str
    size: str
    value: str
    reference: str = ""
    ratio: float | None = None
    target: str = ""
    holds: bool | None = None
    note: str = ""
    data: dict = field(default_factory=dict)

    def cells(self) -> list[str]:
        ratio = f"{self.ratio:.2f}×" if self.ratio is not None else ""
        holds = {True: "yes", False: "**no**", None: ""}[self.holds]
        return [self.section, self.measure, self.size, self.value, self.reference, ratio, self.target, holds]


HEADERS = ["Section", "Measure", "Size", "aiagent-monitor", "Reference (same run)", "Ratio", "Target", "Holds"]


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row.cells()) + " |")
    return "\n".join(lines)


def ratio_row(section: str, measure: str, size: str, ours: dict, ref_name: str, ref: dict | None, limit: float | None,
              fmt=fmt_s, target_text: str = "", ratios: list[float] | None = None) -> Row:
    """A row comparing our median with a reference median; `limit` is the largest ratio that meets the target.

    `ratios` (per-round ratios, each from runs made back to back) give the ratio's median when present: it is less
    noisy than the ratio of the two medians on a shared machine."""
    value = fmt_spread(ours, fmt)
    if ref is None:
        return Row(section, measure, size, value, f"{ref_name}: not available", None, target_text, None)
    ratio = statistics.median(ratios) if ratios else ours["median"] / ref["median"]
    holds = None if limit is None else ratio <= limit
    return Row(section, measure, size, value, f"{ref_name} {fmt_spread(ref, fmt)}", ratio, target_text, holds)


def machine() -> dict:
    info = {"cpus": os.cpu_count(), "python": sys.version.split()[0], "platform": sys.platform}
    try:
        info["loadavg"] = os.getloadavg()
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info
