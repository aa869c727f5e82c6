"""Where OTLP requests become live sessions: the receiver's threads `accept` bodies, the live tick `drain`s.

`accept(signal, body, encoding)` runs on the receiver's threads: the body is decoded (tui.formats.otlp.decode)
outside the lock, then indexed under it by trace (spans by span id, log records by trace), and the trace is marked
changed. `drain()` runs on the live worker's thread at each tick (tui.ui.live_worker, LIVE_APPLY_SECONDS): it takes
the changed traces (and their held spans: records are never mutated once indexed, so the lists are copied under
the lock and assembled outside it), assembles each into session trees (tui.formats.otlp.assemble) and hands them
to the hub (LiveHub.put_otlp), which shows them through the live pipeline as for a streamed session. The cost of a
drain is the changed traces' spans, whatever the number of traces held; a drain stops after DRAIN_BUDGET seconds
and leaves the rest for the next tick.

Log records without a trace id (ai-agent exporting logs but no traces) are kept by their `txn_id` and become
sessions of their own, turns told by their `turn` attribute; those with a trace id join that trace.

Precedence: a session the event stream sent a tree for keeps that tree (richer: payloads, reasoning); the OTLP tree
is shown only while there is none (LiveHub.put_otlp).

Memory is bounded: at most MAX_SPANS spans over all traces and MAX_TRACE_SPANS per trace (spans past it are
dropped and counted), MAX_LOGS log records over all and MAX_SPAN_LOGS per span or txn (older ones dropped,
counted). Past the totals whole traces are evicted, least recently updated first, finished ones (their root span
ended) before running ones; evicted traces are counted and forgotten by the hub too (LiveHub.forget_otlp).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from tui.formats.otlp.assemble import SessionTree, assemble
from tui.formats.otlp.decode import decode_logs, decode_traces
from tui.formats.otlp.ops import log_entry, log_turn, ms
from tui.formats.otlp.records import LogRecord, OtlpDecodeError, Span
from tui.model.gc_pause import paused_gc, paused_gc_then_frozen

__all__ = ["DRAIN_BUDGET", "MAX_LOGS", "MAX_SPANS", "MAX_SPAN_LOGS", "MAX_TRACE_SPANS", "OtlpDecodeError", "OtlpSink"]

MAX_SPANS = 100_000  # spans held over every trace (measured ~1.6 KB each with their attributes: ~160 MB at most)
MAX_TRACE_SPANS = 50_000  # spans held per trace; later ones are dropped (counted)
MAX_LOGS = 200_000  # log records held over every trace and txn
MAX_SPAN_LOGS = 1_000  # log records held per span (or per txn without a trace): the oldest are dropped
DRAIN_BUDGET = 0.05  # s of assembling (or of handing over assembled trees) per drain; the rest waits a tick
MAX_READY = 2_000  # assembled groups waiting for drain: the assembling thread waits beyond it
TXN_KEY = "txn:"  # keys of txn-only groups (log records without a trace id) in the eviction order
PREBUILD_ITEMS = 2_000  # a trace of this many spans and records is also built (model nodes) in the sink's thread
REST_SHARE, MAX_REST = 1.0, 3.0  # a big trace rests this share of its last assembly's time (at most MAX_REST s)


@dataclass(slots=True)
class _Group:
    """One trace (or one txn's untraced log records): what it holds and what it handed to the hub."""

    spans: dict[str, Span] = field(default_factory=dict)
    logs: dict[str, deque] = field(default_factory=dict)  # span id ("" for none) -> records
    log_count: int = 0
    finished: bool = False  # its root span arrived, ended
    shown: set[str] = field(default_factory=set)  # session ids handed to the hub


class OtlpSink:
    """OTLP spans and log records into a LiveHub. `accept` from any thread, `drain` from the hub's (the live worker's) thread."""

    def __init__(self, hub, *, max_spans: int = MAX_SPANS, max_trace_spans: int = MAX_TRACE_SPANS,
                 max_logs: int = MAX_LOGS, max_span_logs: int = MAX_SPAN_LOGS) -> None:
        self.hub = hub
        self.max_spans, self.max_trace_spans = max_spans, max_trace_spans
        self.max_logs, self.max_span_logs = max_logs, max_span_logs
        self._lock = threading.Lock()
        self._groups: OrderedDict[str, _Group] = OrderedDict()  # least recently updated first
        self._dirty: dict[str, None] = {}
        self._rest_until: dict[str, float] = {}  # a big trace's group is assembled again only after this (monotonic)
        self._evicted_now: list[tuple[str, set[str]]] = []  # (key, session ids) to forget in the hub
        self._wake = threading.Condition()  # the assembling thread waits on it for changed groups
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._ready: deque = deque()
        self._assembling = False  # the thread holds a group taken from _dirty and not yet in _ready  # assembled (key, trees, records), waiting for drain
        self._traced: dict[str, str] = {}  # session id -> the trace showing it (its untraced logs join that trace)
        self.spans_held = 0
        self.logs_held = 0
        self.spans_received = 0
        self.logs_received = 0
        self.spans_dropped = 0  # over a trace's cap
        self.logs_dropped = 0  # over a span's cap
        self.evicted = 0  # traces (and txn groups) evicted
        self.rejected = 0  # bodies refused as malformed
        self.failed = 0  # traces whose assembly (or hand-over) raised: left as the hub last had them
        self.restarts = 0  # times the assembling thread died and was started again
        self.last_failure = ""  # what the last of those said

    # receiving (any thread) ----------------------------------------------------------------------------------
    def accept(self, signal: str, body: bytes, encoding: str) -> int:
        """Decode and index one request body; the number of records taken. Raises OtlpDecodeError."""
        try:
            if signal == "traces":
                spans = decode_traces(body, encoding)
            elif signal == "logs":
                records = decode_logs(body, encoding)
            else:
                raise OtlpDecodeError(f"unknown signal {signal!r}")
        except OtlpDecodeError:
            with self._lock:
                self.rejected += 1
            raise
        with self._lock:
            taken = self._index_spans(spans) if signal == "traces" else self._index_logs(records)
        if self._thread is not None:
            with self._wake:
                self._wake.notify()
        return taken

    def _group(self, key: str) -> _Group:
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group()
        else:
            self._groups.move_to_end(key)
        self._dirty[key] = None
        return group

    def _index_spans(self, spans: list[Span]) -> int:
        taken = 0
        self.spans_received += len(spans)
        for span in spans:
            if not span.trace_id or not span.span_id:
                self.spans_dropped += 1
                continue
            group = self._group(span.trace_id)
            if span.span_id not in group.spans:
                if len(group.spans) >= self.max_trace_spans:
                    self.spans_dropped += 1
                    continue
                self.spans_held += 1
            group.spans[span.span_id] = span  # a resend replaces
            if not span.parent_id and span.end_ns:
                group.finished = True
            taken += 1
        self._evict()
        return taken

    def _index_logs(self, records: list[LogRecord]) -> int:
        self.logs_received += len(records)
        for record in records:
            if record.trace_id:
                key, slot = record.trace_id, record.span_id
            else:
                txn = record.attrs.get("txn_id")
                txn = txn if isinstance(txn, str) and txn else "?"
                key, slot = TXN_KEY + txn, ""
                if txn in self._traced:
                    self._dirty[self._traced[txn]] = None  # the trace showing that session takes them in
            group = self._group(key)
            held = group.logs.get(slot)
            if held is None:
                held = group.logs[slot] = deque(maxlen=self.max_span_logs)
            if len(held) == held.maxlen:
                self.logs_dropped += 1
                self.logs_held -= 1
                group.log_count -= 1
            held.append(record)
            group.log_count += 1
            self.logs_held += 1
        self._evict()
        return len(records)

    def _evict(self) -> None:
        """Whole groups out, least recently updated first, finished ones first, until under the totals. The walk
        stops as soon as enough are picked: once over the caps every request evicts a few, and listing all the
        groups each time was 5% of the process's time at 200,000 spans in 8,000 traces."""
        for finished in (True, False):
            over_spans, over_logs = self.spans_held - self.max_spans, self.logs_held - self.max_logs
            if over_spans <= 0 and over_logs <= 0:
                return
            victims = []
            for key, group in self._groups.items():
                if group.finished is finished:
                    victims.append(key)
                    over_spans -= len(group.spans)
                    over_logs -= group.log_count
                    if over_spans <= 0 and over_logs <= 0:
                        break
            for key in victims:
                group = self._groups.pop(key)
                self.spans_held -= len(group.spans)
                self.logs_held -= group.log_count
                self._dirty.pop(key, None)
                self._rest_until.pop(key, None)
                self.evicted += 1
                self._evicted_now.append((key, group.shown))

    # assembling (a thread of its own once started, else inside drain) -------------------------------------------
    def start(self) -> None:
        """Assemble in a thread of the sink's own from now on: drain then only hands ready trees to the hub, so
        the UI thread's share stays a few dict operations per changed session whatever the spans behind them."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._supervisor, name="otlp-assemble", daemon=True)
            self._thread.start()

    def _supervisor(self) -> None:
        """The assembling thread, supervised: whatever kills the assembling loop (a value nobody foresaw in one
        trace), the loop is started again; the trace it was assembling stays as the hub last had it. Both are
        counted (`restarts`, `failed`) with what the failure said (`last_failure`), and summary() shows them where
        the receivers' counters are. (A span attribute or a log record's 'turn: "²"' killed this thread for
        good: later requests were answered 200 and counted, and no session appeared again.)"""
        while not self._stopping:
            try:
                self._assembler()
                return
            except Exception as exc:  # noqa: BLE001 - the pipeline must outlive any one bug
                self._failed(exc, restarted=True)
                time.sleep(0.01)  # (a loop failing at once every time must not spin a core)

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            with self._wake:
                self._stopping = True
                self._wake.notify_all()
            thread.join(timeout=5)

    def _assembler(self) -> None:
        while True:
            with self._wake:
                while not self._stopping and (not self._any_due() or len(self._ready) >= MAX_READY):
                    self._wake.wait(0.1 if self._dirty else 0.5)
                if self._stopping:
                    return
            result = self._assemble_next(mark=True)
            with self._lock:
                if result is not None:
                    self._ready.append(result)
                self._assembling = False

    def _assemble_next(self, mark: bool = False) -> tuple | None:
        """The next changed group's session trees: (key, trees or None, records), or None when none.
        `mark`: the assembling thread's call (counted in `pending` until its result is queued)."""
        with self._lock:
            key = self._due() if mark else next(iter(self._dirty), None)
            if key is None:
                return None
            del self._dirty[key]
            self._assembling = mark
            group = self._groups.get(key)
            if group is None:
                return None
            spans = list(group.spans.values())
            logs = [r for held in group.logs.values() for r in held]
        big = mark and len(spans) + len(logs) >= PREBUILD_ITEMS
        # (thousands of small dicts, none of them cyclic: see tui.model.gc_pause. A big trace's are frozen before
        # the collector comes back on: with it paused, every thread's new objects piled up in its youngest
        # generation, and the next pass over them, in whichever thread, held the interpreter for up to 1.4 s.)
        began = time.monotonic()
        with paused_gc_then_frozen() if big else paused_gc():
            trees = self._trees(key, spans, logs)
            built = self._prebuilt(trees) if big and trees else None
        if big:
            took = time.monotonic() - began
            self._rest_until[key] = began + took + min(MAX_REST, took * REST_SHARE)
        return key, trees, len(spans) + len(logs), built

    def _any_due(self) -> bool:
        with self._lock:
            return self._due() is not None

    def _due(self) -> str | None:
        """The first changed group not resting. A big trace is assembled and built again from all its spans at
        each change (~1 s at 50,000 spans): done back to back, this thread held the interpreter most of the time,
        and every UI step waited behind it (keys up to 1.4 s: `otlp_big_run.py`'s keys row). After each, that
        trace rests as long as it took (its screen changes every ~2 builds' time; resting twice as long gave keys
        no better worst case, 0.19-0.46 s against 0.28-0.43 s, and the whole trace 10-13 s after its last batch
        instead of 5-10 s); other groups go on meanwhile.
        Called with `_lock` held."""
        now = time.monotonic()
        rest = self._rest_until
        for key in self._dirty:
            if rest.get(key, 0.0) <= now:
                return key
        return None

    def _prebuilt(self, trees: list[SessionTree]) -> list:
        """(root, its build, the trees it was made from) of a big trace, built here rather than on the UI thread
        by a hub of the sink's own holding this trace alone (the same code as the hub's: the UI's hub takes the
        build when its family of that root is the same, LiveHub.offer_built)."""
        shadow = type(self.hub)()
        for t in trees:
            shadow.put_otlp(t.session_id, t.tree, _meta(t), 0.0)
        out = []
        for root in {shadow.root_of(t.session_id) for t in trees}:
            session = shadow.build(root)
            out.append((root, session, {live.session_id: live.otlp_tree for live in shadow.descendants(root)}))
        return out

    def _failed(self, exc: Exception, restarted: bool = False) -> None:
        with self._lock:
            self.failed += 1
            self.restarts += restarted
            self.last_failure = f"{type(exc).__name__}: {exc}"[:200]
            self._assembling = False

    # applying (the hub's thread) -------------------------------------------------------------------------------
    def drain(self, budget: float = DRAIN_BUDGET, now: float | None = None) -> int:
        """Hand the trees of the groups changed since the last drain to the hub; the number of groups done."""
        started = time.monotonic()
        done = 0
        with self._lock:
            evicted, self._evicted_now = self._evicted_now, []
        for key, shown in evicted:
            for session_id in shown:
                if not key.startswith(TXN_KEY):
                    self._traced.pop(session_id, None)
                self.hub.forget_otlp(session_id)
        threaded = self._thread is not None
        while True:
            if threaded:
                with self._lock:
                    result = self._ready.popleft() if self._ready else None
                if result is None:
                    break
                with self._wake:
                    self._wake.notify_all()  # room in the ready queue again
            else:
                with self._lock:
                    if not self._dirty:
                        break
                try:
                    result = self._assemble_next()
                except Exception as exc:  # noqa: BLE001 - (the UI thread: one trace must not take the tick down)
                    self._failed(exc)
                    continue
                if result is None:
                    continue
            try:
                self._apply(result, now)
            except Exception as exc:  # noqa: BLE001 - as above
                self._failed(exc)
            done += 1
            if time.monotonic() - started > budget:
                break
        return done

    def _apply(self, result: tuple, now: float | None) -> None:
        key, trees, records, built = result
        with self._lock:  # what the hub shows of this group now (not when it was assembled: a group may be
            group = self._groups.get(key)  # assembled twice before one drain)
            shown = group.shown if group is not None else set()
        if trees is None:
            with self._lock:
                if key in self._groups:
                    self._groups[key].shown = set()
            return
        ids = {t.session_id for t in trees}
        for t in trees:
            top = not t.parent_id or t.parent_id not in ids  # the Events column: the trace's spans and records
            self.hub.put_otlp(t.session_id, t.tree, _meta(t), now, records=records if top else 0)
        for root, session, made_from in built or ():
            self.hub.offer_built(root, session, made_from)
        for gone in shown - ids:  # a session whose id settled (its span arrived): the provisional one goes
            self.hub.forget_otlp(gone, settled=True)
        with self._lock:
            if key in self._groups:
                self._groups[key].shown = ids
            else:  # evicted meanwhile: forget what was just shown
                self._evicted_now.append((key, ids))

    def _trees(self, key: str, spans: list[Span], logs: list[LogRecord]) -> list[SessionTree] | None:
        """A group's session trees. A txn's untraced records join the trace that has that session (both would
        otherwise hand the hub a tree for one session id), and make a session of their own only without one: None
        then (the trace shows them)."""
        if key.startswith(TXN_KEY):
            txn = key[len(TXN_KEY):]
            with self._lock:
                traced = txn in self._traced
            return None if traced else _txn_trees(txn, logs)
        trees = assemble(key, spans, logs)
        with self._lock:
            extra = {t.session_id: [r for held in self._groups[TXN_KEY + t.session_id].logs.values() for r in held]
                     for t in trees if TXN_KEY + t.session_id in self._groups}
            self._traced.update((t.session_id, key) for t in trees)
        return assemble(key, spans, logs, extra) if extra else trees

    @property
    def pending(self) -> int:
        """Groups changed and not yet in the hub (waiting to be assembled, or assembled and waiting for drain)."""
        return len(self._dirty) + len(self._ready) + self._assembling

    def summary(self) -> str:
        """One line for the browser header: "otlp: 12,345 spans, 67 log records · 3 traces evicted"."""
        parts = [f"otlp: {self.spans_received:,} spans, {self.logs_received:,} log records"]
        for count, what in ((self.evicted, "traces evicted"), (self.spans_dropped, "spans dropped"),
                            (self.logs_dropped, "log records dropped"), (self.rejected, "requests malformed"),
                            (self.failed, "traces not assembled"), (self.restarts, "assembler restarts")):
            if count:
                parts.append(f"{count:,} {what}")
        if self.failed or self.restarts:
            parts.append(f"last failure: {self.last_failure}")
        return " · ".join(parts)


def _meta(t: SessionTree) -> dict:
    return {"parentId": t.parent_id, "originId": t.origin_id, "agentId": t.agent_id, "callPath": t.call_path}


def _txn_trees(txn: str, logs: list[LogRecord]) -> list[SessionTree]:
    """A session of log records with no trace (ai-agent exporting logs, not traces): one system op per turn."""
    if not logs or txn == "?":
        return []
    logs.sort(key=lambda r: r.time_ns)
    a = logs[0].attrs
    text = {k: v if isinstance(v, str) else "" for k, v in
            ((k, a.get(k)) for k in ("agent", "call_path", "parent_txn_id", "origin_txn_id"))}
    turns: dict[int, list[LogRecord]] = {}
    for record in logs:
        turns.setdefault(log_turn(record) or 0, []).append(record)
    ordered = []
    for n in sorted(turns):
        records = turns[n]
        start = ms(records[0].time_ns)
        ordered.append({"id": f"{txn}-{n}", "index": n, "startedAt": start, "attributes": {"label": "logs"},
                        "ops": [{"opId": f"{txn}-{n}-logs", "kind": "system", "startedAt": start,
                                 "attributes": {"label": f"logs of turn {n}"}, "accounting": [],
                                 "logs": [log_entry(r, f"{n}-1") for r in records]}]})
    agent = text["agent"]
    tree = {"id": txn, "traceId": txn, "agentId": agent, "callPath": text["call_path"] or agent,
            "sessionTitle": "", "startedAt": ms(logs[0].time_ns), "turns": ordered,
            "attributes": {"source": "otlp logs"}}
    parent = text["parent_txn_id"] if text["parent_txn_id"] != txn else ""
    return [SessionTree(txn, parent, text["origin_txn_id"], agent, text["call_path"] or agent, tree)]
