"""The directory watcher: snapshots in the sessions directory, ledgers in its session/ folder (also when that
folder appears later), nothing deeper."""

from __future__ import annotations

import asyncio
import time

from tui.sources.dir_watch import watch_sessions


async def until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_watches_both_folders_and_a_session_folder_made_later(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    seen: set = set()
    stop = asyncio.Event()
    task = asyncio.create_task(watch_sessions(sessions, lambda b: seen.update(b.updated), stop, debounce_ms=50))
    try:
        await asyncio.sleep(0.3)
        (sessions / "a.json.gz").write_bytes(b"x")
        await until(lambda: sessions / "a.json.gz" in seen)
        (sessions / "session").mkdir()
        (sessions / "session" / "first.jsonl").write_bytes(b"{}\n")
        await until(lambda: sessions / "session" / "first.jsonl" in seen)
        await asyncio.sleep(0.3)
        (sessions / "session" / "second.jsonl").write_bytes(b"{}\n")
        (sessions / "payloads").mkdir()
        (sessions / "payloads" / "c.json.gz").write_bytes(b"x")
        (sessions / "b.json.gz").write_bytes(b"x")
        await until(lambda: {sessions / "session" / "second.jsonl", sessions / "b.json.gz"} <= seen)
        assert sessions / "payloads" / "c.json.gz" not in seen
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
