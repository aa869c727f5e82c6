"""Build ai-agent ``opTree`` SessionNode dicts shaped like real snapshot files.

Everything is driven by one seeded ``random.Random``: the same arguments always give the same tree.
Pure Python + orjson (never imports textual or rich).

The code lives in small modules; this one re-exports all of it (import from here):

* ``generator`` - ``make_tree`` (and ``_Gen``, assembled from ``sessions``, ``llm_ops``, ``tool_ops``,
  ``system_ops``, ``usage``, ``logs`` and ``gen_state``);
* ``plan`` - the tree's shape; ``catalog`` - models, agents, tools...; ``ids`` / ``clock`` - ids and timestamps;
* ``totals`` - ``compute_totals``; ``walk`` - ``iter_sessions``, ``iter_ops``, ``op_path_index``.
"""

from __future__ import annotations

# ruff: noqa: F401  (a facade: every import is a re-export; private ones keep working for existing importers)
from .catalog import (
    _AGENTS,
    _CHEAP,
    _CONTEXTS,
    _DOMAINS,
    _ERR_SLUGS,
    _INGRESS,
    _LLM_ERR,
    _MODELS,
    _OPENROUTER_UPSTREAM,
    _ROOT_AGENTS,
    _STATUSES,
    _TABLES,
    _TITLES,
    _TOOL_SCHEMA,
    _TOOLS,
)
from .clock import _BASE_MS, _iso
from .exchange import llm_exchange
from .gen_state import _b64, _Sess
from .generator import _Gen, make_tree
from .ids import _b36, _uuid
from .llm_ops import _FULL_CAPTURE_BYTES
from .llm_types import Exchange, ToolCall, Usage
from .plan import _make_plan, _Plan
from .prose import HOSTILE_STRINGS, binary_blob, rand_id, sentence, text
from tui.formats.aiagent.snapshot_totals import TOTALS_KEYS, compute_totals
from .walk import iter_ops, iter_sessions, op_path_index

__all__ = ["TOTALS_KEYS", "compute_totals", "iter_sessions", "iter_ops", "make_tree", "op_path_index"]
