"""The sessions browser's columns: which ones fit, in which order, and the cells of a row.

Wide terminals (WIDE_AT columns and more) keep the reading order Started, Agent, Title, Status, Duration, Turns,
Tokens, Cost, Model, Age, (Events), Id. Narrower ones put what answers "is it running, failing, expensive?" first:
Status, Duration, Cost, Age, then Title, then whatever else still fits (Tokens, Started, Agent, Model, Turns,
Events, in that order), and the Id, shortened, last. Title takes what the others leave and never falls below a
minimum; a column that would push it below is left out. Events appears only when live rows exist, and then comes
before Model and Turns on wide terminals (at 160 columns: Events rather than Model).

All cells are Text objects: file content is never parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from tui.catalog.liveness import STALE, humanize_age, shown_status
from tui.catalog.row_facts import model_label
from tui.catalog.session_row import RowKind, SessionRow
from tui.inputs.agent_roots import LOCATIONS
from tui.formats.aiagent.file_identity import MARK as MISFILED
from tui.model.fields import one_line, printable
from tui.model.format import fmt_duration, fmt_tokens, fmt_ts
from tui.model.session_facts import shown_cost


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    width: int


# key -> (label, width); title's width is what is left
SPECS = {"started": ("Started", 19), "agent": ("Agent", 16), "title": ("Title", 0), "status": ("Status", 9),
         "duration": ("Duration", 8), "turns": ("Turns", 5), "tokens": ("Tokens", 8), "cost": ("Cost", 10),
         "model": ("Model", 18), "age": ("Age", 4), "events": ("Events", 14), "id": ("Id", 36),
         "kind": ("Kind", 11)}
WIDE_AT = 140
WIDE_ORDER = ("started", "kind", "agent", "title", "status", "duration", "turns", "tokens", "cost", "model", "age",
              "events", "id")
# in the order they are given room (Events: only with live rows; Kind: only when other agents' roots are listed)
WIDE_OPTIONAL = ("events", "kind", "model", "turns")
NARROW_ORDER = ("status", "duration", "cost", "age", "title", "tokens", "turns", "started", "kind", "agent",
                "model", "events", "id")
NARROW_OPTIONAL = ("tokens", "started", "kind", "agent", "model", "turns", "events")
MIN_TITLE_WIDE, MIN_TITLE_NARROW = 30, 16
SHORT_ID = 13  # a kind tag ("v3 ", "live ") and the first 8 characters of the id
FULL_ID_MIN_TITLE = 48  # the whole id (36) only while Title keeps this much
OUTSIDE = 4  # the title cell's padding and the vertical scrollbar
ARROWS = {True: "▼", False: "▲"}  # descending, ascending


def layout(width: int, *, live: bool = False, sort: str = "", desc: bool = True,
           agents: bool = False) -> tuple[Column, ...]:
    """The columns for a terminal `width` cells wide; the sorted column's header carries ▲/▼. `agents`: other
    agents' sessions are listed (the Kind column is offered)."""
    wide = width >= WIDE_AT
    order, optional = (WIDE_ORDER, WIDE_OPTIONAL) if wide else (NARROW_ORDER, NARROW_OPTIONAL)
    min_title = MIN_TITLE_WIDE if wide else MIN_TITLE_NARROW
    widths = {key: SPECS[key][1] for key in order}
    if sort in widths:  # room for " ▼" after the label
        widths[sort] = max(widths[sort], len(SPECS[sort][0]) + 2)
    widths["id"] = SHORT_ID
    chosen = [key for key in order if key not in optional]

    def title_width(keys) -> int:
        return width - OUTSIDE - sum(widths[key] + 2 for key in keys if key != "title")

    for key in optional:
        if (key == "events" and not live) or (key == "kind" and not agents):
            continue
        if title_width([*chosen, key]) >= min_title:
            chosen.append(key)
    if title_width(chosen) - (SPECS["id"][1] - SHORT_ID) >= FULL_ID_MIN_TITLE:
        widths["id"] = SPECS["id"][1]
    widths["title"] = max(min_title if wide else 8, title_width(chosen))
    keep = set(chosen)
    columns = []
    for key in order:
        if key in keep:
            label = SPECS[key][0] + (f" {ARROWS[desc]}" if key == sort else "")
            columns.append(Column(key, label, widths[key]))
    return tuple(columns)


STATUS_STYLE = {"running": ("● running", "bold yellow"), STALE: ("○ stale", "dim"), "failed": ("failed", "red"),
                "ok": ("ok", "green")}
PENDING = Text("…", style="dim")
AGENT_TAG_STYLE = {"claude-code": "bold #d97757"}  # an agent kind's tag colour (the others: bold cyan)
KIND_TAG = {RowKind.LEDGER: ("v3 ", "cyan"), RowKind.LIVE: ("live ", "bold yellow"),
            RowKind.JULES: ("jules ", "bold magenta"), RowKind.GENKIT: ("genkit ", "bold green"),
            **{loc.kind: (f"{loc.tag or loc.kind} ", AGENT_TAG_STYLE.get(loc.kind, "bold cyan"))
               for loc in LOCATIONS}}  # other agents (tui.inputs.agent_roots)
MARK = "✓ "
MARK_STYLE = "bold magenta"


FOLDED_TAG = "+live "  # a file row that a live stream, now ended, was folded into (tui.catalog.row_merge)


def row_cells(row: SessionRow, columns: tuple[Column, ...], now_s: float, *, stale_after_s: float | None = None,
              marked: bool = False, folded: bool = False) -> tuple[Text, ...]:
    """The cells of a row in the order of `columns`; a file row a live stream was `folded` into (row_merge) says
    so in its Id cell."""
    known = row.loaded or bool(row.status)  # a reloading row keeps showing its previous summary
    status = shown_status(row.status, row.mtime, now_s, stale_after_s)
    cells = tuple(_cell(row, column.key, known, status, now_s) for column in columns)
    if folded:
        cells = tuple(Text.assemble((FOLDED_TAG, "yellow"), cell, no_wrap=True, overflow="crop")
                      if column.key == "id" else cell for column, cell in zip(columns, cells))
    if not marked:
        return cells
    marked_cells = []
    for column, cell in zip(columns, cells):
        if column.key == "title":
            cell = mark_title(cell)
        elif column.key == "id":
            cell.stylize(MARK_STYLE)
        cell.stylize("bold")
        marked_cells.append(cell)
    return tuple(marked_cells)


def _cell(row: SessionRow, key: str, known: bool, status: str, now_s: float) -> Text:
    if key == "started":
        return Text(fmt_ts(row.started_or_mtime_ms), style="" if known and row.started_at else "dim")
    if key == "id":
        return id_cell(row)
    if key == "age":
        return Text(humanize_age(now_s - row.mtime), justify="right")
    if key == "kind":
        return Text(kind_label(row.kind), no_wrap=True, overflow="ellipsis")
    if row.broken:
        if key == "title":
            return Text(one_line(row.broken), style="red", no_wrap=True, overflow="ellipsis")
        return Text("BROKEN", style="bold red") if key == "status" else Text("")
    if not known:
        return PENDING.copy()
    if key == "title":
        title = Text(one_line(row.title, 200), no_wrap=True, overflow="ellipsis")
        if row.title.startswith(MISFILED):  # the file holds another session than the one it is named after
            title.stylize("bold red", 0, len(MISFILED))
        return title
    if key == "status":
        label, style = STATUS_STYLE.get(status, (printable(status), ""))
        return Text(label, style=style, no_wrap=True, overflow="ellipsis")
    if key == "duration":
        ended = status not in ("running", STALE)
        text = fmt_duration(row.duration_ms) + (" " if ended or row.duration_ms is None else "+")  # (aligned)
        return Text(text, justify="right", style="" if ended else "dim")
    if key == "cost":
        cost = Text(shown_cost(row.cost, row.cost_estimated), justify="right")  # `~$` for an estimate
        if row.mismatch:
            cost.append("!", style="bold red")
        if row.suspect:  # absurd numbers in the file, clamped (tui.catalog.absurd)
            cost.append("?", style="bold yellow")
        return cost
    if key == "tokens":
        tokens = Text(fmt_tokens(row.tokens) if row.tokens is not None else "-", justify="right")
        if row.suspect:
            tokens.append("?", style="bold yellow")
        return tokens
    if key == "turns":
        return Text(str(row.turns) if row.turns is not None else "-", justify="right")
    if key == "agent":
        return Text(one_line(row.agent, 80), no_wrap=True, overflow="ellipsis")
    if key == "model":
        return Text(model_label(row.models), no_wrap=True, overflow="ellipsis")
    if key == "events":
        return events_cell(row)
    return Text("")


def kind_label(kind: str) -> str:
    """What a row's Kind column says: the agent ("Claude Code"), or "ai-agent" for ai-agent's own files."""
    return AGENT_LABELS.get(kind) or (kind if kind in (RowKind.JULES, RowKind.GENKIT) else "ai-agent")


AGENT_LABELS = {loc.kind: loc.label for loc in LOCATIONS}


def id_cell(row: SessionRow) -> Text:
    sid = Text(no_wrap=True, overflow="crop")
    tag = KIND_TAG.get(row.kind)
    if tag:  # a v3 ledger beside the snapshot of the same session, or a session from the event stream
        sid.append(tag[0], style=tag[1])
    sid.append(printable(row.session_id))
    return sid


def events_cell(row: SessionRow) -> Text:
    """Live rows: events received, and the sequence gaps (events lost on the way) in yellow."""
    if row.events is None:
        return Text("")
    text = Text(f"{row.events:,}", justify="right")
    if row.gaps:
        text.append(f" gaps:{row.gaps:,}", style="bold yellow")
    return text


def mark_title(cell: Text) -> Text:
    """The Title cell of the marked row: the glyph first."""
    marked = Text(no_wrap=True, overflow="ellipsis")
    marked.append(MARK, style=MARK_STYLE)
    marked.append_text(cell)
    return marked
