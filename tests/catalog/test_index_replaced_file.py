"""A session file replaced by one of the same size with its mtime put back (`cp -p`, `rsync -t`, `tar x` into the
same inode) must be read again (issue 28, item 12): size, mtime and inode all match the stored row; the change of
st_ctime_ns is what tells. Real files, the real `cp -p`, the index's own calls (the stats refresh and the browser's
warm listing, from the warm image and from SQLite)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tui.catalog.index import image
from tui.catalog.index.store import image_path
from tui.catalog.index.sync import update_index, warm_scan
from tui.demo import make_tree, write_snapshot


@pytest.mark.parametrize("from_image", [True, False])
def test_a_same_size_file_with_its_mtime_put_back_is_read_again(tmp_path, monkeypatch, from_image):
    if shutil.which("cp") is None:
        pytest.skip("no cp")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sessions = tmp_path / "sessions"
    path = write_snapshot(sessions, make_tree(7, ops=4, depth=0), gzip=False)
    index, _, done = update_index(sessions, pool=False)
    assert index is not None and done.read == 1
    title = index.connection().execute("SELECT title FROM sessions").fetchone()[0]
    assert title and title.encode() in path.read_bytes()
    replacement = tmp_path / "replacement.json"
    replacement.write_bytes(path.read_bytes().replace(title.encode(), b"Q" * len(title.encode())))
    before = os.stat(path)
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    subprocess.run(["cp", "-p", str(replacement), str(path)], check=True)
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    if from_image:
        assert image.save(index) == "" and image.load(index) is not None
    else:
        image_path(index.path).unlink(missing_ok=True)
    rows, warm = warm_scan(sessions, index, prune=False)
    assert warm.from_image is from_image
    assert [row.loaded for row in rows] == [False]  # not taken from the index: the fill reads it
    again, _, done = update_index(sessions, pool=False)
    assert done.read == 1
    assert again.connection().execute("SELECT title FROM sessions").fetchone()[0].startswith("QQQ")
