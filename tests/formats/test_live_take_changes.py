"""LiveHub.take_changes: what changed is handed over once, as one value; nothing outside the hub empties its sets."""

from __future__ import annotations

from helpers.builders import live_event
from tui.formats.aiagent.live.hub import LiveChanges, LiveHub


def test_changes_are_handed_over_once():
    hub = LiveHub()
    assert hub.take_changes() == LiveChanges(frozenset(), frozenset(), frozenset())
    hub.feed(live_event("log", sid="a", seq=1, origin="", entry={"message": "a"}))
    hub.feed(live_event("log", sid="b", seq=1, origin="", entry={"message": "b"}))
    assert hub.has_changes
    assert hub.take_changes() == LiveChanges(frozenset({"a", "b"}), frozenset(), frozenset())
    assert not hub.has_changes and hub.take_changes().changed == frozenset()


def test_a_sub_agent_shown_alone_until_its_parent_speaks_is_merged_not_redrawn():
    hub = LiveHub()
    hub.feed(live_event("log", sid="kid", seq=1, origin="", entry={"message": "k"}))  # a root of its own so far
    assert hub.take_changes().changed == {"kid"}
    hub.feed(live_event("log", sid="kid", seq=2, parent="top", origin="", entry={"message": "k2"}))
    hub.feed(live_event("log", sid="top", seq=1, origin="", entry={"message": "t"}))
    changes = hub.take_changes()
    assert changes.merged == {"kid"} and "kid" not in changes.changed and "top" in changes.changed


def test_a_root_forgotten_and_back_in_one_batch_is_redrawn_not_forgotten():
    hub = LiveHub()
    tree = {"id": "t", "traceId": "t", "turns": []}
    hub.put_otlp("t", tree, {})
    hub.put_otlp("u", dict(tree, id="u", traceId="u"), {})
    hub.take_changes()
    hub.forget_otlp("t")
    hub.forget_otlp("u")
    hub.put_otlp("t", tree, {})  # (a span of the evicted trace came again)
    changes = hub.take_changes()
    assert changes.changed == {"t"} and changes.forgotten == {"u"} and not changes.merged


def test_the_hub_has_no_public_change_sets():
    hub = LiveHub()
    assert not any(hasattr(hub, name) for name in ("changed", "forgotten", "merged"))
