"""Snapshot history: content-addressed versions, deduplication, order, caps, shared storage, rebuilding."""

from __future__ import annotations

import orjson

from helpers.builders import llm_acc, op, session, turn
from tui.demo import make_tree
from tui.formats.aiagent.history import History, summary_of
from tui.formats.aiagent.ledger import LedgerBuilder
from tui.formats.aiagent.snapshot import build_session
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.formats.aiagent.tree_store import TreeStore
from tui.text.summary import root_fields


def add(history: History, key: str, tree: dict, at: float | None = None):
    return history.add_tree(key, tree, summary_of(build_session(tree)), at=at)


def copy(tree: dict) -> dict:
    return orjson.loads(orjson.dumps(tree))


def test_identical_content_is_one_version_even_from_a_fresh_parse():
    tree = make_tree(1, ops=30, depth=2)
    history = History()
    first, grew = add(history, "k", tree)
    again, grew_again = add(history, "k", copy(tree))  # equal content, other objects (a file rewritten)
    assert grew and not grew_again and again is first
    assert len(history.versions("k")) == 1


def test_key_order_does_not_change_the_id():
    a = session(turn(1, op("tool", name="x")))
    b = dict(reversed(list(a.items())))
    history = History()
    assert add(history, "k", a)[0].id == add(history, "j", b)[0].id


def test_versions_are_kept_in_order_with_increasing_sequence_numbers():
    full = make_tree(2, ops=60, depth=2)
    times = event_times(full)
    history = History()
    trees = [tree_at(full, times[n]) for n in (len(times) // 4, len(times) // 2, -1)]
    for n, tree in enumerate(trees):
        add(history, "k", tree, at=100.0 + n)
    versions = history.versions("k")
    assert [v.seq for v in versions] == [1, 2, 3]
    assert [v.at for v in versions] == [100.0, 101.0, 102.0]
    assert versions[0].summary.ops < versions[1].summary.ops < versions[2].summary.ops
    assert versions[-1].summary.status == "ok"
    assert len({v.id for v in versions}) == 3


def test_a_version_rebuilds_to_the_same_tree():
    full = make_tree(3, ops=80, depth=3)
    early = tree_at(full, event_times(full)[40])
    history = History()
    v1, _ = add(history, "k", early)
    add(history, "k", full)
    rebuilt = history.session("k", v1)
    original = build_session(copy(early))
    assert root_fields(rebuilt) == root_fields(original)
    assert rebuilt.totals == original.totals and rebuilt.counts == original.counts
    assert [o.path for o in rebuilt.all_ops()] == [o.path for o in original.all_ops()]
    assert orjson.dumps(history.store_tree("k", v1), option=orjson.OPT_SORT_KEYS) == \
        orjson.dumps(early, option=orjson.OPT_SORT_KEYS)


def test_unchanged_ops_are_stored_once():
    full = make_tree(4, ops=120, depth=2)
    times = event_times(full)
    store = TreeStore()
    store.put(copy(tree_at(full, times[len(times) // 2])))
    half = store.bytes
    store.put(copy(full))
    whole = len(orjson.dumps(full))
    # the second version adds only what changed: far less than a second full copy
    assert store.bytes - half < whole * 0.8
    assert store.bytes < half + whole


def test_content_seen_before_shares_the_earlier_id_and_storage():
    a = session(turn(1, op("tool", name="x")))
    b = session(turn(1, op("tool", name="x"), op("tool", op_id="2", name="y")))
    history = History()
    va, _ = add(history, "k", a)
    add(history, "k", b)
    size = history.stored_bytes("k")
    vc, grew = add(history, "k", copy(a))  # the file was put back as it was
    assert grew and vc.id == va.id and vc.seq == 3 and vc.source == va.source
    assert history.stored_bytes("k") == size


def test_cap_keeps_the_first_and_the_newest_and_frees_storage():
    history = History(max_versions=5)
    # every version's ops are its own (nothing shared): n ops of ~1 kB in version n
    trees = [session(turn(1, *[op("tool", op_id=str(i), payload=f"{n:04}" * 250) for i in range(n)]))
             for n in range(1, 13)]
    for tree in trees:
        add(history, "k", tree)
    versions = history.versions("k")
    assert [v.seq for v in versions] == [1, 9, 10, 11, 12]
    assert history.session("k", versions[0]).counts.ops == 1
    assert history.session("k", versions[-1]).counts.ops == 12
    # the ops of dropped versions are gone from the store: 1 + 9 + 10 + 11 + 12 kept of 78 kB seen
    assert 43_000 < history.stored_bytes("k") < 50_000


def test_byte_cap():
    history = History(max_bytes=20_000)
    for n in range(1, 20):
        add(history, "k", session(turn(1, *[op("tool", op_id=f"{n}-{i}", blob="y" * 3000) for i in range(2)])))
    versions = history.versions("k")
    assert versions[0].seq == 1 and versions[-1].seq == 19 and len(versions) < 19
    assert history.stored_bytes("k") <= 20_000 or len(versions) == 2


def test_sub_agents_are_part_of_the_content():
    child = session(turn(1, op("llm", accounting=[llm_acc(1, 2, cost=0.1)])), agent="child", trace="c")
    changed = session(turn(1, op("llm", accounting=[llm_acc(1, 2, cost=0.2)])), agent="child", trace="c")
    history = History()
    v1, _ = add(history, "k", session(turn(1, op("session", child=child))))
    v2, grew = add(history, "k", session(turn(1, op("session", child=changed))))
    assert grew and v1.id != v2.id
    assert history.session("k", v2).totals.costUsd == 0.2


def test_broken_nodes_are_stored_and_rebuilt():
    tree = session(turn(1, op("tool")), sessionTitle="x")
    tree["turns"].append("not a turn")
    tree["turns"][0]["ops"].append(17)
    history = History()
    version, _ = add(history, "k", tree)
    rebuilt = history.session("k", version)
    assert rebuilt.counts.turns == 2 and rebuilt.turns[1].problems and rebuilt.turns[0].ops[1].problems


def test_ledger_prefixes_are_versions():
    records = [
        {"version": 3, "recordType": "session_start", "seq": 1, "sessionId": "s", "originId": "s",
         "ts": "2026-05-26T11:00:00.000Z", "agentId": "a"},
        {"version": 3, "recordType": "turn_start", "seq": 2, "sessionId": "s", "originId": "s",
         "ts": "2026-05-26T11:00:01.000Z", "turn": 1},
    ]
    history = History()

    def summary(n):
        return summary_of(LedgerBuilder(None).build(records[:n], []))

    v1, _ = history.add_ledger("l", records, 1, summary(1), sessions_dir=None, path="-")
    again, grew = history.add_ledger("l", records, 1, summary(1), sessions_dir=None, path="-")
    assert not grew and again is v1
    v2, grew = history.add_ledger("l", records, 2, summary(2), sessions_dir=None, path="-")
    assert grew and v2.id != v1.id
    assert history.session("l", v1).counts.turns == 0
    assert history.session("l", v2).counts.turns == 1
    # a restarted tail (a new record list) hashes from the start again: same content, same id
    restarted = [dict(r) for r in records]
    v3, _ = history.add_ledger("l", restarted, 1, summary(1), sessions_dir=None, path="-")
    assert v3.id == v1.id


def test_drop_forgets_a_session():
    history = History()
    add(history, "k", session(turn(1, op("tool"))))
    history.drop("k")
    assert not history.has("k") and history.versions("k") == []


def hold_the_first_put(monkeypatch):
    """TreeStore.put held at its first call until `release` is set (`storing` is set once it is held); `calls`: the
    store of each call."""
    import threading

    storing, release, calls = threading.Event(), threading.Event(), []
    put = TreeStore.put

    def held_put(self, tree):
        calls.append(self)
        if len(calls) == 1:
            storing.set()
            release.wait(10)
        return put(self, tree)

    monkeypatch.setattr(TreeStore, "put", held_put)
    return storing, release, calls


def test_reading_the_versions_never_waits_for_a_tree_being_stored(monkeypatch):
    """Storing a big tree takes ~0.1 s (the live thread's); the UI reading the versions meanwhile waited for it:
    a frozen screen. The store is held here until the read has answered (or 3 s have passed, then it fails)."""
    import threading

    history = History()
    add(history, "k", make_tree(1, ops=10, depth=1))
    storing, release, _ = hold_the_first_put(monkeypatch)
    writer = threading.Thread(target=add, args=(history, "k", make_tree(2, ops=10, depth=1)))
    writer.start()
    try:
        assert storing.wait(10)
        seen: list = []
        reader = threading.Thread(target=lambda: seen.append(history.versions("k")))
        reader.start()
        reader.join(3)
        assert not reader.is_alive() and len(seen[0]) == 1  # answered at once, the stored versions as they were
    finally:
        release.set()
        writer.join(10)
    assert len(history.versions("k")) == 2


def test_a_timeline_dropped_while_its_tree_is_stored_gets_the_tree_in_its_new_one(monkeypatch):
    import threading

    history = History()
    storing, release, calls = hold_the_first_put(monkeypatch)
    writer = threading.Thread(target=add, args=(history, "k", make_tree(3, ops=10, depth=1)))
    writer.start()
    assert storing.wait(10)
    history.drop("k")
    release.set()
    writer.join(10)
    versions = history.versions("k")
    assert len(versions) == 1 and len(calls) == 2 and calls[0] is not calls[1]
    assert history.session("k", versions[0]) is not None  # its content is in the store it points to
