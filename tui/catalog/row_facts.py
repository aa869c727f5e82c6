"""What a browser row says about a session beyond its totals: a title to recognise it by, the models it used, and
when it last did something. Read from the tree that `fill_row` (or the live hub) already built: nothing is loaded
for these alone, and the walk is iterative (sub-agents thousands deep)."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass

from tui.catalog.liveness import Liveness, liveness
from tui.model.fields import one_line
from tui.model.nodes import Session
from tui.model.search import walk_ops
from tui.model.session_facts import newest, own_last, session_facts

MODELS_MAX = 8  # distinct models kept per row (for the model: filter); the column shows the first
SHARED_MAX = 10_000  # distinct model tuples shared between rows (fill threads only add: a lost race costs a copy)
_SHARED: dict[tuple[str, ...], tuple[str, ...]] = {}
TITLE_MAX = 200  # a session title, or an error
PROMPT_MAX = 120  # a prompt standing in for a title: more than the widest Title column, 100k of them kept
NAME_MAX = 80  # an agent, model, tool or sub-agent name as a row keeps it
NAMES_KEPT = 4096  # names remembered flattened (row_name), each of at most 4 * NAME_MAX characters
_NAMES: dict[str, str] = {}


@dataclass(frozen=True, slots=True)
class TreeFacts:
    models: tuple[str, ...]  # most used first (the session's own LLM calls before its sub-agents')
    last_activity_ms: int | None  # the newest start or end time in the tree (session time)


def first_prompt(session: Session) -> str:
    """The first user prompt of the session's own turns, on one line ("" when none was recorded: v3 ledgers do
    not carry prompts). A prompt given as content blocks shows their text."""
    for turn in session.turns:
        prompts = turn.prompts
        if not prompts or turn.system:
            continue
        text = _text_of(prompts.get("user"))
        if text.strip():
            # cut before flattening (a prompt may be megabytes), and without a "…": one non-Latin-1 character
            # doubles the size of the string kept for each of 100k rows (the cell adds its own ellipsis)
            return one_line(text[: PROMPT_MAX * 4], PROMPT_MAX * 4)[:PROMPT_MAX].rstrip()
    return ""


def _text_of(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # [{type: text, text: ...}, ...] or a list of strings
        parts = [_text_of(item.get("text") if isinstance(item, dict) else item) for item in value[:20]]
        return " ".join(part for part in parts if part)
    if isinstance(value, dict):
        return _text_of(value.get("text") or value.get("content"))
    return ""


def row_title(session: Session) -> str:
    """The title a row shows: the session's title, else its first user prompt, else (failed) its error."""
    title = session.title or first_prompt(session)
    if not title and session.status == "failed":
        title = session.error or ""
    return one_line(title, TITLE_MAX)


def tree_facts(session: Session) -> TreeFacts:
    """Models and last activity in one walk over every op (sub-agents included)."""
    own: Counter[str] = Counter()
    nested: Counter[str] = Counter()
    last = own_last(session)
    for op in walk_ops(session):
        last = newest(last, op.started_at, op.ended_at)
        if op.kind == "llm" and op.model:
            (own if op.turn.session is session else nested)[op.model] += 1
    return TreeFacts(ranked_models(own, nested), last)


def ranked_models(own: Counter[str], nested: Counter[str]) -> tuple[str, ...]:
    """A row's models from the LLM calls counted per model: the session's own (most used first), then its
    sub-agents' (tree_facts, and the sessions index reading a plain snapshot without its tree)."""
    ranked = [name for name, _ in own.most_common()] + [name for name, _ in nested.most_common() if name not in own]
    models = tuple(row_name(name) for name in ranked[:MODELS_MAX])
    if len(_SHARED) < SHARED_MAX:
        models = _SHARED.setdefault(models, models)  # ... and a few combinations of them: one tuple each
    return models


def row_name(name: str) -> str:
    """A name as a row keeps it (its agent, models, tools, sub-agents): on one line, at most NAME_MAX characters,
    one string however many rows hold it. Remembered: a few hundred names recur over 100,000s of files, and
    flattening one (tui.model.fields.one_line) costs several times finding it again (threads only add: a lost race
    costs a copy)."""
    shown = _NAMES.get(name)
    if shown is None:
        shown = sys.intern(one_line(name, NAME_MAX))
        if len(_NAMES) < NAMES_KEPT and len(name) <= 4 * NAME_MAX:
            _NAMES[name] = shown
    return shown


def row_project(project: str) -> str:
    """A project as rows keep it (tui.model.agent_nodes.session_project made it safe already): one string however
    many rows hold it (a few projects recur over 100,000s of rows)."""
    return sys.intern(project) if project else ""


def model_label(models: tuple[str, ...]) -> str:
    """The Model cell: the main model, and how many others (`claude-sonnet-4-5 +2`)."""
    if not models:
        return ""
    return models[0] if len(models) == 1 else f"{models[0]} +{len(models) - 1}"


def session_liveness(session: Session, *, now_s: float, last_change_s: float | None,
                     stale_after_s: float | None = None) -> Liveness:
    """Status and duration for the Totals panel of a session on screen: its status (`stale` once its file or
    stream went silent, `last_change_s` the file's mtime or the live session's last event, wall seconds) and its
    duration as every view shows it (tui.model.session_facts: up to its last activity when it has no end)."""
    facts = session_facts(session)
    return liveness(facts.status, facts.duration_ms, last_change_s=last_change_s, now_s=now_s,
                    stale_after_s=stale_after_s)
