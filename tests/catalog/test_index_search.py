"""Search across sessions (tui.catalog.index.search): FTS5 on real SQLite files, and where a hit opens."""

from __future__ import annotations

import pytest

from helpers.builders import op, turn
from helpers.builders import session as tree
from helpers.indexdb import create, insert, session
from tui.catalog.index import search
from tui.formats.aiagent.snapshot import build_session


@pytest.fixture
def conn(tmp_path):
    db = create(tmp_path / "index.db")
    insert(db, [
        session(1, title="Weather in Athens", prompt="what is the weather", tools="web_search\nfetch"),
        session(2, title="Disk usage", prompt="why is /var full?", errors="ENOSPC: no space left on device",
                agents="main\nresearcher"),
        session(3, title="Ünïcode façade 日本語", prompt='say "hi" AND NOT (x OR y) NEAR/2 *^:'),
        session(4, kind="child", title="Weather child", prompt="weather"),
    ])
    yield db
    db.close()


@pytest.mark.parametrize("text", ['"', '""', "AND", "OR NOT", "(", ")", "NEAR(", "a:b", "*", "^x", "x*y", "-",
                                  "title:", ":", "\x00", "\ud800", "'; DROP TABLE sessions; --", "{title}:x",
                                  "a" * 5000, " ".join(["w"] * 100)])
def test_any_text_is_a_valid_query(conn, text):
    search.search(conn, text)  # never an sqlite3.OperationalError


def test_words_are_required_prefixes(conn):
    assert [h.session_id for h in search.search(conn, "weath")] == ["s1"]  # the child ledger is not a session
    assert [h.session_id for h in search.search(conn, "weather athens")] == ["s1"]
    assert search.search(conn, "weather disk") == []


def test_operators_and_quotes_are_searched_as_text(conn):
    assert [h.session_id for h in search.search(conn, '"hi" AND NOT')] == ["s3"]
    assert [h.session_id for h in search.search(conn, "NEAR")] == ["s3"]


def test_unicode(conn):
    assert [h.session_id for h in search.search(conn, "façade")] == ["s3"]
    assert [h.session_id for h in search.search(conn, "ÜNÏCODE")] == ["s3"]


def test_hit_names_the_field_that_matched_with_a_snippet(conn):
    (hit,) = search.search(conn, "enospc")
    assert hit.field == "errors" and hit.path == "/sessions/s2.json.gz"
    assert search.segments(hit.snippet)[0] == ("ENOSPC", True)
    assert search.search(conn, "web_search")[0].field == "tools"
    assert search.search(conn, "researcher")[0].field == "agents"
    assert search.search(conn, "athens")[0].field == "title"
    assert hit.as_json()["snippet"].startswith("[ENOSPC]")


def test_field_terms_limit_the_column(conn):
    assert search.search(conn, "tool:fetch")[0].session_id == "s1"
    assert search.search(conn, "title:fetch") == []
    assert search.build_query("error:x tools:y z").match == 'errors : "x"* tools : "y"* "z"*'


def test_empty_index_and_empty_query(tmp_path):
    db = create(tmp_path / "empty.db")
    assert search.search(db, "anything") == []
    assert search.search(db, "   ") == [] and not search.build_query("!!! ...")


def _tree():
    return build_session(tree(
        turn(0, op("system", op_id="a", name="init"), system=True),
        turn(1, op("llm", op_id="b"), op("tool", op_id="c", name="web_search"),
             op("tool", op_id="d", name="fetch", status="failed", error="boom")),
    ))


def test_locate_the_op_a_hit_opens_at():
    root = _tree()
    assert search.locate(root, "title", "weather") == "1-1"  # the first op of the first user turn
    assert search.locate(root, "tools", "fetch") == "1-3"
    assert search.locate(root, "tools", "tool:web") == "1-2"
    assert search.locate(root, "errors", "boom") == "1-3"
    assert search.locate(None, "title", "x") is None
