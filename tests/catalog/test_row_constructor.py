"""One constructor of a browser row (issue 29): every SessionRow of tui/ is made by
tui.catalog.session_row.row_from_fields, whatever it comes from (a listing, the index's SQLite rows, its warm
image), so that a field added to a row is filled in one place and the warm image's values stay its arguments."""

from __future__ import annotations

import ast
from pathlib import Path

import tui
from tui.catalog.index import image
from tui.catalog.session_row import ROW_FIELDS, SessionRow, row_from_entry, row_from_fields

TUI = Path(tui.__file__).parent


def makers_of_rows() -> list[str]:
    """Where tui/ calls SessionRow or binds it to another name (`make = SessionRow`, then `make(...)`)."""
    found = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "SessionRow":
                found.append(f"{path.relative_to(TUI)}:{node.lineno} call")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node.value, "id", "") == "SessionRow":
                found.append(f"{path.relative_to(TUI)}:{node.lineno} alias")
    return found


def test_rows_are_made_in_one_place():
    assert [where.rsplit(":", 1)[0] + where.split(" ")[-1] for where in makers_of_rows()] == [
        "catalog/session_row.py" + "call"], makers_of_rows()


def test_the_warm_image_holds_the_constructors_arguments():
    assert image.VALUE_FIELDS == ROW_FIELDS == tuple(f for f in SessionRow.__dataclass_fields__)[2:]
    listed = row_from_entry("/x/s.json.gz", 1.5, 10, "snapshot", mtime_ns=3, inode=4, ctime_ns=5)
    assert listed == SessionRow("/x/s.json.gz", Path("/x/s.json.gz"), "snapshot", "s", 1.5, 10, mtime_ns=3, inode=4,
                                ctime_ns=5)
    values = tuple(getattr(listed, name) for name in ROW_FIELDS)
    assert row_from_fields(listed.key, listed.path, values) == listed
