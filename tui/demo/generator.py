"""``make_tree``: one seeded root SessionNode (``opTree``), sub-agents included."""

from __future__ import annotations

from .catalog import _ROOT_AGENTS, _TITLES
from .clock import _BASE_MS
from .plan import _make_plan
from .prose import sentence
from .sessions import _SessionBuilder

__all__ = ["DEFAULT_PROVIDERS", "make_tree"]

#: Each session draws its provider from this tuple (repeats weigh): Anthropic and OpenAI most, Gemini and Ollama
#: too (their captures are Gemini streamGenerateContent SSE / JSON arrays and Ollama /api/chat NDJSON).
DEFAULT_PROVIDERS = ("anthropic", "anthropic", "openai", "openai", "google", "ollama")


class _Gen(_SessionBuilder):
    """The whole generator: one seeded rng shared by the session, LLM, tool and system op builders."""


def make_tree(
    seed: int = 0,
    *,
    ops: int = 40,
    depth: int = 2,
    fanout: int = 2,
    running: bool = False,
    failed: bool = False,
    version: int = 2,
    payload_bytes: int = 1500,
    mismatch: bool = False,
    provider_mix=DEFAULT_PROVIDERS,
    started_at: int | None = None,
    hostile_rate: float = 0.01,
    agent: str | None = None,
    capture_rate: float | None = None,
) -> dict:
    """Build one root SessionNode (``opTree``).

    ``ops`` is the approximate total number of ops over the whole tree (sub-agents included); ``depth`` is the
    exact nesting depth of sub-agents (0 = no sub-agents) and ``fanout`` the number of sub-agents of every
    non-leaf session. ``running`` leaves the root (and the last sub-agent chain) unfinished; ``failed`` makes
    the root fail on its last LLM call. ``payload_bytes`` scales the captured bodies: the LLM request body is
    ~payload_bytes (x0.6..1.4), the response/tool results a fraction of it; 0 = no raw/sdk captures at all, and
    below 400 only a proportional share of the LLM ops carry captures (so the size keeps scaling smoothly).
    ``capture_rate`` (0..1) overrides that share: the fraction of LLM ops with raw/sdk captures, each of
    payload_bytes size (real files capture about a tenth). ``mismatch`` corrupts the stored root totals. ``hostile_rate`` is the probability of escape sequences /
    Rich markup in log messages, tool results and titles.
    """
    rng_seed = seed
    g = _Gen(rng_seed, version=version, payload_bytes=payload_bytes, provider_mix=tuple(provider_mix),
             hostile_rate=hostile_rate, style="arrow", capture_rate=capture_rate)
    rng = g.rng
    g.style = "arrow" if rng.random() < 0.6 else "cli"
    plan = _make_plan(rng, ops, depth, fanout, running, failed)
    start = started_at if started_at is not None else _BASE_MS + rng.randrange(0, 60 * 86_400_000)
    root_agent = agent or _ROOT_AGENTS[rng.randrange(len(_ROOT_AGENTS))]
    call_path = root_agent if g.style == "arrow" else f"cli:{root_agent}"
    prompt = rng.choice(_TITLES) + ". " + sentence(rng, 40, 160)
    tree = g.session(plan, agent=root_agent, call_path=call_path, parent_txn=None, prompt=prompt, start=start,
                     prefix="")
    tree.pop("_report", None)
    if mismatch:
        t = tree["totals"]
        t["tokensIn"] += 1000 + rng.randint(1, 999)
        t["costUsd"] = round(t["costUsd"] + 0.0123, 4)
        t["toolsRun"] += 1
    return tree
