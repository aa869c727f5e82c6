"""The legend of the `?` help screen: every symbol and abbreviation the screens show, with what it means.

Kept apart from the keys (help.py reads those from the bindings); the README's "What the symbols mean" section says
the same, and tests/ui/test_help_legend.py holds the two together. When a screen gets a new glyph or short label,
add it here.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

# (group, [(symbol as shown, meaning)])
LEGEND: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("status", (
        ("● running", "no end yet: the session, turn or op is still going"),
        ("○ stale", "no end, but its file or stream has not changed for --stale-after (10m): its writer may be gone"),
        ("12.3s+", "a duration still growing (running), or known so far (stale: up to its last activity)"),
        ("✗ failed / ✗ FAILED", "failed (in red; the error follows on an op)"),
        ("ok", "finished without failure"),
        ("BROKEN", "the file, node or sub-agent could not be read in full (the reason follows)"),
        ("ERR / WRN", "how many error / warning logs a turn or op has"),
        ("!", "after a browser Cost: the stored totals disagree with the recomputed ones (the Totals panel "
              "says which, under ⚠)"),
        ("?", "after a browser Cost or Tokens: the file holds absurd numbers (2^63 tokens, an infinite or negative "
              "cost, a start in year 9999), clamped; `stats` lists such sessions as suspect"),
        ("⚠", "a warning in the Totals panel"),
    )),
    ("tree and paths", (
        ("◆", "a session (the root, or a sub-agent drilled into): its agent, title, status, duration, tokens"),
        ("LLM TOOL AGENT SYS", "op kinds: a model call, a tool call, a sub-agent call, the producer's own op"),
        ("1-2", "op path: turn 1, op 2 (turn 0 is the producer's init/fin turn)"),
        ("S0-1", "an op of v2 step 0"),
        ("1-2.3-1", "op 3-1 of the sub-agent that op 1-2 called (paths join with a dot)"),
        ("→ name", "the sub-agent an op calls"),
        ("✗N", "on a folded turn or sub-agent: N failed ops inside (expand it to see them)"),
        ("12k→3k $0.0123", "tokens in → tokens out, then the cost in USD"),
        ("(stored elsewhere)", "a sub-agent whose tree is in another file"),
        ("›", "breadcrumb: the root session › the sub-agents drilled into"),
        ("▸ text", "live panel: the newest streamed output or thinking"),
    )),
    ("browser", (
        ("v3", "Id column: a v3 ledger (session/<id>.jsonl)"),
        ("live", "Id column: a session from the event stream (--listen / --connect)"),
        ("jules / genkit", "Id column: a Jules snapshot / Genkit snapshots"),
        ("▼ ▲", "the sorted column's header: descending / ascending"),
        ("↓ ↑", "the sort order (descending / ascending) in the summary line"),
        ("✓", "a marked row (m; d on another row compares the two)"),
        ("…", "a cell still loading, or text cut to fit"),
        ("live: … gaps", "events missing in a session's sequence numbers (lost)"),
        ("gaps:N", "Events column of a live row: N events lost on the way"),
        ("N dropped by bridge", "events the producer's bridge dropped while the monitor was away (tui/bridge)"),
    )),
    ("totals", (
        ("in / out", "input / output tokens"),
        ("cR / cW", "cache read / cache write tokens"),
        ("dur", "duration"),
        ("tools", "tools run"),
    )),
    ("payloads and logs", (
        ("wrap / nowrap", "payload viewer: long lines are soft-wrapped / scroll sideways (z toggles it)"),
        ("▸ system", "messages view: the system prompt, folded (Enter expands it, ▾ when open)"),
        ("following / paused", "log pane title: new lines keep the view at the bottom / you scrolled up (End "
                               "follows again)"),
    )),
    ("waterfall", (
        ("━", "a session or turn span"),
        ("█", "an op (coloured by kind; red when failed)"),
        ("▒", "running: the span grows with the clock"),
        ("░", "times partly missing (inferred from neighbours)"),
        ("▌ │", "too short to draw at this zoom: a mark where it starts"),
        ("┊", "grid line"),
        ("◂ ▸", "the span is off screen to the left / right"),
        ("▾ ▸", "expanded / collapsed row"),
    )),
    ("diff and history", (
        ("+ - ~ ≠ *", "diff: added, removed, status changed, renamed (same path, another call), usage changed"),
        ("Δ", "diff: B minus A"),
        ("◀ version n/m", "history: an older version is on screen (live updates paused for this view)"),
        ("! line", "dump --payloads: a problem with a payload (an · line is information)"),
    )),
    ("stats and search", (
        ("▁▂▃▄▅▆▇█", "stats: a sparkline, one character per day, the highest day the full block (blank: zero)"),
        ("██▍", "stats: a bar, the row's cost against the largest of its table"),
        ("3 12%", "stats, failed column: failed sessions, and their share of the row's sessions"),
        ("field", "search: where the words matched (title, prompt, agents, tools, errors); the match is "
                  "highlighted in the snippet"),
    )),
)


def legend_table() -> Table:
    """The legend as one table, symbols in the first column (plain text: never markup)."""
    table = Table(title="What the symbols mean", expand=True, show_header=False)
    table.add_column("symbol", style="bold", no_wrap=True)
    table.add_column("means")
    for group, rows in LEGEND:
        table.add_row(Text(group, style="bold underline"), Text(""))
        for symbol, meaning in rows:
            table.add_row(Text(symbol), Text(meaning))
    return table
