"""A turn or v2 step of a snapshot session, as a Turn: the one reading of a turn node, shared by the tree builder
(tui.formats.aiagent.snapshot) and the facts reader (tui.formats.aiagent.facts), which builds the root's turns
only (their prompts, labels and indexes make a row's title and Turns) and no ops."""

from __future__ import annotations

from tui.formats.aiagent import heads
from tui.model.fields import as_dict, ms_field, str_field, type_name
from tui.model.nodes import Session, Turn


def build_turn(s: Session, node: object, kind: str, position: int) -> tuple[Turn, list]:
    """The turn or step itself, and the op nodes it holds (still to be walked)."""
    t = Turn(s, kind, position)
    lazy_ops = None
    if isinstance(node, heads.TurnHead):
        lazy_ops, node = node.ops, heads.turn_fields(node)
    if kind == "turn":
        s.counts.turns += 1
    else:
        s.counts.steps += 1
    if not isinstance(node, dict):
        t.problems.append(f"{kind} {position} is {type_name(node)}, expected an object")
        return t, []
    problems = t.problems
    t.raw = node
    index = node.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        t.index = index
    elif index is not None:
        problems.append(f"index is {type_name(index)}, expected a number")
    t.id = str_field(node, "id", problems)
    t.started_at = ms_field(node, "startedAt", problems)
    t.ended_at = ms_field(node, "endedAt", problems)
    t.step_kind = str_field(node, "kind", problems)
    attrs = node.get("attributes")
    if attrs is not None and not isinstance(attrs, dict):
        problems.append(f"attributes is {type_name(attrs)}, expected an object")
    attrs = as_dict(attrs)
    t.system = attrs.get("system") is True or node.get("system") is True
    t.label = str_field(attrs, "label", problems) or str_field(node, "label", problems)
    t.status = str_field(attrs, "status", problems)  # ledger turns replayed as trees carry their ok|failed|running here
    prompts = attrs.get("prompts")
    t.prompts = prompts if isinstance(prompts, dict) else None
    ops = node.get("ops") if lazy_ops is None else lazy_ops
    if ops is not None and not isinstance(ops, list):
        problems.append(f"ops is {type_name(ops)}, expected an array")
        return t, []
    return t, ops or []
