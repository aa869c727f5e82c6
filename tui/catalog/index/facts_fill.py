"""The sessions-index row of a plain snapshot, read from its facts (tui.formats.aiagent.facts) without building
its tree: building it is about half of indexing a file, for a row that keeps a few totals, counts and names.

The row is the one the tree gives (tests/catalog/test_facts_fill.py compares both on every file of the tests'
corpus): the browser's summary (tui.catalog.session_row.summarise_file_row) of a root read with the same fields,
totals and turns, its models and last activity ranked by the rules of tui.catalog.row_facts, the index's extra
columns by those of tui.catalog.index.row_extras, gathered in the facts walk. A file that is not a plain snapshot
is left to the tree (`row.loaded` stays False).
"""

from __future__ import annotations

from collections import Counter

from tui.catalog.index.row_extras import TEXT_KINDS, TEXT_MAX, OpTally, headend_value, write_extras
from tui.catalog.row_facts import TreeFacts, ranked_models
from tui.model.session_facts import newest, own_last
from tui.catalog.session_row import SessionRow, row_max_bytes, summarise_file_row
from tui.formats.aiagent.facts import OpAttributes, OpFacts, PayloadFacts, SessionFacts, snapshot_facts
from tui.inputs.files import LoadError, read_source
from tui.model.gc_pause import paused_gc
from tui.model.nodes import Session, release_tree


class _RowWalk:
    """What a row reads of every op, given op by op by the facts walk (tui.formats.aiagent.facts.OnOp)."""

    __slots__ = ("own", "nested", "last", "headend", "tally")

    def __init__(self) -> None:
        self.own: Counter[str] = Counter()
        self.nested: Counter[str] = Counter()
        self.last: int | None = None
        self.headend = ""
        self.tally: OpTally | None = None  # from `start`, before the first op

    def start(self, root: Session) -> None:
        """The facts walk's `on_root`: the root's own fields are read."""
        self.tally = OpTally(root)

    def on_op(self, op: OpFacts, attrs: OpAttributes, error: str, own: bool, child: SessionFacts | None) -> None:
        # (run for every op of 100,000s of files: reads each field once, and calls only when there is work)
        started, ended = op.startedAt, op.endedAt  # (newest, inline: the walk let only ints or None through)
        last = self.last
        if ended is not None and (last is None or ended > last):
            last = ended
        if started is not None and (last is None or started > last):
            last = started
        self.last = last
        kind = op.kind
        if kind == "llm":
            model = attrs.model
            if model:
                (self.own if own else self.nested)[model] += 1
        if own and not self.headend and op.logs:
            for entry in op.logs:
                self.headend = headend_value(entry.headendId)
                if self.headend:
                    break
        status = op.status
        tally = self.tally
        assert tally is not None
        if error or status == "failed" or kind == "tool" or child is not None:  # (else OpTally.add does nothing)
            tally.add(status, error, kind, attrs.name or "", (child.agentId or "") if child is not None else "")
        response = op.response
        if response is not None and kind in TEXT_KINDS:  # (OpTally.add_text's rule, inline: a call less an op)
            texts = tally.results if kind == "tool" else tally.answers
            if texts.size < TEXT_MAX:
                payload = response.payload  # (the tree's rule: row_extras.payload_text)
                if type(payload) is PayloadFacts:
                    payload = payload.textPreview
                if type(payload) is str and payload:
                    texts.add(payload)
        if child is not None and (child.turns or child.steps):  # (the tree's Session.turns holds both)
            tally.add_turn_answers((child.turns or []) + (child.steps or []))


def fill_from_facts(row: SessionRow, record: dict) -> bytes | bytearray | None:
    """Fill `row` (and the index's extra columns in `record`) when its file is a plain snapshot, and mark it
    loaded; otherwise leave both as they were. Gives the file's content when it was read (for the tree to use),
    None when it could not be (the tree's reader says why). Never raises."""
    try:
        data = read_source(row.key, row_max_bytes())  # (a file's row: its key is its path)
    except (LoadError, MemoryError):
        return None
    walk = _RowWalk()
    try:
        with paused_gc():
            root = snapshot_facts(data, walk.on_op, on_root=walk.start)
    except Exception:  # noqa: BLE001 - whatever it is, the tree's reader meets it too and says what it is
        return data
    if root is None:
        return data
    last = newest(own_last(root), walk.last)
    summarise_file_row(row, root, TreeFacts(ranked_models(walk.own, walk.nested), last))
    assert walk.tally is not None
    write_extras(record, root, walk.headend, walk.tally)
    release_tree(root)  # (its turns link back to it: freed now, not by the collector's next pass)
    row.loaded = True
    return data
