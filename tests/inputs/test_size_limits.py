"""Size limits: a gzip bomb is refused once past the cap without holding more than the cap in memory."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from helpers.corpus import bomb, single_member_bomb
from helpers.corpusfix import ROOT
from tui.formats.load import load
from tui.inputs import files as source_bytes
from tui.inputs.files import LoadError, gunzip, parse_size, read_source

MiB = 1024 * 1024
# Runs a command and reports its exit status, stderr and peak resident memory (KiB on Linux).
MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(json.dumps({"rc": done.returncode, "stderr": done.stderr.decode("utf-8", "replace"),
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def peak(*args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "tui", *args], capture_output=True,
                         env=env, timeout=300, check=True)
    return json.loads(out.stdout)


def test_bomb_refused_without_using_more_memory_than_the_cap(tmp_path):
    """A 2 GiB bomb (2 MB on disk) with a 50 MiB cap: refused, and the process peaks near baseline + cap."""
    cap = 50 * MiB
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(single_member_bomb(2048 * MiB, b'{"version": 2, "opTree": {"turns": []}, "pad": "'))
    small = tmp_path / "small.json.gz"
    small.write_bytes(gzip.compress(b'{"version": 2, "opTree": {"turns": []}}'))
    baseline = peak("dump", "--json", "--max-bytes", "50M", str(small))
    assert baseline["rc"] == 0, baseline
    result = peak("dump", "--json", "--max-bytes", "50M", str(path))
    assert result["rc"] == 2 and "past the 52,428,800-byte limit (gzip bomb?)" in result["stderr"], result
    grown = (result["maxrss_kib"] - baseline["maxrss_kib"]) * 1024
    print(f"bomb: peak RSS {result['maxrss_kib'] / 1024:.0f} MiB, baseline {baseline['maxrss_kib'] / 1024:.0f} MiB, "
          f"grown {grown / MiB:.0f} MiB for a {cap / MiB:.0f} MiB cap")
    assert grown < cap + 16 * MiB, f"grew {grown / MiB:.0f} MiB"


def test_gunzip_stops_past_the_cap_single_and_multi_member():
    for data in (single_member_bomb(48 * MiB), bomb(48 * MiB)):
        with pytest.raises(LoadError, match="past the 10,485,760-byte limit"):
            gunzip(data, "x", 10 * MiB)
        assert len(gunzip(data, "x", 48 * MiB)) == 48 * MiB  # exactly at the cap is fine


def test_gunzip_reads_what_gzip_writes():
    payload = os.urandom(3 * MiB) + b"x" * (20 * MiB)  # incompressible, then very compressible
    assert gunzip(gzip.compress(payload), "x") == payload
    assert gunzip(gzip.compress(b"a") + gzip.compress(b"b") + b"\0\0garbage", "x") == b"ab"
    with pytest.raises(LoadError, match="truncated gzip"):
        gunzip(gzip.compress(payload)[:-100], "x")


def test_plain_file_over_the_cap_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(3 * MiB)  # sparse: costs no disk
    with pytest.raises(LoadError, match="3,145,728 bytes on disk: larger than the 1,048,576-byte limit"):
        read_source(str(path), 1 * MiB)


def test_cap_is_configurable(tmp_path):
    path = tmp_path / "s.json.gz"
    path.write_bytes(gzip.compress(b'{"version": 2, "opTree": {"turns": []}, "pad": "' + b" " * 5000 + b'"}'))
    before = source_bytes.document_limit()
    try:
        source_bytes.set_document_limit(4096)
        with pytest.raises(LoadError, match="4,096-byte limit"):
            load(str(path))
    finally:
        source_bytes.set_document_limit(before)
    assert load(str(path)).root is not None
    assert source_bytes.DEFAULT_MAX_BYTES == 1024 * MiB
    assert [parse_size(t) for t in ("1073741824", "512M", "1G", "1GiB", "50MB", "2k")] == [
        1024 * MiB, 512 * MiB, 1024 * MiB, 1024 * MiB, 50 * MiB, 2048]
    for bad in ("", "x", "-1", "0", "1Q"):
        with pytest.raises(ValueError):
            parse_size(bad)
