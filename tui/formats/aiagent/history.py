"""The distinct versions a watched session went through, so the user can step back through them and diff them.

Per session key (a file's resolved path, or `live:<root>`), an ordered timeline of versions. A version is named by
the hash of its content, as in Genkit's session snapshots: a snapshot tree by its Merkle root (tree_store), a v3
ledger by a hash chained over its records. The same content as the newest version adds nothing; content seen
before (a file put back) adds a timeline entry that shares the earlier version's id and storage.

Costs, by design:
- Hashing runs where the caller is: the app calls `add_*` from the worker thread that just loaded the file (or,
  for live streams, from a background worker at most once a second per session), never on the UI thread.
- Memory: snapshot trees share every unchanged node across versions (tree_store), so the cost of a version is
  the ops that changed in it. v3 ledgers are append-only: a version is a prefix of the tail's record list
  (shared, nothing copied); sub-agent ledgers are read from disk when an old version is rebuilt, as they are now.
- Caps: at most `max_versions` entries (AIAGENT_MONITOR_HISTORY_VERSIONS, default 200) and about `max_bytes` of
  distinct stored content (AIAGENT_MONITOR_HISTORY_MB, default 512) per session; past them the oldest entries
  after the first are dropped (the first is kept: "what changed since I opened it" stays answerable).
- Old versions are rebuilt into Session trees only when viewed or diffed.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path

import orjson

from tui.formats.aiagent.ledger import ledger_session
from tui.formats.aiagent.snapshot import build_session
from tui.formats.aiagent.tree_store import DIGEST_SIZE, TreeStore
from tui.model.format import fmt_ts
from tui.model.gc_pause import paused_gc
from tui.model.nodes import Session, user_turns

DEFAULT_MAX_VERSIONS = int(os.environ.get("AIAGENT_MONITOR_HISTORY_VERSIONS", 200))
DEFAULT_MAX_BYTES = int(float(os.environ.get("AIAGENT_MONITOR_HISTORY_MB", 512)) * 1024 * 1024)


@dataclass(frozen=True, slots=True)
class Summary:
    """What a version list shows about a version without rebuilding it."""

    ops: int = 0
    turns: int = 0
    failed: int = 0
    status: str = ""
    tokens: int = 0
    cost: float = 0.0


def summary_of(session: Session) -> Summary:
    t = session.totals
    return Summary(ops=session.counts.ops, turns=user_turns(session),  # Turns: one meaning everywhere
                   failed=session.counts.failed, status=session.status, tokens=t.tokensIn + t.tokensOut,
                   cost=t.cost)


@dataclass(frozen=True, slots=True)
class LedgerPrefix:
    """A v3 ledger as it was: the first `count` records of an append-only record list."""

    records: list
    count: int
    sessions_dir: Path | None
    path: str


@dataclass(frozen=True, slots=True)
class Version:
    id: str  # hex content hash: equal ids mean equal content
    seq: int  # 1, 2, 3... in the order first seen; kept when older entries are dropped
    at: float  # wall-clock time it was seen (s)
    summary: Summary
    source: bytes | LedgerPrefix  # a tree_store digest, or a ledger prefix
    clock_ms: int  # "now" for this version's running nodes, in the session's own time

    @property
    def short_id(self) -> str:
        return self.id[:8]


class _Timeline:
    __slots__ = ("versions", "store", "next_seq", "ledger_chain", "writing")

    def __init__(self) -> None:
        self.versions: list[Version] = []
        self.store = TreeStore()
        self.next_seq = 1
        self.ledger_chain: tuple[list, int, bytes] | None = None  # (record list, records hashed, chained digest)
        self.writing = threading.Lock()  # one tree stored at a time (History.add_tree); readers never wait for it


class History:
    """Timelines of every watched session. Thread-safe: workers add, the UI reads."""

    def __init__(self, max_versions: int = DEFAULT_MAX_VERSIONS, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_versions = max(2, max_versions)
        self.max_bytes = max_bytes
        self._timelines: dict[str, _Timeline] = {}
        self._lock = threading.Lock()

    # adding ---------------------------------------------------------------------------------------------
    def add_tree(self, key: str, tree: object, summary: Summary, at: float | None = None,
                 clock_ms: int | None = None) -> tuple[Version, bool]:
        """Record a SessionNode tree; returns (its version, whether the timeline grew).

        The tree is stored (hashed and encoded: ~0.1 s for the 20,000-op tree) outside the lock the UI's reads
        take: the live session's screen asking for its versions waited for it, the UI frozen meanwhile (113 ms as
        the screen opened during the replay of the "Live" rows). Only adding blobs happens outside; dropping them
        (the caps) holds both locks, and a store only grows while its timeline's `writing` lock is held."""
        while True:
            with self._lock:
                timeline = self._timelines.setdefault(key, _Timeline())
            with timeline.writing:
                digest = timeline.store.put(tree)
                with self._lock:
                    if self._timelines.get(key) is timeline:
                        version, grew = self._append(timeline, digest.hex(), digest, summary, at, clock_ms)
                        self._enforce_caps(timeline)
                        return version, grew
            # the key's timeline was dropped while the tree was stored: store it again in the key's new one

    def add_ledger(self, key: str, records: list, count: int, summary: Summary, *, sessions_dir: Path | None,
                   path: str, at: float | None = None) -> tuple[Version, bool]:
        """Record the first `count` records of an append-only ledger record list."""
        with self._lock:
            timeline = self._timelines.setdefault(key, _Timeline())
            hashed, done, chain = timeline.ledger_chain or (records, 0, b"")
            if hashed is not records or count < done:
                done, chain = 0, b""  # the tail started over (the ledger was truncated or replaced)
            h = blake2b(chain, digest_size=DIGEST_SIZE)
            for record in records[done:count]:
                h.update(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
                h.update(b"\n")
            digest = h.digest() if count > done else chain or h.digest()
            timeline.ledger_chain = (records, count, digest)
            source = LedgerPrefix(records, count, sessions_dir, path)
            version, grew = self._append(timeline, digest.hex(), source, summary, at, None)
            self._enforce_caps(timeline)
            return version, grew

    def _append(self, timeline: _Timeline, vid: str, source, summary: Summary, at: float | None,
                clock_ms: int | None) -> tuple[Version, bool]:
        versions = timeline.versions
        if versions and versions[-1].id == vid:
            return versions[-1], False
        earlier = next((v for v in versions if v.id == vid), None)
        if earlier is not None:
            source = earlier.source  # content seen before: share it
        at = time.time() if at is None else at
        version = Version(vid, timeline.next_seq, at, summary, source, int(at * 1000) if clock_ms is None else clock_ms)
        timeline.next_seq += 1
        versions.append(version)
        return version, True

    def _enforce_caps(self, timeline: _Timeline) -> None:
        versions = timeline.versions
        dropped = False
        while len(versions) > self.max_versions or (timeline.store.bytes > self.max_bytes and len(versions) > 2):
            del versions[1]  # the first version stays: "since I opened it" remains answerable
            dropped = True
            if timeline.store.bytes > self.max_bytes:
                self._sweep(timeline)
        if dropped:
            self._sweep(timeline)

    @staticmethod
    def _sweep(timeline: _Timeline) -> None:
        timeline.store.keep_only(v.source for v in timeline.versions if isinstance(v.source, bytes))

    # reading --------------------------------------------------------------------------------------------
    def versions(self, key: str) -> list[Version]:
        with self._lock:
            timeline = self._timelines.get(key)
            return list(timeline.versions) if timeline is not None else []

    def stored_bytes(self, key: str) -> int:
        with self._lock:
            timeline = self._timelines.get(key)
            return timeline.store.bytes if timeline is not None else 0

    def session(self, key: str, version: Version) -> Session | None:
        """Rebuild a version into a fresh Session tree (None when the version is no longer kept)."""
        with paused_gc():  # like loading: a big tree is millions of new objects the collector would re-scan
            source = version.source
            if isinstance(source, LedgerPrefix):
                return ledger_session(source.records[: source.count], source.path, source.sessions_dir)
            with self._lock:
                timeline = self._timelines.get(key)
                if timeline is None or source not in timeline.store.blobs:
                    return None
                tree = timeline.store.get(source)
            return build_session(tree)

    def store_tree(self, key: str, version: Version) -> object:
        """The SessionNode of a stored tree version, as stored (None for ledgers or dropped versions)."""
        with self._lock:
            timeline = self._timelines.get(key)
            if timeline is None or not isinstance(version.source, bytes) or version.source not in timeline.store.blobs:
                return None
            return timeline.store.get(version.source)

    def has(self, key: str) -> bool:
        with self._lock:
            return key in self._timelines

    def drop(self, key: str) -> None:
        with self._lock:
            self._timelines.pop(key, None)

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._timelines)


def version_time(version: Version) -> str:
    """When a version was recorded, as the history list and the diff screen show it (HH:MM:SS, local time)."""
    return fmt_ts(int(version.at * 1000), date=False)[:8]
