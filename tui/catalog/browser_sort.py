"""The browser's sort columns and how `--sort` (and the config file's `sort`) names one. No textual here: the
command line checks a --sort before it imports the app."""

from __future__ import annotations

TEXT_SORTS = {"agent", "title", "status", "id", "model", "age", "kind"}  # these sort ascending first; the numbers descending
SORT_COLUMNS = ("started", "agent", "title", "status", "id", "model", "age", "duration", "turns", "tokens", "cost",
                "events")  # what --sort may name (tui.catalog.session_row.sort_value)
SORT_HELP = ("COLUMN sorts in its usual direction (numbers highest first, text A to Z), COLUMN:asc or COLUMN:desc "
             "chooses; columns: " + ", ".join(SORT_COLUMNS))


def parse_sort(text: str) -> tuple[str, bool] | None:
    """`--sort` as (column, descending): COLUMN in its usual direction (numbers highest first, text A to Z),
    -COLUMN the other way, COLUMN:asc or COLUMN:desc; None when it names no column."""
    name, _, direction = text.strip().lower().partition(":")
    reverse = name.startswith("-")
    name = name.lstrip("-+")
    if name not in SORT_COLUMNS or direction not in ("", "asc", "desc"):
        return None
    desc = name not in TEXT_SORTS
    if direction:
        desc = direction == "desc"
    elif reverse:
        desc = not desc
    return name, desc
