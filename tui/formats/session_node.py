"""SessionNode / TurnNode / OperationNode dicts (the ai-agent snapshot shape) for the readers of other agents' own
files (Codex CLI, Gemini CLI): they describe a session in that shape and tui.formats.aiagent.snapshot builds the
tree, so totals, facts, the session screen, `dump`, stats and search see one kind of tree whatever wrote it.

An agent's file records no cost: its root is marked `costRecorded: false` and `costUnknown: true` (shown as unknown,
never as $0; an estimate from a price table may fill it in later), with `agentKind` naming the agent.
"""

from __future__ import annotations

from tui.model.fields import as_dict, as_int, as_list, as_ms
from tui.model.prices import estimate

MAX_TEXT = 2_000_000  # a tool output or message kept whole up to this many characters, then cut with a note


def cut(text: str) -> str:
    """A text kept for the payload views, cut (and said so) when absurdly long."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[... {len(text) - MAX_TEXT:,} more characters not kept]"


def root_node(agent: str, session_id: str, title: str, started: object, ended: object) -> dict:
    return {
        "id": session_id, "traceId": session_id, "agentId": agent, "callPath": agent, "sessionTitle": title,
        "startedAt": as_ms(started), "endedAt": as_ms(ended), "turns": [],
        "attributes": {"agentKind": agent, "costRecorded": False, "costUnknown": True},
    }


def turn_node(index: int, started: object, prompt: str) -> dict:
    attributes: dict = {"prompts": {"system": "", "user": cut(prompt)}} if prompt else {}
    return {"id": f"turn-{index}", "index": index, "startedAt": as_ms(started), "endedAt": as_ms(started),
            "attributes": attributes, "ops": []}


def add_op(turn: dict, node: dict) -> dict:
    turn["ops"].append(node)
    extend(turn, node)
    return node


def extend(turn: dict, node: dict) -> None:
    """The turn lasts at least until the op ended (or started); called again when an op's end becomes known."""
    for key in ("endedAt", "startedAt"):
        end = node.get(key)
        if isinstance(end, int):
            if turn.get("endedAt") is None or end > turn["endedAt"]:
                turn["endedAt"] = end
            return


def finish(root: dict) -> dict:
    """Every turn ends at its last op's end (ops learn their end after they were added: an output, a token
    count, a rewritten message); the calls' costs are estimated (price_calls)."""
    for turn in root["turns"]:
        for op in turn["ops"]:
            extend(turn, op)
    price_calls(root)
    return root


def price_calls(root: dict) -> None:
    """Each llm call's cost from the price table (tui.model.prices), as Claude Code's reader does: the file
    records none. The root is then marked `costEstimated` (shown `~$`), and no longer `costUnknown`; a model the
    table does not know gives no estimate (its calls count nothing, and the session says so), never a made-up
    $0. A sub-agent read on its own was priced already: its estimate makes the parent's an estimate too."""
    attributes = root["attributes"]
    priced, unpriced = False, set()
    for turn in as_list(root.get("turns")):
        for op in as_list(as_dict(turn).get("ops")):
            op = as_dict(op)
            child = as_dict(op.get("childSession"))
            priced = priced or as_dict(child.get("attributes")).get("costEstimated") is True
            for entry in as_list(op.get("accounting")):
                if not isinstance(entry, dict) or entry.get("type") != "llm" or "costUsd" in entry:
                    continue
                tokens, model = as_dict(entry.get("tokens")), str(entry.get("model") or "")
                cost = estimate(model, as_int(tokens.get("inputTokens")), as_int(tokens.get("outputTokens")),
                                as_int(tokens.get("cacheReadInputTokens")), as_int(tokens.get("cacheWriteInputTokens")))
                if cost is None:
                    unpriced.add(model or "(no model)")
                else:
                    entry["costUsd"], priced = cost, True
    if priced:
        attributes.update(costEstimated=True, costUnknown=False)
    if priced and unpriced:
        problems = attributes.setdefault("problems", [])
        problems.extend(f"no price known for model {m[:80]}: its cost is not estimated" for m in sorted(unpriced))


def llm_op(op_id: str, started: object, provider: str, model: str) -> dict:
    """An LLM call without its answer and tokens yet (set_answer, set_tokens)."""
    return {"opId": op_id, "kind": "llm", "status": "ok", "startedAt": as_ms(started), "endedAt": as_ms(started),
            "attributes": {"provider": provider, "model": model},
            "request": {"kind": "llm", "payload": {}}, "response": {"payload": {"textPreview": ""}},
            "accounting": []}


def set_answer(op: dict, text: str) -> None:
    response = op["response"]["payload"]
    joined = (response.get("textPreview") or "") + ("\n" if response.get("textPreview") else "") + text
    response["textPreview"] = cut(joined)
    op["response"]["size"] = len(response["textPreview"])


def add_reasoning(op: dict, text: str, ts: object) -> None:
    reasoning = op.setdefault("reasoning", {"chunks": []})
    reasoning["chunks"].append({"text": cut(text), "ts": as_ms(ts)})


def set_tokens(op: dict, ts: object, tokens: dict, provider: str, model: str) -> None:
    """The call's usage as one llm accounting entry; no `costUsd`: the file records none."""
    op["accounting"] = [{"type": "llm", "timestamp": as_ms(ts), "provider": provider, "model": model,
                         "tokens": tokens}]
    ended = as_ms(ts)
    if ended is not None:
        op["endedAt"] = ended


def tool_op(op_id: str, started: object, name: str, arguments: object, provider: str = "") -> dict:
    """A tool call still running (no output yet: set_output ends it)."""
    return {"opId": op_id, "kind": "tool", "startedAt": as_ms(started),
            "attributes": {"name": name, "provider": provider},
            "request": {"kind": "tool", "payload": _kept(arguments)}}


def set_output(op: dict, ended: object, output: object, error: str = "") -> None:
    kept = _kept(output)
    op["response"] = {"payload": kept, "size": len(kept) if isinstance(kept, str) else None}
    op["endedAt"] = as_ms(ended) if as_ms(ended) is not None else op.get("startedAt")
    op["status"] = "failed" if error else "ok"
    if error:
        op["attributes"]["error"] = error[:500]


def end_unfinished(op: dict, ended: object, error: str) -> None:
    """A tool call whose output never came (its turn was aborted, or the file ends): failed with `error`."""
    if op.get("kind") == "tool" and "status" not in op:
        op["status"] = "failed"
        op["endedAt"] = as_ms(ended) if as_ms(ended) is not None else op.get("startedAt")
        op["attributes"]["error"] = error


def system_op(op_id: str, ts: object, label: str, text: str = "", error: str = "") -> dict:
    attributes = {"label": label, "name": label}
    if error:
        attributes["error"] = error[:500]
    node: dict = {"opId": op_id, "kind": "system", "status": "failed" if error else "ok", "startedAt": as_ms(ts),
                  "endedAt": as_ms(ts), "attributes": attributes}
    if text:
        node["response"] = {"payload": cut(text), "size": len(text)}
    return node


def _kept(value: object) -> object:
    return cut(value) if isinstance(value, str) else value
