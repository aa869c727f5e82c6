"""The live hub under a stream that misbehaves: rejections counted by reason, duplicates applied once, events out
of order applied where they belong, and events of sessions not seen yet kept and shown."""

from __future__ import annotations

import orjson
import pytest

from helpers.builders import live_event as ev, op, session, turn
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.aiagent.live.order import OrderedText, SeenSequences


def log(seq, message, path="1-1", sid="root", severity="ERR"):
    return ev("log", sid=sid, seq=seq, entry={"timestamp": 1500, "severity": severity, "message": message,
                                               "path": path})


def logs_of(hub, root="root"):
    built = hub.build(root)
    return [entry.get("message") for t in built.turns for o in t.ops for entry in (o.raw.get("logs") or [])]


def running_tree(*logs):
    return session(turn(1, op("llm", ended=None, status=None, logs=list(logs))), ended=None, success=None)


def test_rejections_are_counted_by_reason():
    hub = LiveHub()
    for frame in (b"{nope", b"[1, 2]", b'"text"', ev("bogus"), orjson.dumps({"type": "log"}),
                  orjson.dumps({"type": "op_tree", "meta": {"sessionId": "s"}, "tree": [1]}), "\ufeff{nope"):
        assert hub.feed(frame) is None
    hub.refuse_oversized(100 << 20)
    hub.reject("auth refused", "127.0.0.1:5: wrong token")
    hub.feed(ev("status", seq=1, event={"type": "agent_update"}))
    hub.feed(ev("status", seq=1, event={"type": "agent_update"}))
    assert dict(hub.rejected) == {"malformed JSON": 2, "not an object": 2, "unknown type": 1, "no session id": 1,
                                  "no tree": 1, "oversized": 1, "auth refused": 1, "duplicate": 1}
    assert hub.malformed == 8 and hub.events == 1  # duplicates and refused clients are not "malformed"
    assert hub.rejection_summary() == ("malformed JSON ×2, not an object ×2, unknown type ×1, no session id ×1, "
                                       "no tree ×1, oversized ×1, duplicate ×1, auth refused ×1")
    assert hub.last_rejected.startswith("duplicate: 'root' sequence 1")


def test_a_byte_order_mark_is_ignored():
    hub = LiveHub()
    hub.feed(b"\xef\xbb\xbf" + ev("status", seq=1, event={"type": "agent_update", "message": "bytes"}))
    hub.feed("\ufeff" + ev("status", seq=2, event={"type": "agent_update", "message": "text"}).decode())
    assert hub.events == 2 and not hub.rejected
    assert hub.sessions["root"].status_line.endswith("text")


def test_duplicates_are_applied_once_and_are_not_gaps():
    hub = LiveHub()
    hub.feed(ev("op_tree", seq=1, tree=running_tree()))
    hub.feed(log(2, "once"))
    hub.feed(log(2, "once"))
    hub.feed(ev("output", seq=3, text="abc"))
    hub.feed(ev("output", seq=3, text="abc"))
    live = hub.sessions["root"]
    assert logs_of(hub) == ["once"] and live.output == "abc"
    assert live.duplicates == 2 and live.gaps == 0 and live.events == 3 and hub.rejected["duplicate"] == 2
    # the same sequence number in another session is not a duplicate
    hub.feed(ev("log", sid="kid", parent="root", seq=2, entry={"message": "other session"}))
    assert hub.rejected["duplicate"] == 2 and hub.sessions["kid"].events == 1


def test_reordered_events_fill_their_gap_and_land_in_order():
    hub = LiveHub()
    hub.feed(ev("op_tree", seq=1, tree=running_tree()))
    hub.feed(log(2, "second"))
    hub.feed(log(5, "fifth"))
    live = hub.sessions["root"]
    assert live.gaps == 2  # 3 and 4 not here (yet)
    hub.feed(log(4, "fourth"))
    hub.feed(log(3, "third"))
    assert live.gaps == 0 and live.reordered == 2 and hub.reordered == 2
    assert logs_of(hub) == ["second", "third", "fourth", "fifth"]
    assert hub.counters("root") == (5, 0)


def test_a_late_log_is_not_lost_and_not_doubled():
    hub = LiveHub()
    hub.feed(ev("op_tree", seq=1, tree=running_tree()))
    hub.feed(log(3, "after the first tree"))
    hub.feed(ev("op_tree", seq=4, tree=running_tree({"severity": "ERR", "message": "in tree 4", "path": "1-1"})))
    hub.feed(log(5, "after tree 4"))
    hub.feed(log(2, "late, already in tree 4"))  # tree 4 holds everything sent before it
    assert logs_of(hub) == ["in tree 4", "after tree 4"]
    hub.feed(log(6, "early"))
    hub.feed(ev("op_tree", seq=7, tree=running_tree({"message": "in tree 7", "path": "1-1"})))
    hub.feed(log(9, "after tree 7"))
    hub.feed(log(8, "late, after tree 7"))  # sent after tree 7: not in it, must show
    assert logs_of(hub) == ["in tree 7", "late, after tree 7", "after tree 7"]
    assert hub.sessions["root"].gaps == 0


def test_an_older_tree_arriving_late_does_not_replace_a_newer_one():
    hub = LiveHub()
    hub.feed(ev("op_tree", seq=3, tree=session(turn(1, op("llm")), ended=5000)))
    hub.feed(ev("op_tree", seq=2, tree=running_tree()))
    built = hub.build("root")
    assert built.status == "ok" and hub.sessions["root"].reordered == 1 and hub.sessions["root"].gaps == 0


def test_late_status_and_streamed_text_keep_their_order():
    hub = LiveHub()
    hub.feed(ev("status", seq=1, event={"type": "agent_update", "message": "one"}))
    hub.feed(ev("output", seq=2, text="Hello "))
    hub.feed(ev("status", seq=5, event={"type": "agent_update", "message": "five"}))
    hub.feed(ev("output", seq=4, text="!"))
    hub.feed(ev("output", seq=3, text="world"))
    hub.feed(ev("status", seq=4, event={"type": "agent_update", "message": "dup"}))  # the output's number
    hub.feed(ev("status", seq=0, event={"type": "agent_update", "message": "older"}))
    live = hub.sessions["root"]
    assert live.output == "Hello world!" and live.status_line.endswith("five")
    assert live.duplicates == 1 and live.gaps == 0


def test_events_before_any_tree_are_shown():
    hub = LiveHub()
    hub.feed(ev("log", seq=1, entry={"timestamp": 1200, "severity": "WRN", "message": "early warning"}))
    hub.feed(ev("status", seq=2, event={"type": "agent_started", "agentId": "root"}))
    assert hub.roots() == ["root"]
    built = hub.build("root")
    assert built is not None and "no tree received yet" in built.title and built.started_at == 1200
    assert logs_of(hub) == ["early warning"] and built.counts.warnings == 1
    hub.feed(ev("op_tree", seq=3, tree=running_tree({"message": "early warning", "path": "1-1"})))
    assert logs_of(hub) == ["early warning"] and "no tree" not in hub.build("root").title


def test_a_sub_agent_of_an_unseen_parent_shows_under_its_root():
    hub = LiveHub()
    hub.feed(ev("op_tree", seq=1, tree=running_tree()))
    grandkid = session(turn(1, op("tool", op_id="g")), agent="grandkid", trace="grandkid")
    hub.feed(ev("op_tree", sid="grandkid", parent="kid", origin="root", seq=1, tree=grandkid))
    assert hub.roots() == ["root"]
    built = hub.build("root")
    assert built.counts.sessions == 2 and built.turns[-1].ops[0].child.agent_id == "grandkid"
    hub.feed(ev("status", sid="kid", parent="root", seq=1, event={"type": "agent_started"}))
    built = hub.build("root")  # the parent spoke (no tree yet): the grandchild moves under it
    kid = built.turns[-1].ops[0].child
    assert built.counts.sessions == 3 and kid.agent_id == "kid"
    assert kid.turns[-1].ops[0].child.agent_id == "grandkid"


def test_seen_sequences_runs_and_missing():
    seen = SeenSequences()
    for n in (5, 6, 9, 7, 1):
        assert seen.add(n)
    assert not seen.add(6) and not seen.add(1)
    assert seen.starts == [1, 5, 9] and seen.ends == [1, 7, 9] and seen.missing == 4  # 2, 3, 4, 8
    for n in (8, 2, 3, 4):
        seen.add(n)
    assert seen.starts == [1] and seen.ends == [9] and seen.missing == 0 and 4 in seen and 10 not in seen


@pytest.mark.parametrize("order", [[1, 2, 3, 4], [4, 3, 2, 1], [2, 4, 1, 3]])
def test_ordered_text_is_in_sequence_order_and_bounded(order):
    text = OrderedText(limit=6)
    for n in order:
        text.add("abcd"[n - 1] * 3, n)
    assert str(text) == "cccddd"
    assert len(text.chunks) <= 3
