"""The producer's orchestration bug (formats.md §6): a handoff child shares its master's originId, so its final
snapshot replaces the master's file. The real handoff run's file is named after the master and holds the formatter:
every view says so and none presents it as the master."""

from __future__ import annotations

import shutil
import subprocess
import sys

import orjson

from helpers.realfixtures import HANDOFF_FILE, HANDOFF_TRACE, snapshot
from tui.catalog.index.indexer import index_file
from tui.catalog.session_row import fill_row, matches, row_from_entry
from tui.formats.aiagent.file_identity import MARK, misfiled
from tui.formats.load import load
from tui.text.ascii_tree import session_line

MASTER_ID = HANDOFF_FILE.name.removesuffix(".json.gz")


def test_the_handoff_file_holds_another_session():
    root = load(str(HANDOFF_FILE)).root
    assert root.trace_id == HANDOFF_TRACE and root.misfiled == MASTER_ID
    assert "FILE ID MISMATCH" in session_line(root)
    assert load(str(snapshot("master"))).root.misfiled == ""


def test_only_the_producers_names_are_compared():
    assert misfiled(f"/x/{MASTER_ID}.json.gz", HANDOFF_TRACE) == MASTER_ID
    assert misfiled(f"/x/{MASTER_ID}.json", HANDOFF_TRACE) == MASTER_ID
    assert misfiled(f"/x/{MASTER_ID.upper()}.json.gz", MASTER_ID) == ""  # the same id, in capitals
    assert misfiled("/x/my copy.json.gz", HANDOFF_TRACE) == ""  # renamed by a person: says nothing
    assert misfiled(f"/x/{MASTER_ID}.json.gz", "") == ""  # a tree without a traceId: nothing to compare
    assert misfiled("", HANDOFF_TRACE) == "" and misfiled("-", HANDOFF_TRACE) == ""


def test_the_browser_row_and_the_index_mark_it(tmp_path):
    path = tmp_path / HANDOFF_FILE.name
    shutil.copy(HANDOFF_FILE, path)
    row = fill_row(row_from_entry(path, 0.0, path.stat().st_size, "snapshot"))
    assert row.title.startswith(MARK) and HANDOFF_TRACE[:8] in row.title and row.agent == "formatter"
    assert matches(row, "misfiled") and not matches(fill_row(row_from_entry(snapshot("master"), 0.0, 1,
                                                                             "snapshot")), "misfiled")
    assert index_file(str(path), "snapshot")["title"] == row.title  # the sessions index keeps the same title


def run_dump(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tui", "dump", *args], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout)


def test_dump_json_says_so():
    out = run_dump("--json", str(HANDOFF_FILE))
    assert out["root"]["traceId"] == HANDOFF_TRACE
    mismatch = out["fileIdMismatch"]
    assert mismatch["fileId"] == MASTER_ID and mismatch["traceId"] == HANDOFF_TRACE
    assert MASTER_ID in mismatch["problem"] and "handoff:formatter" in mismatch["problem"]
    insights = run_dump("--json", "--insights", str(HANDOFF_FILE))
    assert insights["fileIdMismatch"] == mismatch and insights["insights"]["fileIdMismatch"] == mismatch
    assert "fileIdMismatch" not in run_dump("--json", str(snapshot("master")))
    text = subprocess.run([sys.executable, "-m", "tui", "dump", "--insights", str(HANDOFF_FILE)],
                          capture_output=True, timeout=60).stdout.decode()
    assert text.startswith("FILE ID MISMATCH: file named after session " + MASTER_ID)
