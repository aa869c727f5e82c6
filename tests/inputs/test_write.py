"""tui.inputs.write: a payload saved with `w` is a new private file, never over another, never through a link,
never in a sessions directory."""

from __future__ import annotations

import tempfile

from tui.inputs.write import save_directory, write_new_file

DATA = bytes(range(256))


def test_a_new_name_each_time_never_overwriting(tmp_path):
    first = write_new_file(tmp_path, "op-7-response-raw.bin", DATA)
    second = write_new_file(tmp_path, "op-7-response-raw.bin", b"other")
    assert first == (tmp_path / "op-7-response-raw.bin").resolve() and first.read_bytes() == DATA
    assert second.name == "op-7-response-raw-1.bin" and second.read_bytes() == b"other"
    assert write_new_file(tmp_path, "noext", b"x").name == "noext"
    assert write_new_file(tmp_path, "noext", b"y").name == "noext-1"


def test_private_and_never_through_a_planted_link(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep me")
    (tmp_path / "op-7-response-raw.bin").symlink_to(victim)
    dangling = tmp_path / "op-7-response-raw-1.bin"
    dangling.symlink_to(tmp_path / "nowhere")  # a link to nothing yet: following it would create the target
    saved = write_new_file(tmp_path, "op-7-response-raw.bin", DATA)
    assert saved.name == "op-7-response-raw-2.bin" and saved.read_bytes() == DATA
    assert victim.read_bytes() == b"keep me" and not (tmp_path / "nowhere").exists()
    assert (saved.stat().st_mode & 0o777) == 0o600


def test_never_in_a_sessions_directory_and_unpredictable_in_the_temporary_one(tmp_path, monkeypatch):
    sessions, temp, elsewhere = tmp_path / "sessions", tmp_path / "temp", tmp_path / "work"
    for folder in (sessions, temp, elsewhere, sessions / "session"):
        folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # where "the system's temporary directory" is, for this test
    monkeypatch.chdir(elsewhere)
    assert save_directory(None, sessions) == elsewhere.resolve()
    monkeypatch.chdir(sessions / "session")  # anywhere inside a sessions directory
    assert save_directory(None, sessions) == temp
    monkeypatch.chdir(sessions)
    directory = save_directory(sessions)
    saved = write_new_file(directory, "op-7-response-raw.bin", DATA)
    assert saved.parent == temp.resolve() and saved.read_bytes() == DATA and list(sessions.iterdir()) == [
        sessions / "session"]
    assert saved.name != "op-7-response-raw.bin" and saved.name.startswith("op-7-response-raw-")
    assert saved.name.endswith(".bin") and (saved.stat().st_mode & 0o777) == 0o600
