"""The browser's model without its screen (tui.catalog.browser_model): listing, fill, filter, sort, summary, twins,
the kept place and the rows a directory watcher's batch makes (tui.catalog.watched_rows). No textual here."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tui.catalog.browser_model import BrowserModel
from tui.catalog.session_row import LIVE_PREFIX, RowKind, SessionRow, kind_of_path, not_a_session, row_from_entry
from tui.catalog.watched_rows import watched_rows
from tui.inputs.watch import DirChanges
from helpers.scanfixtures import CHILD_LEDGER, EMPTY, GOOD_A, GOOD_B, ROOT_LEDGER, RUNNING, T0, make_sessions_dir, \
    session_node, write_snapshot


def loaded(key: str, session_id: str, *, started: int, cost: float | None = None, status: str = "ok",
           kind: str = RowKind.SNAPSHOT, agent: str = "a") -> SessionRow:
    row = row_from_entry(Path(key), started / 1000, 10, kind, key=key, session_id=session_id, loaded=True)
    row.started_at, row.cost, row.status, row.agent, row.tokens = started, cost, status, agent, 5
    return row


def listed_and_filled(sessions: Path) -> BrowserModel:
    model = BrowserModel(sessions, stale_after_s=60)
    model.index = None  # the fill in this thread (the index has its own tests)
    model.finish_scan(model.listing(lambda rows, total: None))
    model.fill(lambda: False)
    model.apply_filled(model.fill_queue.take_results())
    return model


def test_a_listing_is_filled_and_sorted_without_a_screen(tmp_path):
    model = listed_and_filled(make_sessions_dir(tmp_path / "sessions"))
    ids = [model.rows[key].session_id for key in model.compute_view()]
    assert ids[:4] == [GOOD_A, GOOD_B, RUNNING, ROOT_LEDGER]  # newest start first; the sub-agent's ledger is no row
    assert CHILD_LEDGER not in ids and not model.pending
    assert model.rows[next(k for k in model.rows if EMPTY in k)].broken
    model.set_sort("cost")
    costs = [model.rows[key].cost for key in model.compute_view()]
    known = [c for c in costs if c is not None]
    assert known == sorted(known, reverse=True) and costs[: len(known)] == known  # unknown costs last
    assert model.sort_spec == "cost:desc"
    model.set_sort("cost")
    assert model.sort_spec == "cost:asc"  # the same column again reverses


def test_the_filter_language_and_the_summary_of_what_passes(tmp_path):
    model = BrowserModel(None, stale_after_s=60)
    model.clock = lambda: T0 / 1000
    model.upsert([loaded("/s/a.json.gz", "a", started=T0 - 1000, cost=1.0, agent="web"),
                  loaded("/s/b.json.gz", "b", started=T0 - 2000, cost=2.0, agent="chat", status="failed")])
    assert model.compute_view() == ["/s/a.json.gz", "/s/b.json.gz"]
    assert model.set_filter("status:failed") and model.compute_view() == ["/s/b.json.gz"]
    assert not model.set_filter("status:failed  ")  # the same filter: nothing to redo
    assert "1 session" in model.summary_line() and model.summary_line().startswith("shown: ")
    assert model.set_filter("web") and model.compute_view() == ["/s/a.json.gz"]
    assert model.set_filter("kind:live") and model.compute_view() == []
    assert model.note(0, 1000, ()) == "no session matches the filter"


def test_an_unloaded_row_is_queued_and_keeps_the_summary_it_had(tmp_path):
    model = BrowserModel(None, stale_after_s=60)
    model.upsert([loaded("/s/a.json.gz", "a", started=T0, cost=1.5)])
    again = row_from_entry("/s/a.json.gz", T0 / 1000 + 5, 20, RowKind.SNAPSHOT)
    done = model.upsert([again])
    assert model.pending == {"/s/a.json.gz"} and model.fill_queue.next_pending() == "/s/a.json.gz"
    assert model.rows["/s/a.json.gz"].cost == 1.5 and not done.columns  # the last known values until it loads


def test_a_live_row_brings_the_events_column_and_hides_its_file_twin_while_running():
    model = BrowserModel(None, stale_after_s=60)
    model.upsert([loaded("/s/x.json.gz", "x", started=T0)])
    live = loaded(LIVE_PREFIX + "x", "x", started=T0, status="running", kind=RowKind.LIVE)
    done = model.upsert([live])
    assert done.columns and done.reorder and done.live and model.has_live
    assert model.compute_view() == [LIVE_PREFIX + "x"] and model.hidden == {"/s/x.json.gz"}
    ended = loaded(LIVE_PREFIX + "x", "x", started=T0, status="ok", kind=RowKind.LIVE)
    model.upsert([ended])
    assert model.compute_view() == ["/s/x.json.gz"] and model.folded == {"/s/x.json.gz"}
    model.set_filter("kind:live")
    assert model.compute_view() == ["/s/x.json.gz"]  # the folded file row is found as live too


def test_forgotten_live_rows_go_at_the_next_view_past_the_bound():
    model = BrowserModel(None, stale_after_s=60)
    model.forgotten.cap = 1
    model.upsert([loaded(LIVE_PREFIX + f"r{n}", f"r{n}", started=T0 + n, kind=RowKind.LIVE) for n in range(3)])
    model.forget_live_roots(["r0", "r1", "r2"])
    assert model.view_stale and len(model.rows) == 3  # never between two views
    assert model.compute_view() == [LIVE_PREFIX + "r2"] and model.forgotten.dropped == 2


def test_the_kept_place_is_taken_once_its_row_is_in_the_window():
    model = BrowserModel(None, stale_after_s=60, sort="cost:asc", filter_text="web", cursor="/s/b.json.gz")
    assert model.sort_spec == "cost:asc" and model.filter_text == "web"
    model.upsert([loaded("/s/a.json.gz", "a", started=T0, agent="web"),
                  loaded("/s/b.json.gz", "b", started=T0 - 1, agent="web")])
    model.compute_view()
    assert model.take_restore(1) is None  # not among the first row yet
    assert model.take_restore(2) == "/s/b.json.gz" and model.take_restore(2) is None


def test_deleted_files_and_missing_files_go_live_rows_stay(tmp_path):
    model = BrowserModel(None, stale_after_s=60)
    here = tmp_path / "here.json.gz"
    here.write_bytes(b"x")
    model.upsert([loaded(str(here), "here", started=T0), loaded(str(tmp_path / "gone.json.gz"), "gone", started=T0),
                  loaded(LIVE_PREFIX + "l", "l", started=T0, kind=RowKind.LIVE)])
    assert model.missing_files() == [str(tmp_path / "gone.json.gz")]
    assert model.remove_paths([here]) and str(here) not in model.rows
    assert not model.remove_paths([tmp_path / "never.json.gz"])


def test_the_fill_runs_in_a_plain_thread_and_pauses_while_inactive(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    model = BrowserModel(sessions, stale_after_s=60)
    model.index = None
    model.finish_scan(model.listing(lambda rows, total: None))
    model.fill_queue.active.clear()
    thread = threading.Thread(target=model.fill, args=(lambda: False,))
    thread.start()
    thread.join(0.3)
    assert thread.is_alive() and not model.fill_queue.results  # paused: nothing read
    model.fill_queue.active.set()
    thread.join(10)
    assert not thread.is_alive() and model.apply_filled(model.fill_queue.take_results())


def test_a_watcher_batch_becomes_rows_with_their_kinds(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    snapshot = write_snapshot(sessions, "new", session_node("new", "a", "t", started=T0, duration=1), T0 / 1000)
    ledger = sessions / "session" / f"{ROOT_LEDGER}.jsonl"
    plain_dir = sessions / "not-genkit"
    plain_dir.mkdir()
    gone = sessions / "gone.json.gz"
    batch = DirChanges(updated={snapshot, ledger, plain_dir, gone}, removed={sessions / f"{GOOD_B}.json.gz"},
                       complete=True)
    made = watched_rows(batch)
    kinds = {row.key: row.kind for row in made.rows}
    assert kinds == {str(snapshot): RowKind.SNAPSHOT, str(ledger): RowKind.LEDGER}
    assert not any(row.loaded for row in made.rows) and made.complete and made.removed == batch.removed
    assert not watched_rows(DirChanges(updated={gone}))  # nothing left to say
    agent = watched_rows(DirChanges(updated={snapshot}, kinds={snapshot: "claude-code"}))
    assert [row.kind for row in agent.rows] == ["claude-code"]


def test_the_kind_rules_live_in_one_place(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    assert kind_of_path(tmp_path / "x.jsonl") == RowKind.LEDGER
    assert kind_of_path(tmp_path / "x.json.gz") == RowKind.SNAPSHOT
    assert kind_of_path(tmp_path) is None  # a directory without Genkit snapshots
    child = row_from_entry(sessions / "session" / f"{CHILD_LEDGER}.jsonl", 1.0, 10, RowKind.LEDGER)
    root = row_from_entry(sessions / "session" / f"{ROOT_LEDGER}.jsonl", 1.0, 10, RowKind.LEDGER)
    assert not_a_session(child) and not not_a_session(root)
    empty = row_from_entry(sessions / "e.json.gz", 1.0, 0, RowKind.SNAPSHOT)
    assert empty.loaded and empty.broken  # an empty file is loaded at once, broken


def test_the_model_imports_no_textual():
    code = "import sys, tui.catalog.browser_model, tui.catalog.watched_rows; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2], env={**os.environ, "PYTHONPATH": "."})
    assert out.stdout.strip() == "False"


def test_a_sub_agent_ledger_is_no_row_and_a_stale_fill_is_dropped(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    model = BrowserModel(None, stale_after_s=60)
    child_path = sessions / "session" / f"{CHILD_LEDGER}.jsonl"
    model.upsert([loaded(str(child_path), CHILD_LEDGER, started=T0, cost=1.0, kind=RowKind.LEDGER)])
    assert model.compute_view() == [str(child_path)] and "$1" in model.summary_line()
    done = model.upsert([row_from_entry(child_path, 2.0, 10, RowKind.LEDGER)])  # its first line names a parent
    assert done.reorder and str(child_path) not in model.rows
    model.summary_dirty = False
    assert "$1" not in model.summary_line()  # taken out of the summary row by row
    listed = row_from_entry(sessions / "a.json.gz", 5.0, 10, RowKind.SNAPSHOT)
    model.upsert([listed])
    read_before_a_rewrite = loaded(str(sessions / "a.json.gz"), "a", started=T0)  # mtime differs from the listing's
    assert model.apply_filled([read_before_a_rewrite]) == [] and not model.rows[listed.key].loaded


def test_the_fill_reads_the_rows_of_a_rescan_that_came_while_it_waited(tmp_path):
    path = write_snapshot(tmp_path, "a", session_node("a", "agent", "t", started=T0, duration=1), 1.0)
    model = BrowserModel(None, stale_after_s=60)
    model.finish_scan([row_from_entry(path, 1.0, path.stat().st_size, RowKind.SNAPSHOT)])
    model.fill_queue.active.clear()  # another screen on top: the fill waits
    thread = threading.Thread(target=model.fill, args=(lambda: False,))
    thread.start()
    os.utime(path, (2.0, 2.0))  # rewritten meanwhile, and listed again
    model.finish_scan([row_from_entry(path, 2.0, path.stat().st_size, RowKind.SNAPSHOT)])
    model.fill_queue.active.set()
    thread.join(10)
    assert [row.key for row in model.apply_filled(model.fill_queue.take_results())] == [str(path)]
    assert model.rows[str(path)].loaded and model.rows[str(path)].agent == "agent"
