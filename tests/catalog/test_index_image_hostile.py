"""Hostile warm images (issue 28, item 5): bytes anyone with the user's rights can drop beside the index. 29 bytes
of marshal (a set holding a tuple that holds itself) crashed the interpreter at every start; an image of the right
format with a str cost, or with made-up titles and costs, was taken for the files' rows. Each image is written as a
forger would (the layout and checksum of the code they read), and loaded in a subprocess where it could crash."""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import msgspec

from helpers.scanfixtures import GOOD_A, make_sessions_dir
from tui.catalog.index.store import image_path, open_index
from tui.catalog.index.sync import refresh, warm_scan
from tui.catalog.scan import scan

ROOT = Path(__file__).resolve().parents[2]
# The layout of version 1 (marshal, crc32 of the body) and of version 2 (msgpack, a keyed BLAKE2b of head and body)
OLD_MAGIC, NEW_MAGIC = b"AIMWARM\x01", b"AIMWARM\x02"
SELF_HOLDING = b"<\x01\x00\x00\x00\xa9\x01r\x00\x00\x00\x00"  # marshal: {t} where t = (t,): hashing t recurses


def indexed(tmp_path: Path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, notice = open_index(sessions)
    assert index is not None, notice
    assert refresh(index, scan(sessions), pool=False).error == ""
    return sessions, index


def load_in_a_child(tmp_path: Path, sessions: Path) -> subprocess.CompletedProcess:
    code = ("import sys; from tui.catalog.index.store import open_index; from tui.catalog.index.sync import warm_scan;"
            "index, _ = open_index(sys.argv[1]); rows, result = warm_scan(sys.argv[1], index, prune=False);"
            "print(len(rows), result.from_image)")
    return subprocess.run([sys.executable, "-c", code, str(sessions)], capture_output=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]})


def old_image(index, body: bytes, head: bytes | None = None) -> bytes:
    created, generation = index.state()
    if head is None:
        from tui.catalog.session_row import SessionRow
        import dataclasses
        fmt = (f"aiagent-monitor warm image 1; marshal {marshal.version}; python {sys.version_info[0]}."
               f"{sys.version_info[1]}; " + ",".join(f.name for f in dataclasses.fields(SessionRow)))
        head = marshal.dumps((fmt, created, generation, len(body)))
    return OLD_MAGIC + struct.pack("<II", len(head), zlib.crc32(body)) + head + body


def test_a_29_byte_marshal_image_never_crashes_the_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sessions, index = indexed(tmp_path)
    path = image_path(index.path)
    for magic in (OLD_MAGIC, NEW_MAGIC):
        path.write_bytes(magic + struct.pack("<II", len(SELF_HOLDING), 0) + SELF_HOLDING + b"\0")
        result = load_in_a_child(tmp_path, sessions)
        assert result.returncode == 0, (magic, result.returncode, result.stderr.decode()[-500:])
        assert result.stdout.split()[1] == b"False"  # ignored: the rows came from SQLite


def values_of(index, sessions: Path) -> dict:
    rows, result = warm_scan(sessions, index, prune=False)
    assert result.from_image
    from tui.catalog.index import image
    return {row.key: tuple(getattr(row, f) for f in image.VALUE_FIELDS) for row in rows if row.loaded}


def test_a_right_format_image_with_a_str_cost_or_made_up_values_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sessions, index = indexed(tmp_path)
    good = values_of(index, sessions)
    key = str(sessions.resolve() / f"{GOOD_A}.json.gz")
    cost_at = 13  # (VALUE_FIELDS: ..., tokens, cost, ...)
    str_cost = {**good, key: good[key][:cost_at] + ("$5",) + good[key][cost_at + 1:]}
    made_up = {**good, key: good[key][:8] + ("MADE UP",) + good[key][9:cost_at] + (99.0,) + good[key][cost_at + 1:]}
    created, generation = index.state()
    for values in (str_cost, made_up):
        check(index, sessions, key, old_image(index, marshal.dumps(values)))  # as today's forger would
        from tui.catalog.index import image
        body = msgspec.msgpack.encode(values)  # the new layout, made without the index's key
        head = msgspec.msgpack.encode((image.FORMAT, created, generation, len(body)))
        digest = hashlib.blake2b(head + body, key=b"guessed", digest_size=16).digest()
        check(index, sessions, key, NEW_MAGIC + struct.pack("<I16s", len(head), digest) + head + body)
        if values is str_cost:  # a writer that read the index's key: the typed decode refuses the str
            digest = hashlib.blake2b(head + body, key=index.image_key(), digest_size=16).digest()
            check(index, sessions, key, NEW_MAGIC + struct.pack("<I16s", len(head), digest) + head + body)


def check(index, sessions: Path, key: str, forged: bytes) -> None:
    image_path(index.path).write_bytes(forged)
    rows, result = warm_scan(sessions, index, prune=False)
    shown = {row.key: row for row in rows}
    assert not result.from_image
    assert shown[key].title != "MADE UP" and shown[key].cost != 99.0
    assert all(row.cost is None or isinstance(row.cost, float) for row in rows)
