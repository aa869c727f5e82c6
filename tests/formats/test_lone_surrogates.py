"""Lone surrogate escapes are read, shown as U+FFFD (issue 12, point 11).

ai-agent truncates long strings; Node's JSON.stringify writes a string cut inside an emoji as a lone surrogate
escape: `"…\\ud83d"` (high, its low half cut away) or `"\\ude00…"` (low, its high half cut away). That is valid
JSON, which orjson refuses. Before, a snapshot holding one was "invalid JSON", a live event was dropped and a ledger
line lost its turn (its ops, its sub-agent, its tokens). The fixtures below are what Node writes for
`JSON.stringify("cut " + "😀".slice(0, 1))` and for `"😀".slice(1)`.
"""

from __future__ import annotations

import asyncio
import gzip
import tempfile
from pathlib import Path

import orjson
import pytest

from helpers.corpus import ledger, ledger_op, op, session, snapshot_bytes, turn
from tui.formats.aiagent.ledger import parse_records
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.load import load
from tui.inputs.json_load import loads, without_lone_surrogates
from tui.payloads.decode import decode_bytes

HIGH, LOW, PAIR = b"\\ud83d", b"\\ude00", b"\\ud83d\\ude00"
FFFD = "\ufffd"


def node_js(value: object) -> bytes:
    """`value` as JSON with the markers @HIGH@, @LOW@ and @PAIR@ written the way Node escapes them."""
    return orjson.dumps(value).replace(b"@HIGH@", HIGH).replace(b"@LOW@", LOW).replace(b"@PAIR@", PAIR)


def test_orjson_alone_refuses_them():
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(b'"' + HIGH + b'"')  # the reason this module exists


@pytest.mark.parametrize("text, want", [
    (b'"cut \\ud83d"', f"cut {FFFD}"),  # lone high (the usual cut: the string ends inside the emoji)
    (b'"\\ude00 rest"', f"{FFFD} rest"),  # lone low
    (b'"\\ud83d\\ude00"', "😀"),  # a valid pair still decodes to the emoji
    (b'"\\ud83d\\ud83d\\ude00"', f"{FFFD}😀"),  # a lone high right before a pair
    (b'"\\ude00\\ud83d"', FFFD * 2),  # low then high: neither is a pair
    (b'"\\\\ud83d"', "\\ud83d"),  # an escaped backslash before u: text, not an escape
    (b'"\\\\\\ud83d"', f"\\{FFFD}"),  # an escaped backslash, then a real lone escape
    (b'"\\\\\\\\ud83d"', "\\\\ud83d"),  # two escaped backslashes: text again
    (b'{"k\\uDC00": ["\\uD83D", 1]}', {f"k{FFFD}": [FFFD, 1]}),  # keys too; upper-case hex digits
])
def test_loads_reads_lone_surrogates_as_fffd(text, want):
    assert loads(text) == want
    assert loads(text.decode("ascii")) == want  # live frames may come as str
    assert loads(memoryview(text)) == want


def test_other_errors_are_still_errors_at_the_same_position():
    with pytest.raises(orjson.JSONDecodeError) as broken:
        loads(b'["\\ud83d", oops]')
    with pytest.raises(orjson.JSONDecodeError) as plain:
        orjson.loads(b'["\\ufffd", oops]')
    assert str(broken.value) == str(plain.value)
    assert without_lone_surrogates(b'{"no": "escape"}') is None  # nothing to mend: the original error stands


def test_snapshot_with_lone_surrogates_loads(tmp_path):
    tree = session(turn(1, op("tool", "cut @HIGH@"), op("tool", "@LOW@ tail")), agent="cut",
                   sessionTitle="Title cut @HIGH@", summary="pair @PAIR@ kept")
    path = tmp_path / "cut.json.gz"
    path.write_bytes(gzip.compress(snapshot_bytes(tree).replace(b"@HIGH@", HIGH).replace(b"@LOW@", LOW)
                                   .replace(b"@PAIR@", PAIR)))
    doc = load(str(path))
    assert doc.root.title == f"Title cut {FFFD}"
    assert [o.name for o in doc.root.turns[0].ops] == [f"cut {FFFD}", f"{FFFD} tail"]
    assert doc.root.raw["summary"] == "pair 😀 kept"


def test_ledger_line_with_a_lone_surrogate_keeps_its_turn(tmp_path):
    ops = [ledger_op(1, "llm", "answer @HIGH@", accounting={"tokensIn": 120, "tokensOut": 30}),
           ledger_op(2, "session", "kid", childSessions=[{"sessionId": "kid", "ledgerPath": "session/kid.jsonl"}])]
    (tmp_path / "session").mkdir()
    (tmp_path / "session" / "kid.jsonl").write_bytes(
        ledger("kid", [ledger_op(1, "tool", "@LOW@ search")], parent="root").replace(b"@LOW@", LOW))
    data = ledger("root", ops).replace(b"@HIGH@", HIGH).replace(b"@LOW@", LOW)
    records, problems, _ = parse_records(data)
    assert problems == [] and [r["recordType"] for r in records][2] == "turn_end"
    path = tmp_path / "session" / "root.jsonl"
    path.write_bytes(data)
    root = load(str(path)).root
    assert [o.name for o in root.turns[0].ops] == [f"answer {FFFD}", "kid"]
    assert root.totals.tokensIn == 120 and root.totals.tokensOut == 30
    child = root.turns[0].ops[1].child
    assert child is not None and child.turns[0].ops[0].name == f"{FFFD} search"


def test_payload_json_body_with_lone_surrogates_is_pretty_printed():
    view = decode_bytes(node_js({"content": "cut @HIGH@", "other": "@LOW@x", "ok": "@PAIR@"}))
    assert view.kind == "json", view.notes
    assert orjson.loads(view.pretty) == {"content": f"cut {FFFD}", "other": f"{FFFD}x", "ok": "😀"}


def status_event(seq: int, message: str) -> bytes:
    return node_js({"type": "status", "event": {"type": "agent_update", "message": message},
                    "meta": {"sessionId": "s1", "sequence": seq}})


async def test_live_events_with_lone_surrogates_over_real_sockets(tmp_path):
    """Over WebSocket (a text frame) and a Unix socket (lines; the last one ends without its newline)."""
    from websockets.asyncio.client import connect as ws_connect

    from helpers.livehelpers import listening
    from helpers.waiting import until

    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub) as (url, _):
        async with ws_connect(url) as ws:
            await ws.send(status_event(1, "thinking @HIGH@").decode(), text=True)
            await until(lambda: hub.events == 1)
    assert hub.malformed == 0 and hub.sessions["s1"].status_line.endswith(f"thinking {FFFD}")

    with tempfile.TemporaryDirectory(prefix="aim-") as short:  # a Unix socket path must be short
        async with listening(f"unix:{Path(short) / 'm.sock'}", hub) as (url, _):
            reader, writer = await asyncio.open_unix_connection(url.removeprefix("unix:"))
            writer.write(status_event(2, "@LOW@ line") + b"\n" + status_event(3, "last @HIGH@"))
            await writer.drain()
            writer.close()
            await writer.wait_closed()
            await until(lambda: hub.events == 3)
    assert hub.malformed == 0 and sum(hub.rejected.values()) == 0
    assert hub.sessions["s1"].status_line.endswith(f"last {FFFD}")


def test_payload_body_with_a_big_integer_and_a_lone_surrogate():
    """Integers past 64 bits send the body to the stdlib parser, which would keep the lone surrogate as a
    character no terminal encoding can write: it is mended to U+FFFD first."""
    view = decode_bytes(b'{"id": 12345678901234567890123, "content": "cut ' + HIGH + b'"}')
    assert view.kind == "json", view.notes
    assert "12345678901234567890123" in view.pretty and f"cut {FFFD}" in view.pretty
    view.pretty.encode("utf-8")  # no lone surrogate left


def test_tool_call_arguments_with_a_lone_surrogate():
    from tui.payloads.op_captures import _pretty_args

    lines = _pretty_args('{"query": "cut \\ud83d", "n": 12345678901234567890123}')
    assert f'  "query": "cut {FFFD}",' in lines
    "\n".join(lines).encode("utf-8")
