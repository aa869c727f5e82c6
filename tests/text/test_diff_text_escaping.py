"""`aiagent-monitor diff` text: hostile text from the files is escaped once (a visible `\\x1b`, not `\\\\x1b`), and
every untrusted value is escaped (an op's status is the file's own string)."""

from __future__ import annotations

from helpers.builders import op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.model.diff import diff_sessions
from tui.text.diff_text import render

ESC = "\x1b[31mred\u202e"


def test_hostile_text_is_escaped_once():
    a = build_session(session(turn(1, op("tool", op_id="a", name="t" + ESC)), agent="ag" + ESC, sessionTitle="T" + ESC))
    b = build_session(session(turn(1, op("tool", op_id="a", name="t" + ESC, status="weird" + ESC)),
                              agent="ag" + ESC, sessionTitle="T" + ESC))
    text = "\n".join(render(diff_sessions(a, b, before_label="A", after_label="B")))
    assert "\x1b" not in text and "\u202e" not in text  # nothing reaches the terminal raw
    assert '"T\\x1b[31mred\\u202e"' in text  # the title, escaped once and quoted
    assert "\\\\x1b" not in text and "\\\\u202e" not in text  # never escaped twice
    assert "weird\\x1b[31mred" in text  # the op's status, escaped like the rest
