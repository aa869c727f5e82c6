"""Search across sessions: SQLite FTS5 over the titles, prompts, agents, tools, errors, answers and tool results of
the sessions index.

What a person types is never FTS5 syntax: each word becomes a quoted prefix term ("we said" → `"we"* "said"*`,
every term required), so quotes, AND/OR/NOT/NEAR, parentheses, `*`, `:` and `^` are searched as text and never
raise a syntax error. `field:word` (title, prompt, agent(s), tool(s), error(s), answer(s), result(s)) limits a word
to one column.

A hit says which field matched (the first of FIELDS whose snippet has a match), and `locate` finds, in the session
once it is loaded, the op to open it at: the first op of the first user turn for a title or prompt, the first op of
the tool searched for, the first failed op for an error, the op calling the sub-agent searched for, the first LLM
op for an answer, the first tool op for a tool result. Takes an open sqlite3.Connection (the store's, or a test's).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tui.model.fields import one_line
from tui.model.nodes import Op, Session
from tui.model.search import walk_ops

FIELDS = ("title", "prompt", "agents", "tools", "errors", "answers", "results")
ALIASES = {"title": "title", "prompt": "prompt", "agent": "agents", "agents": "agents", "tool": "tools",
           "tools": "tools", "error": "errors", "errors": "errors", "answer": "answers", "answers": "answers",
           "result": "results", "results": "results"}
LIMIT = 200
MAX_TERMS = 16  # more words than this are dropped: a pasted paragraph must not build a huge query
MAX_TERM_CHARS = 200
# Snippet markers: characters the index never keeps in text (one_line makes control characters visible).
HIT_START, HIT_END = "\x02", "\x03"
SNIPPET_TOKENS = 12


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed search: the FTS5 MATCH expression, and the words with the column each is limited to."""

    match: str
    words: tuple[tuple[str | None, str], ...]  # (column or None, word lower-cased)

    def __bool__(self) -> bool:
        return bool(self.match)


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def build_query(text: str) -> Query:
    """The safe FTS5 expression for what a person typed (empty when nothing searchable is left)."""
    parts: list[str] = []
    words: list[tuple[str | None, str]] = []
    for raw in str(text).split()[:MAX_TERMS]:
        word = raw.encode("utf-8", "replace").decode("utf-8")[:MAX_TERM_CHARS]  # lone surrogates cannot bind
        name, colon, value = word.partition(":")
        column = ALIASES.get(name.lower()) if colon and value else None
        if column is not None:
            word = value
        word = word.replace("\x00", "")
        if not any(ch.isalnum() for ch in word):
            continue  # punctuation alone: FTS5's tokenizer would leave an empty phrase
        term = _quoted(word) + "*"
        parts.append(f"{column} : {term}" if column else term)
        words.append((column, word.lower()))
    return Query(" ".join(parts), tuple(words))


@dataclass(frozen=True, slots=True)
class Hit:
    path: str
    session_id: str
    agent: str
    title: str
    started_ms: int | None
    status: str
    field: str  # the first of FIELDS that matched
    snippet: str  # one line, the matches between HIT_START and HIT_END

    def as_json(self) -> dict:
        return {"path": self.path, "session_id": self.session_id, "agent": self.agent, "title": self.title,
                "started_ms": self.started_ms, "status": self.status, "field": self.field,
                "snippet": self.snippet.replace(HIT_START, "[").replace(HIT_END, "]")}


def search(conn: sqlite3.Connection, text: str | Query, limit: int = LIMIT) -> list[Hit]:
    """The sessions matching `text`, best first (FTS5's bm25 rank). Nothing searchable: no hits."""
    query = text if isinstance(text, Query) else build_query(text)
    if not query:
        return []
    snippets = ", ".join(
        f"snippet(sessions_fts, {i}, '{HIT_START}', '{HIT_END}', '…', {SNIPPET_TOKENS})" for i in range(len(FIELDS)))
    sql = (f"SELECT s.path, s.session_id, s.agent, s.title, s.started_ms, s.status, {snippets} "
           "FROM sessions_fts JOIN sessions s ON s.rowid = sessions_fts.rowid "
           "WHERE sessions_fts MATCH ? AND s.kind NOT IN ('child', 'live') ORDER BY rank LIMIT ?")
    hits = []
    for row in conn.execute(sql, (query.match, limit)):
        path, session_id, agent, title, started, status = row[:6]
        field, snippet = FIELDS[0], ""
        for name, text_ in zip(FIELDS, row[6:]):
            if text_ and HIT_START in text_:
                field, snippet = name, text_
                break
        hits.append(Hit(str(path), str(session_id), str(agent or ""), str(title or ""), started, str(status or ""),
                        field, _clean(snippet)))
    return hits


def _clean(snippet: str, limit: int = 400) -> str:
    """The snippet on one line, its text made inert (tui.model.fields.one_line), the markers kept."""
    out = []
    for i, part in enumerate(snippet.split(HIT_START)):
        inside, _, after = part.partition(HIT_END) if i else ("", "", part)
        if i:
            out.append(HIT_START + one_line(inside, limit) + HIT_END)
        out.append(one_line(after, limit))
    return "".join(out)[: limit * 2]


def segments(snippet: str) -> list[tuple[str, bool]]:
    """A snippet as (text, is_match) pieces, for highlighting."""
    pieces: list[tuple[str, bool]] = []
    for i, part in enumerate(snippet.split(HIT_START)):
        inside, _, after = part.partition(HIT_END) if i else ("", "", part)
        if inside:
            pieces.append((inside, True))
        if after:
            pieces.append((after, False))
    return pieces


# ----------------------------------------------------------------------------------------------- where to open
def _first_user_op(root: Session) -> Op | None:
    first = None
    for turn in root.turns:
        if turn.ops and first is None:
            first = turn.ops[0]
        if turn.kind == "turn" and turn.index >= 1 and not turn.system and turn.ops:
            return turn.ops[0]
    return first


def _words_for(query: Query, field: str) -> list[str]:
    return [word for column, word in query.words if column in (None, field)]


def locate(root: Session | None, field: str, query: Query | str) -> str | None:
    """The path of the op to open a hit at, in the session as loaded (None: open it at its top)."""
    if root is None:
        return None
    q = query if isinstance(query, Query) else build_query(query)
    op: Op | None = None
    if field == "tools":
        words = _words_for(q, "tools")
        op = next((o for o in walk_ops(root) if o.kind == "tool" and any(w in o.name.lower() for w in words)), None)
    elif field == "errors":
        op = next((o for o in walk_ops(root) if o.status == "failed" or o.error), None)
    elif field in ("answers", "results"):
        kind = "llm" if field == "answers" else "tool"
        op = next((o for o in walk_ops(root) if o.kind == kind), None)
    elif field == "agents":
        words = _words_for(q, "agents")
        op = next((o for o in walk_ops(root) if o.kind == "session" and o.child is not None
                   and any(w in (o.child.agent_id or o.name).lower() for w in words)), None)
    if op is None:
        op = _first_user_op(root)
    return op.path if op is not None else None
