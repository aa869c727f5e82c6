"""Untrusted text made inert for Markdown: no raw HTML, no links or emphasis it did not ask for, no fence escapes.

Inline text is flattened to one line and every character Markdown or HTML gives a meaning to is backslash-escaped
(CommonMark lets any ASCII punctuation be escaped), so `<script>` shows as text and `|` cannot split a table cell.
Payload-like text goes in a fenced block whose fence is longer than any backtick run inside it.
"""

from __future__ import annotations

import re

from tui.model.fields import one_line, printable

# Inline text never starts a line here, so only what acts mid-line needs escaping (`$` is math on GitHub).
_SPECIAL = "\\`*_[]<>|~&$"
_ESCAPE = {ord(c): "\\" + c for c in _SPECIAL}
# Bidirectional overrides and isolates reorder what a reader sees: show them as escapes.
_BIDI = {c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}
_ESCAPE.update(_BIDI)
_BACKTICKS = re.compile("`+")
BLOCK_CHARS = 8000


def text(value: object, limit: int = 300) -> str:
    """Inline text (a table cell, a list item): one line, every Markdown/HTML character escaped."""
    return one_line(value if isinstance(value, str) else str(value), limit).translate(_ESCAPE)


def code(value: object, limit: int = 200) -> str:
    """An inline code span whose delimiters outlast any backtick run inside (never inside a table: use text)."""
    body = one_line(value if isinstance(value, str) else str(value), limit).translate(_BIDI)
    ticks = "`" * (_longest_run(body) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def block(value: object, lang: str = "", limit: int = BLOCK_CHARS) -> str:
    """A fenced code block holding `value` verbatim (control characters escaped), cut at `limit` characters."""
    body = value if isinstance(value, str) else str(value)
    cut = len(body) - limit
    if cut > 0:
        body = body[:limit]
    body = printable(body.replace("\r\n", "\n"), keep_newlines=True).translate(_BIDI)
    fence = "`" * max(3, _longest_run(body) + 1)
    out = f"{fence}{lang}\n{body.rstrip(chr(10))}\n{fence}"
    if cut > 0:
        out += f"\n\n_… {cut:,} more characters not shown_"
    return out


def _longest_run(body: str) -> int:
    return max((len(m) for m in _BACKTICKS.findall(body)), default=0)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A GFM table; cells must already be safe (made with `text`, or numbers)."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(out)
