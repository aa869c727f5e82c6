"""Coalescing of op_tree frames: every tree a session sends is counted (and ordered) as it arrives, only the newest
one is parsed when the session is built; gaps and malformed frames are counted all the same."""

from __future__ import annotations

import orjson

from helpers.builders import live_event as ev, op, session, turn
from helpers.livehelpers import listening
from helpers.rawclients import raw_unix
from helpers.waiting import until
from tui.formats.aiagent.live.hub import LiveHub


def small_tree_frame(n_ops: int, seq: int, sid: str = "root") -> bytes:
    """A small op_tree frame as producers write it (type, tree, meta last): a few hundred bytes."""
    tree = session(turn(1, *(op("llm", op_id=f"o{i}") for i in range(n_ops))), ended=None, success=None)
    return orjson.dumps({"type": "op_tree", "tree": tree,
                         "meta": {"sessionId": sid, "originId": sid, "sequence": seq}})


def broken(frame: bytes) -> bytes:
    """Not JSON, though its type and meta read fine."""
    return frame.replace(b'"tree":{', b'"tree":{#', 1)


def test_a_small_tree_superseded_before_the_build_is_counted_not_parsed_and_the_newest_wins():
    hub = LiveHub()
    hub.feed(broken(small_tree_frame(1, seq=1)))
    hub.feed(small_tree_frame(2, seq=2))
    hub.feed(small_tree_frame(3, seq=3))
    assert hub.build("root").counts.ops == 3
    tally = hub.tally()
    assert tally.events == 3 and tally.malformed == 0 and tally.gaps == 0


def test_the_newest_tree_broken_is_counted_malformed_when_built_and_its_number_becomes_a_gap():
    hub = LiveHub()
    hub.feed(small_tree_frame(2, seq=1))
    hub.feed(broken(small_tree_frame(4, seq=2)))
    hub.feed(ev("log", seq=5, entry={"timestamp": 5, "severity": "ERR", "message": "late", "path": "1-1"}))
    assert hub.tally().gaps == 2  # 3 and 4 are missing
    built = hub.build("root")
    tally = hub.tally()
    assert built.counts.errors == 1  # the log after it is shown (the tree it replaced unparsed is not)
    assert tally.malformed == 1 and tally.events == 2 and tally.gaps == 3  # (2 was taken back)


async def test_frames_through_a_unix_socket_are_all_accounted_for(sock_dir):
    hub = LiveHub()
    frames = [broken(small_tree_frame(1, seq=1, sid="a")), small_tree_frame(1, seq=1, sid="b"),
              small_tree_frame(2, seq=2, sid="a"), b"{not json", small_tree_frame(5, seq=4, sid="a"),
              ev("log", sid="b", seq=2, entry={"timestamp": 5, "severity": "INF", "message": "x", "path": "1-1"})]
    async with listening(f"unix:{sock_dir / 'm.sock'}", hub, on_rejected=hub.reject) as (url, _):
        _, writer = await raw_unix(url.removeprefix("unix:"))
        writer.write(b"\n".join(frames) + b"\n")  # one write: the frames reach the hub in one read
        await writer.drain()
        await until(lambda: hub.tally().frames == len(frames))
        writer.close()
    assert hub.build("a").counts.ops == 5 and hub.build("b").counts.ops == 1
    tally = hub.tally()
    assert tally.events == 5 and tally.malformed == 1 and tally.gaps == 1  # a's 3 never came
