"""The live controller: the UI thread's side of the live pipeline, and where file changes become reloads.

Events are read, applied and built on the live worker's thread (tui.ui.live_worker), which posts its batches to the
app; the app hands each `LiveRowsChanged` to `took` here, then posts the messages on to the screens
(tui.ui.messages): `LiveRowsChanged`, `LiveTreeBuilt`, `DocumentReloaded`, `HistoryChanged`,
`StreamStateChanged`, `LiveRootsForgotten`. The controller owns the tails of open ledgers, the reloads of changed
files, the newest build of each live root and their release, and the recorded history (tui.ui.app_history).
Screens get the controller at construction and ask it only for what they need (a live root's facts and clock,
the history, a Pin on a tree).

Trees are released (tui.model.nodes.release_tree) as soon as nothing holds them: the controller holds the
newest build of each live root; a screen holds the roots it shows; an export or a diff holds what it reads until
it is done. A resent 50,000-op tree every second otherwise piles up until a full collection.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tui.formats.agents import is_agent_file
from tui.formats.aiagent.ledger_tail import LedgerTail
from tui.formats.aiagent.live.facts import LiveFacts, LiveTally
from tui.formats.load import load_frozen
from tui.inputs.files import LoadError
from tui.inputs.stream.access import mask_token
from tui.model.document import Document
from tui.model.nodes import Session, release_tree
from tui.ui.app_history import LIVE_PREFIX, HistoryRecorder
from tui.ui.live_worker import LiveWorker
from tui.ui import standing_threads
from tui.ui.pin import Pin
from tui.ui.messages import DocumentReloaded, LiveRootsForgotten, LiveRowsChanged

if TYPE_CHECKING:
    from textual.app import App

# A tree let go with this many ops or turns is cut in the releasing thread (release_away), a smaller one at once.
# Cutting one of a few hundred to 2,000 ops took up to 10 ms of the UI thread, in the live tick of a replayed
# 20,000-op session (tests/benchmarks/README.md, row "UI-thread time per live tick during the replay"); 20,000 ops
# took 0.4 s of the keys'.
RELEASE_AWAY_OPS = 200
RELEASE_AWAY_TURNS = 100
RELEASER = "release-tree"  # the standing thread's name
NO_FACTS = LiveFacts()


class LiveController(HistoryRecorder):
    """One per app (MonitorApp.live). `app` is None for a screen shown on its own (tests): nothing is posted."""

    def __init__(self, app: App[Any] | None, *, sessions_dir: Path | None = None, streams: bool = False) -> None:
        self.app = app
        self.sessions_dir = sessions_dir  # where exports and saved payloads must not go
        self.streams = streams  # --listen or --connect given
        self._open_roots: set[str] = set()  # live roots a screen shows (the worker reads it)
        self.worker = LiveWorker(app.post_message if app is not None else _nowhere, self._open_roots, streams,
                                 paced=app is not None)
        self.stream_status = self.worker.stream_status
        self._summary = self.worker.summary()  # (the hub is empty yet: nothing is read across threads)
        self.tally = LiveTally()  # the hub's counters as of the last batch taken
        self.batches_taken = 0
        self._tails: dict[Path, LedgerTail] = {}
        self._reload_lock = threading.Lock()
        self._reload_errors: dict[Path, str] = {}  # the last failed reload of each open file, told once
        self._live_builds: dict[str, Session] = {}  # live root -> its newest build (held)
        self._build_pins: dict[str, Pin] = {}  # live root -> the controller's hold on its newest build
        self._facts: dict[str, LiveFacts] = {}  # live root -> what its live panel shows, with that build
        self._holds: dict[int, list] = {}  # id(root) -> [root, holders]
        self._built: set[int] = set()  # ids of the held trees that are hub builds (their raw goes with them)
        self._open: dict[str, int] = {}  # history key -> session screens showing it
        self.init_history()
        if app is not None:
            standing_threads.start(RELEASER)  # (with the app, not at a live tick)

    @classmethod
    def detached(cls) -> LiveController:
        return cls(None)

    # screens ----------------------------------------------------------------------------------------------
    def post(self, make: Callable[[], Message]) -> None:
        """A fresh message to every screen of the stack (a message belongs to one queue)."""
        if self.app is None:
            return
        for screen in list(self.app.screen_stack):
            screen.post_message(make())

    def closing(self) -> bool:
        from tui.ui.textual_compat import app_is_exiting

        return self.app is None or app_is_exiting(self.app)

    def notify(self, message: str, **kwargs: Any) -> None:
        if self.app is not None:
            self.app.notify(message, **kwargs)

    def opened(self, key: str | None) -> None:
        """A session screen shows the session of history key `key` (its updates are wanted)."""
        if key is not None:
            self._open[key] = self._open.get(key, 0) + 1
            if key.startswith(LIVE_PREFIX):
                self._open_roots.add(key[len(LIVE_PREFIX):])

    def closed(self, key: str | None) -> None:
        """A session screen went away: once none shows that session, its history is forgotten."""
        if key is None or key not in self._open:
            return
        self._open[key] -= 1
        if self._open[key] <= 0:
            del self._open[key]
            self._open_roots.discard(key[len(LIVE_PREFIX):])
            self.forget_history(key)

    def is_open(self, key: str) -> bool:
        return key in self._open

    # holding trees ------------------------------------------------------------------------------------------
    def pinned(self, root: Session | None) -> Pin:
        """`root` is in use (shown, exported, compared) until the Pin is released: its `with` ends, or its holder
        (a screen, on unmount) calls `release`. The last Pin of a tree to go releases the tree."""
        if root is None:
            return Pin(None)
        entry = self._holds.get(id(root))
        if entry is None:
            self._holds[id(root)] = [root, 1]
        else:
            entry[1] += 1
        return Pin(root, self._let_go)

    def _let_go(self, root: Session) -> None:
        """One Pin of `root` was released; the last one releases the tree."""
        entry = self._holds.get(id(root))
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del self._holds[id(root)]
            if self.app is None:  # (a detached controller knows too little of who else shows a tree)
                pass
            elif len(root.turns) >= RELEASE_AWAY_TURNS or root.counts.ops >= RELEASE_AWAY_OPS:
                release_away(partial(self._release, root, id(root) in self._built))  # (nobody reads it any more)
            else:
                self._release(root, id(root) in self._built)
            self._built.discard(id(root))

    @staticmethod
    def _release(root: Session, built: bool) -> None:
        """A cyclic tree (parents <-> children) nobody uses: cut it now rather than at a full collection."""
        nodes: list = []
        if built:
            stack = [root]
            while stack:  # (iterative: sub-agents thousands deep)
                session = stack.pop()
                nodes.append(session)
                nodes.extend(session.turns)
                stack.extend(op.child for turn in session.turns for op in turn.ops if op.child is not None)
        release_tree(root)
        for node in nodes:
            # The screen's old tree-widget nodes (cyclic too) still reach these sessions and turns until the
            # collector runs: without the parsed tree they hold little. (Ops keep theirs: a payload screen may
            # be showing one.)
            node.raw = None

    def is_current(self, root: str, session: Session) -> bool:
        """The newest build of live root `root` is `session` (an older one may have been released already)."""
        return self._live_builds.get(root) is session

    def build(self, root: str) -> Session | None:
        """The newest build of live root `root` the worker posted (None before its first)."""
        return self._live_builds.get(root)

    def roots(self) -> list[str]:
        """The live roots built so far (and not forgotten), sorted."""
        return sorted(self._live_builds)

    def facts(self, root: str) -> LiveFacts:
        """What the live panel of root `root` shows besides its tree, as of its newest build."""
        return self._facts.get(root, NO_FACTS)

    def clock(self, root: str) -> Callable[[], int]:
        """What "now" is for the running nodes of live root `root` (the producer's clock, not ours)."""
        return lambda: self.facts(root).clock(time.time())

    def took(self, message: LiveRowsChanged) -> None:
        """UI thread: a batch of the live worker (before the screens see it). Each build becomes its root's newest
        (held; the older one let go), forgotten and merged roots let their builds go, history records what is due;
        then the worker may build the next batch."""
        try:
            self._take(message)
        finally:
            self.worker.taken.set()

    def _take(self, message: LiveRowsChanged) -> None:
        for root, (session, facts) in message.builds.items():
            self._facts[root] = facts
            old = self._live_builds.get(root)
            if old is not session:
                self._live_builds[root] = session
                self._built.add(id(session))
                old_pin, self._build_pins[root] = self._build_pins.get(root), self.pinned(session)
                if old_pin is not None:
                    old_pin.release()
        for root in message.forgotten | message.merged:  # (the browser keeps forgotten rows, not merged ones)
            if not self.is_open(LIVE_PREFIX + root):
                self._live_builds.pop(root, None)
                pin = self._build_pins.pop(root, None)
                if pin is not None:
                    pin.release()
                self._facts.pop(root, None)
        if message.forgotten or message.merged:
            self.post(partial(LiveRootsForgotten, message.forgotten, message.merged))
        self._summary = message.summary
        self.tally = message.tally
        self.batches_taken += 1
        self.live_history_tick(set(message.builds))

    # the event streams ----------------------------------------------------------------------------------------
    def feed(self, frame: bytes | str, now: float | None = None) -> None:
        """A frame from this process rather than a listener (a producer in-process): applied on the worker's thread
        in the order given; `now`: when it arrived (wall time; default: when applied)."""
        self.worker.call(self.worker.hub.feed, frame, now)

    def start(self) -> None:
        """Start the worker's thread (the first stream or frame does it anyway)."""
        self.worker.start()

    def stop(self) -> None:
        """The app is going: the listeners close their sockets, the worker's thread ends."""
        self.worker.stop()

    def run_stream(self, url: str, make: Callable[[LiveWorker], Coroutine[Any, Any, Any]]) -> None:
        """Run a listener or subscriber on the worker's loop: `make(worker)` gives its coroutine (the worker's hub
        is fed there, on that thread); a failure to listen (address in use, a live socket) is shown, not lost."""
        async def guarded() -> None:
            try:
                await make(self.worker)
            except (OSError, ValueError) as exc:
                self.worker.stream_reporter(url)(f"not listening on {url}: {exc}")
                self.notify(mask_token(str(exc)), title=mask_token(f"cannot listen on {url}"), severity="error",
                            timeout=30, markup=False)
        self.worker.run(guarded())

    def stream_state(self) -> str:
        """The newest line any stream reported (listening, clients, disconnected/reconnected)."""
        return next((text for text in reversed(list(self.stream_status.values())) if text), "")

    def stream_reporter(self, url: str) -> Callable[[str], None]:
        return self.worker.stream_reporter(url)

    def summary(self) -> str:
        """One line on the event streams for the browser header ("" when none is configured), as of the last
        batch."""
        return self._summary if self.streams else ""

    # changed files ------------------------------------------------------------------------------------------
    def file_changed(self, path: Path) -> None:
        """A watched file changed (`path` resolved): read it again if a screen shows it. A database (OpenCode's
        `opencode.db`): each of its sessions a screen shows (`<db>#<session id>`)."""
        if self.app is None:
            return
        shown = [str(path)] if self.is_open(str(path)) else []
        if path.name.endswith(".db"):
            shown += [key for key in self._open if key.startswith(f"{path}#")]
        for key in shown:
            self.app.run_worker(partial(self._reload_locked, Path(key)), thread=True, group="reload",
                                exit_on_error=False)

    def _reload_locked(self, path: Path) -> None:
        # One reload at a time: a slow reload finishing after a newer one must not put older content back on
        # screen, and a ledger's tail must not be read by two threads at once.
        with self._reload_lock:
            self._reload(path)

    def _reload(self, path: Path) -> None:
        assert self.app is not None
        tail = None
        try:
            if path.suffix == ".jsonl" and not is_agent_file(path):  # (a Claude Code file is no ledger)
                tail = self._tails.get(path)
                if tail is None:
                    tail = self._tails[path] = LedgerTail(path)
                tail.read_new()
                doc = tail.document()
            else:
                doc = load_frozen(str(path))
        except LoadError as exc:
            # half-written, or replaced by something broken: keep what is on screen, the next change will retry
            self._call(self._reload_failed, path, exc.reason)
            return
        except (OSError, RuntimeError, MemoryError):
            return  # vanished meanwhile
        version = self.record_file_version(path, doc, tail)
        self._call(self._reloaded, path, doc, version)

    def _call(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        assert self.app is not None
        try:
            self.app.call_from_thread(callback, *args, **kwargs)
        except RuntimeError:  # the app is closing
            pass

    def _reload_failed(self, path: Path, reason: str) -> None:
        if self.is_open(str(path)) and self._reload_errors.get(path) != reason:
            self._reload_errors[path] = reason
            self.notify(f"{path.name} changed but cannot be read now: {reason}. Showing the last version read.",
                        title="file changed", severity="warning", timeout=8)

    def _reloaded(self, path: Path, doc: Document, version: Any) -> None:
        """UI thread: tell the screens, and note that the live view now shows that recorded version."""
        if self.closing():
            return
        self._reload_errors.pop(path, None)
        if version is not None:
            self.history_shown[str(path)] = version
        self.post(partial(DocumentReloaded, path, doc, version))
        self.history_changed(str(path))


def _nowhere(message: Message) -> bool:
    """Where a detached controller's worker posts: nobody listens."""
    return False


def release_away(job: Callable[[], None]) -> None:
    """Run `job` (cutting a big tree nobody reads) in the one releasing thread (tui.ui.standing_threads: a tree
    cut half-way is still let go, nothing else reads it)."""
    standing_threads.run_in(RELEASER, job)
