"""Open the v3 ledger of a sub-agent that a v2 snapshot only names (an op's `childSessionRef`).

The producer writes `childSessionRef: {sessionId, originId, agentId, callPath, status}` instead of embedding the
child when the child's record went to its own v3 ledger. When that ledger is in the same sessions directory
(`<dir>/session/<sessionId>.jsonl`, or the ref's `ledgerPath` inside the directory) it becomes the op's sub-agent,
counted like an embedded one; otherwise the op stays a "stored elsewhere" node. Nothing outside the directory is
ever opened (LedgerBuilder.resolve).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from tui.formats.aiagent.ledger import LedgerBuilder, child_ledger_path
from tui.inputs.files import LoadError
from tui.model.nodes import Op, Session
from tui.model.search import walk_ops

REF_KEY = "childSessionRef"


def link_child_refs(root: Session, sessions_dir: Path | None) -> None:
    """Attach the ledgers the tree's childSessionRef ops name; a ref refused for its path gets a `problem`."""
    if sessions_dir is None:
        return
    pending = _ref_ops(root)
    if not pending:
        return
    builder = LedgerBuilder(sessions_dir)
    for op in pending:
        ref = cast(dict, op.child_ref)  # (_ref_ops: the op's raw childSessionRef, a dict)
        ledger_path = child_ledger_path(ref)
        if not isinstance(ledger_path, str) or not ledger_path:
            continue  # names no session file: stored elsewhere
        try:
            path = builder.resolve(ledger_path)
        except LoadError as exc:
            op.child_ref = dict(ref, problem=exc.reason)
            continue
        if path.exists():
            builder.attach(op, ref)


def _ref_ops(root: Session) -> list[Op]:
    """Ops holding a childSessionRef (not a childSessionSummary), in tree order (collected before any is attached)."""
    return [op for op in walk_ops(root)
            if op.child is None and op.child_ref is not None and op.raw is not None
            and op.raw.get(REF_KEY) is op.child_ref]
