"""The directory watcher: snapshots in the sessions directory, ledgers in its session/ folder (also when that
folder appears later), nothing deeper."""

from __future__ import annotations

import asyncio

import pytest

from tui.inputs.watch import watch_sessions
from helpers.waiting import until


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


async def test_a_deleted_and_recreated_directory_is_followed_again(tmp_path):
    """watchfiles' watch dies with its directory: the watcher waits for it, reports what is in it, re-arms."""
    import shutil

    sessions = tmp_path / "sessions"
    (sessions / "session").mkdir(parents=True)
    (sessions / "old.json.gz").write_bytes(b"x")
    seen: set = set()
    removed: set = set()
    statuses: list[str] = []

    def on_changes(batch) -> None:
        seen.update(batch.updated)
        removed.update(batch.removed)

    stop = asyncio.Event()
    task = asyncio.create_task(watch_sessions(sessions, on_changes, stop, debounce_ms=50,
                                              on_status=statuses.append))
    try:
        await asyncio.sleep(0.3)
        shutil.rmtree(sessions)
        await until(lambda: any("was removed" in s for s in statuses))
        (sessions / "session").mkdir(parents=True)
        (sessions / "early.json.gz").write_bytes(b"x")  # written before the new watch: reported as present
        await until(lambda: any("is back" in s for s in statuses))
        await until(lambda: sessions / "early.json.gz" in seen)
        await asyncio.sleep(0.3)
        (sessions / "late.json.gz").write_bytes(b"x")
        (sessions / "session" / "led.jsonl").write_bytes(b"{}\n")
        await until(lambda: {sessions / "late.json.gz", sessions / "session" / "led.jsonl"} <= seen)
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_a_deleted_and_recreated_session_folder_is_followed_again(tmp_path):
    import shutil

    sessions = tmp_path / "sessions"
    (sessions / "session").mkdir(parents=True)
    seen: set = set()
    stop = asyncio.Event()
    task = asyncio.create_task(watch_sessions(sessions, lambda b: seen.update(b.updated), stop, debounce_ms=50))
    try:
        await asyncio.sleep(0.3)
        shutil.rmtree(sessions / "session")
        await asyncio.sleep(0.3)
        (sessions / "session").mkdir()
        await asyncio.sleep(0.3)
        (sessions / "session" / "again.jsonl").write_bytes(b"{}\n")
        await until(lambda: sessions / "session" / "again.jsonl" in seen)
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_files_outside_the_session_folders_are_reported_when_named(tmp_path):
    """A ledger opened from the command line is followed in whatever folder it sits."""
    folder = tmp_path / "anywhere"
    folder.mkdir()
    ledger = folder / "x.jsonl"
    ledger.write_bytes(b"{}\n")
    seen: set = set()
    stop = asyncio.Event()
    task = asyncio.create_task(watch_sessions(folder, lambda b: seen.update(b.updated), stop, debounce_ms=50,
                                              files=(ledger.resolve(),)))
    try:
        await asyncio.sleep(0.3)
        with ledger.open("ab") as f:
            f.write(b"{}\n")
        (folder / "other.jsonl").write_bytes(b"{}\n")
        await until(lambda: ledger.resolve() in seen)
        assert folder.resolve() / "other.jsonl" not in seen
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


def test_snapshot_subdirectories_are_found_and_a_directory_without_them_is_not_listed(tmp_path, monkeypatch):
    """The link count (2 + subdirectories) spares listing 100,000s of files when the only subdirectories are the
    known ones; any other (a Genkit run, a hidden one, a symbolic link posing as session/) makes it list."""
    from tui.inputs import watch

    sessions = tmp_path / "sessions"
    (sessions / "session").mkdir(parents=True)
    (sessions / "payloads").mkdir()
    (sessions / "a.json.gz").write_bytes(b"x")
    listed: list = []
    real_scandir = watch.os.scandir
    monkeypatch.setattr(watch.os, "scandir", lambda path: listed.append(path) or real_scandir(path))
    if watch.os.stat(sessions).st_nlink != 4:
        pytest.skip(f"this filesystem's directory link count says nothing of subdirectories ({tmp_path})")
    assert watch._snapshot_subdirs(sessions) == [] and listed == []
    (sessions / "genkit-run").mkdir()
    assert watch._snapshot_subdirs(sessions) == [sessions / "genkit-run"] and listed == [sessions]
    (sessions / "payloads").rmdir()
    (sessions / "payloads").symlink_to(sessions / "session")  # a link: not a subdirectory in the link count
    (sessions / ".hidden").mkdir()
    assert watch._snapshot_subdirs(sessions) == [sessions / "genkit-run"]
    (sessions / "genkit-run").rmdir()
    assert watch._snapshot_subdirs(sessions) == []  # (listed: the hidden one is counted, not named)
    assert len(listed) == 3
