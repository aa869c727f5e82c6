"""An OTLP log record's severity as the logs pane lists it: a FATAL one (SeverityNumber 21-24, or a record marked
`fatal` as ai-agent's files mark theirs) is FATAL, never ERR (issue 30, point 10)."""

from __future__ import annotations

from tui.formats.otlp.ops import log_entry
from tui.formats.otlp.records import LogRecord
from tui.model.logs import normalise


def _severity(record: LogRecord) -> str:
    return normalise(log_entry(record), None).severity


def test_severity_number_fatal_is_listed_fatal():
    for number in (21, 22, 24):
        assert _severity(LogRecord(1_000_000, "", number, "boom")) == "FATAL"
    assert _severity(LogRecord(1_000_000, "", 17, "bad")) == "ERR"
    assert _severity(LogRecord(1_000_000, "", 13, "meh")) == "WRN"


def test_a_record_marked_fatal_is_fatal_and_the_mark_is_not_a_detail():
    entry = log_entry(LogRecord(1_000_000, "ERR", 17, "boom", {"severity": "ERR", "fatal": True, "x": 1}))
    assert entry["severity"] == "FATAL" and "fatal" not in entry.get("details", {})
    assert normalise(entry, None).fatal
    assert _severity(LogRecord(1_000_000, "ERR", 17, "bad", {"fatal": "yes"})) == "ERR"  # only a real true
