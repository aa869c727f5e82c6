"""Request content shared by both LLM dialects: provider tool definitions and a synthetic conversation history."""

from __future__ import annotations

import random
from typing import Any

from .prose import rand_id, text

__all__ = ["tool_definitions"]


def tool_definitions(tools: list[dict[str, Any]], dialect: str) -> list[dict[str, Any]]:
    """``tools``: ``[{name, description, schema}]`` -> provider tool definitions."""
    if dialect == "anthropic":
        return [{"name": t["name"], "description": t["description"], "input_schema": t["schema"]} for t in tools]
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["schema"]},
        }
        for t in tools
    ]


def per_message_bytes(target_bytes: int, n_messages: int, system: str, user_prompt: str,
                      tool_descriptions: list[str], per_tool: int) -> int:
    """What each history message may take for a request body to come out near `target_bytes`: the system prompt,
    the user prompt, the tool definitions (`per_tool` bytes of JSON around each description) and 200 bytes of
    envelope come off first. One budget for every provider's body builder."""
    fixed = len(system) + sum(len(d) + per_tool for d in tool_descriptions) + len(user_prompt) + 200
    return max(12, (target_bytes - fixed) // max(1, n_messages))


def _history(rng: random.Random, n_messages: int, per_msg: int, user_prompt: str, tool_names: list[str]):
    """Yield (role, text, tool_name, call_id) tuples for a conversation of ``n_messages`` messages."""
    out = [("user", user_prompt, None, None)]
    call_id = None
    tname = None
    for i in range(1, n_messages):
        if i % 2 == 1:
            tname = tool_names[rng.randrange(len(tool_names))] if tool_names else "web__search"
            call_id = rand_id(rng, 22)
            out.append(("assistant", text(rng, max(8, per_msg // 3)), tname, call_id))
        else:
            out.append(("tool", text(rng, per_msg), tname, call_id))
    return out
