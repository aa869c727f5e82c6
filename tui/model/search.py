"""Search across a whole tree (sub-agents included) and the errors-only filter."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tui.model.fields import as_list
from tui.model.nodes import Op, Session, Turn


def walk_ops(session: Session) -> Iterator[Op]:
    """Every op in tree order, descending into sub-agents right after their op."""
    stack: list[Iterator[Op]] = [session.all_ops()]
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.child is not None:
            stack.append(op.child.all_ops())


def op_matches(op: Op, needle: str) -> bool:
    """Case-insensitive match on names, agents, models, errors and log messages."""
    fields = (op.name, op.target, op.model, op.provider, op.error, op.label, op.path, op.child_agent, op.op_id)
    if any(needle in f.lower() for f in fields if f):
        return True
    if op.child is not None and op.child.error and needle in op.child.error.lower():
        return True
    if op.raw is not None:
        for log in as_list(op.raw.get("logs")):
            if isinstance(log, dict):
                message = log.get("message")
                if isinstance(message, str) and needle in message.lower():
                    return True
    return False


def find(session: Session, query: str) -> list[Op]:
    needle = query.strip().lower()
    if not needle:
        return []
    return [op for op in walk_ops(session) if op_matches(op, needle)]


def op_is_bad(op: Op) -> bool:
    return op.failed or op.errors > 0 or bool(op.problems) or (op.child is not None and op.child.status == "failed")


class ErrorFilter:
    """Keeps failed and erroring ops and the turns/ops that lead to them; remembers answers per node.

    Answers are computed bottom-up with an explicit stack: sub-agents nested hundreds deep cost no recursion.
    """

    def __init__(self) -> None:
        self._memo: dict[int, bool] = {}

    def __call__(self, node: object) -> bool:
        key = id(node)
        hit = self._memo.get(key)
        if hit is None:
            self._fill(node)
            hit = self._memo[key]
        return hit

    def _fill(self, top: object) -> None:
        memo = self._memo
        stack: list[tuple[object, bool]] = [(top, False)]
        while stack:
            node, children_done = stack.pop()
            key = id(node)
            if key in memo:
                continue
            children = _children(node)
            if children_done:
                memo[key] = any(memo[id(child)] for child in children)
            elif _bad_itself(node):
                memo[key] = True
            else:
                stack.append((node, True))
                stack.extend((child, False) for child in children if id(child) not in memo)


def _bad_itself(node: object) -> bool:
    if isinstance(node, Op):
        return op_is_bad(node)
    if isinstance(node, Turn):
        return bool(node.problems) or any(log.severity in ("ERR", "FATAL") for log in node.extra_logs)
    if isinstance(node, Session):
        return bool(node.problems)
    return False


def _children(node: object) -> list:
    if isinstance(node, Op):
        return [node.child] if node.child is not None else []
    if isinstance(node, Turn):
        return node.ops
    if isinstance(node, Session):
        return node.turns
    return []


_STEP_SEGMENT = re.compile(r"(?:(?<=^)|(?<=\.))s(?=\d+-\d+(?:\.|$))")


def normalise_op_path(path: str) -> str:
    """An op path as typed (`--op s0-1`, ` 2-2.S0-1 `) in the form the loader builds: v2 step segments are
    `S<step>-<op>` with a capital S, as the producer writes them."""
    return _STEP_SEGMENT.sub("S", path.strip())


def find_op_by_path(session: Session, path: str) -> Op | None:
    path = normalise_op_path(path)
    for op in walk_ops(session):
        if op.path == path:
            return op
    return None


def find_session_by_prefix(root: Session, prefix: str) -> Session | None:
    """The session whose ops' paths start with `prefix` ("" = the root): the same sub-agent in a newer tree."""
    if not prefix:
        return root
    op = find_op_by_path(root, prefix)
    return op.child if op is not None else None


def newest_op(session: Session) -> Op | None:
    """The op that started last (ties: the later in tree order), sub-agents included."""
    best: Op | None = None
    for op in walk_ops(session):
        if best is None or (op.started_at or 0) >= (best.started_at or 0):
            best = op
    return best
