"""The real app in a pseudo-terminal over the corpus: every byte written to the terminal is checked. Escape
sequences, bells, NULs and bidi controls from the data never reach it; they are shown as visible escapes."""

from __future__ import annotations

import re
import shutil

import pytest

from helpers.corpus import build_corpus
from helpers.corpusfix import world_readable_dir
from helpers.ptyrun import run_in_pty

# Once the browser is drawn: filter to the hostile session, open it once its row is read, walk its tree once it is
# drawn and expand a node (its Details show the whole name), open a payload, go back; then filter to the file with
# the hostile name and press Enter (a notification quotes the name); quit. Each step waits for what it needs on
# screen: a fixed schedule lost keys when another test process shared the machine (pytest -n 2). A key is typed as
# soon as what the key before did is on screen, where that writes words of its own: the filter's tally with its one
# row read, the logs pane's title naming the node the cursor is on (its Details are drawn with it), the payload
# screen's notice, the session screen and then the browser back after Esc (the logs' title, the header). Keys after
# one that only moves the focus (/, Enter in the filter) keep a fixed time, as do those that already waited for a
# text (the first screen, Req/Resp, "cannot open"). (Every key waited a fixed 0.3-1.5 s: 17 s a run, 9 s now.)
SHOWN = "shown: 1 session \N{MIDDLE DOT} 1 ".encode()  # the filter's tally line, its one row read (failed/broken)
KEYS = [
    (b"filter", 1.0, b"/"), (None, 0.5, b"hostile-text"), (SHOWN + b"failed", 0, b"\r"), (None, 1.0, b"\r"),
    ("Logs \N{MIDDLE DOT}".encode(), 0, b"j"),  # the session's own logs (no node named): it is drawn
    *((b"Logs " + node, 0, key) for node, key in [(b"Turn 0", b"j"), (b"Turn 1", b"l"), (b"1-1", b"j"),
                                                   (b"1-2", b"j"), (b"1-3", b"j"), (b"Step 1", b"j"),
                                                   (b"S1-1", b"p")]),
    (b"Req/Resp", 0.5, b"v"), (b"nothing decoded", 0, b"\x1b"), (b"Logs S1-1", 0, b"\x1b"),
    (b"sorted by", 0, b"/"), (None, 0.5, b"\x15"), (None, 0.5, b"hostile-name"), (SHOWN + b"broken", 0, b"\r"),
    (None, 1.0, b"\r"), (b"cannot open", 0.3, b"q"),
]


@pytest.fixture(scope="module")
def screen_bytes() -> bytes:
    directory = world_readable_dir("aiagent-pty-")
    try:
        build_corpus(directory, bomb_bytes=200 * 1024 * 1024, payload_bomb_bytes=300 * 1024 * 1024)
        out, status = run_in_pty(["--sessions-dir", str(directory), "--max-bytes", "64M"], KEYS, timeout=60)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    assert status == 0, out[-2000:]
    return out


def test_no_escape_sequence_from_the_data_reaches_the_terminal(screen_bytes):
    out = screen_bytes
    osc = set(re.findall(rb"\x1b\](\d*)", out))
    assert osc <= {b"22"}, f"OSC sequences other than Textual's pointer shape: {osc}"  # no title, link, clipboard
    for sequence in (b"\x1b[2J\x1b[HCLEARED", b"\x1b[HCLEARED", b"\x1b[31mRED", b"\x1b]0;PWNED", b"\x1b]2;PWNED"):
        assert sequence not in out
    assert out.count(b"\x1b[2J") == 0  # nothing clears the screen, the app included
    assert b"\x00" not in out and b"\x08" not in out and b"\xc2\x9b" not in out  # NUL, backspace, C1 CSI
    assert b"\xe2\x80\xae" not in out and b"\xe2\x81\xa6" not in out  # U+202E, U+2066 (bidi override, isolate)


def test_the_hostile_text_was_on_screen_as_visible_escapes(screen_bytes):
    out = screen_bytes
    assert b"\\x1b]0;PWNED-TITLE\\x07" in out  # a title, a label or a log line with the text made visible
    assert b"\\u202eREVERSED" in out
    assert b"MARKUP[/]" in out  # markup shown as typed
    assert b"hostile-name-\\x1b]0;PWNED-NAME\\x07[red]x[bold]\\u202e" in out  # the file name, in the notification
    assert b"not UTF-8 text" in out or b"symbolic link loop" in out  # broken rows said why
