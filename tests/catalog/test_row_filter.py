"""The browser's filter syntax (tui.catalog.row_filter): words all match; model:, status:, agent: one column."""

from __future__ import annotations

from pathlib import Path

from tui.catalog.row_filter import PLACEHOLDER, RowFilter
from tui.catalog.session_row import SessionRow

NOW = 1_800_000_000.0


def row(sid: str, *, status="ok", models=(), agent="web-research", title="Cheapest flight", mtime=NOW,
        broken="") -> SessionRow:
    r = SessionRow(sid, Path(sid), "snapshot", sid, mtime, 10, loaded=True, broken=broken, agent=agent,
                   title=title, status=status)
    r.models = models
    return r


def test_words_must_all_match_anywhere():
    f = RowFilter.parse("Flight  WEB", now_s=NOW)
    assert f and f.words == ("flight", "web") and not f.terms
    assert f.matches(row("a")) and not f.matches(row("b", title="hotel"))
    assert RowFilter.parse("sonnet", now_s=NOW).matches(row("c", models=("claude-sonnet-4-5",)))
    assert not RowFilter.parse("   ") and RowFilter.parse("").matches(row("d"))


def test_model_term_matches_any_model_of_the_row():
    f = RowFilter.parse("model:HAIKU", now_s=NOW)
    assert f.models == ("haiku",) and not f.words
    assert f.matches(row("a", models=("claude-sonnet-4-5", "claude-haiku-4-5")))
    assert not f.matches(row("b", models=("gpt-5",))) and not f.matches(row("c"))
    both = RowFilter.parse("model:gpt flight", now_s=NOW)
    assert both.matches(row("d", models=("gpt-5",))) and not both.matches(row("e", models=("gpt-5",), title="x"))


def test_status_term_sees_stale_and_broken():
    stale = row("a", status="running", mtime=NOW - 3600)
    running = row("b", status="running", mtime=NOW - 5)
    f = RowFilter.parse("status:stale", now_s=NOW, stale_after_s=600)
    assert f.matches(stale) and not f.matches(running)
    assert RowFilter.parse("status:running", now_s=NOW, stale_after_s=600).matches(running)
    assert not RowFilter.parse("status:running", now_s=NOW, stale_after_s=600).matches(stale)
    assert RowFilter.parse("stale", now_s=NOW, stale_after_s=600).matches(stale)
    assert RowFilter.parse("status:broken", now_s=NOW).matches(row("c", broken="empty file"))


def test_unknown_prefixes_are_plain_words_and_the_placeholder_names_the_syntax():
    f = RowFilter.parse("http://x model: agent:web", now_s=NOW)
    assert f.words == ("http://x", "model:") and f.terms == (("agent", "web"),)
    assert "model:" in PLACEHOLDER and "status:" in PLACEHOLDER and len(PLACEHOLDER) <= 76
    assert all(f"{name}:" in PLACEHOLDER for name in ("since", "until", "day", "kind"))  # issue 30, point 5


def test_project_term_matches_the_rows_project():
    f = RowFilter.parse("project:Calendar", now_s=NOW)
    assert f.terms == (("project", "calendar"),) and not f.words
    calendar, other, none = row("a"), row("b"), row("c")
    calendar.project, other.project = "/home/dev/calendar", "/home/dev/shop"
    assert f.matches(calendar) and not f.matches(other) and not f.matches(none)
    assert RowFilter.parse("project:/home/dev project:shop", now_s=NOW).matches(other)
