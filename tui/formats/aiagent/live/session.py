"""What the hub keeps of one live session: its last tree (or the newer frame not parsed yet), the log and accounting
entries that arrived since, streamed text, sequence bookkeeping and status. Bounded: MAX_PENDING_LOGS,
MAX_PENDING_ACCOUNTING, MAX_FLUSHED, MAX_TEXT."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from tui.formats.aiagent.accounting import EntrySet
from tui.formats.aiagent.live.order import OrderedText, SeenSequences
from tui.formats.aiagent.live.status import status_text

MAX_PENDING_LOGS = 5000  # logs kept per session between two trees; older ones are dropped from view
MAX_PENDING_ACCOUNTING = 10_000  # ... and accounting entries
MAX_FLUSHED = 100_000  # distinct flushed accounting entries remembered per session (16 bytes each)
MAX_TEXT = 64 * 1024  # streamed output/thinking kept per session


@dataclass
class LiveSession:
    session_id: str
    origin_id: str = ""
    parent_id: str = ""
    agent_id: str = ""
    call_path: str = ""
    names: tuple = ()  # (originId, parentId, agentId, callPath) of the last event's meta, as they came
    tree: dict | None = None
    otlp_tree: dict | None = None  # assembled from OTLP spans (tui.formats.otlp): shown only while `tree` is None
    otlp_records: int = 0  # OTLP spans and log records behind otlp_tree (counted with `events` in the Events column)
    events: int = 0  # valid events received (duplicates excluded)
    seen: SeenSequences = field(default_factory=SeenSequences)
    duplicates: int = 0
    reordered: int = 0  # arrived after a higher sequence number of the same session (and applied in place)
    tree_sequence: int | None = None  # the sequence number of the tree held
    tree_frame: bytes | str | None = None  # a newer tree, still unparsed (frames.tree_frame_meta)
    tree_frame_sequence: int | None = None  # ... and its sequence number (given back if it fails to parse)
    status_sequence: int | None = None  # ... and of the event that set the status line
    status_event: tuple[str, dict] | None = None  # (kind, event) the status line is written from when read
    status_text: str | None = ""  # ... and that line once written (None: not yet)
    output_text: OrderedText = field(default_factory=lambda: OrderedText(MAX_TEXT))
    thinking_text: OrderedText = field(default_factory=lambda: OrderedText(MAX_TEXT))
    final_report: dict | None = None
    flushed: EntrySet = field(default_factory=lambda: EntrySet(MAX_FLUSHED))  # accounting_flush entries, once each
    pending_logs: deque = field(default_factory=lambda: deque(maxlen=MAX_PENDING_LOGS))  # (sequence, entry)
    pending_accounting: deque = field(default_factory=lambda: deque(maxlen=MAX_PENDING_ACCOUNTING))
    dropped_logs: int = 0
    dropped_accounting: int = 0
    updated: float = 0.0
    last_ts: int = 0  # newest timestamp seen in this session's events (ms), and when it arrived (wall, s)
    last_wall: float = 0.0
    first_ts: int = 0

    @property
    def status_line(self) -> str:
        if self.status_text is None and self.status_event is not None:
            self.status_text = status_text(*self.status_event, len(self.flushed))
        return self.status_text or ""

    def set_status(self, kind: str, event: dict) -> None:
        """The newest status-bearing event: its line is written when read (most are replaced unread)."""
        self.status_event, self.status_text = (kind, event), None

    @property
    def gaps(self) -> int:
        """Sequence numbers missing between the lowest and highest received: events lost (or still on the way)."""
        return self.seen.missing

    @property
    def resets(self) -> int:
        """Jumps of the sequence too far to be lost events (a restarted or broken counter)."""
        return self.seen.resets

    @property
    def output(self) -> str:
        return str(self.output_text)

    @property
    def thinking(self) -> str:
        return str(self.thinking_text)
