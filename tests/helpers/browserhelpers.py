"""Shared helpers of the sessions-browser tests: wait until the browser has settled, read its table."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable

from tui.ui.screens.browser import BrowserScreen


SIZE = (200, 40)


async def settle(pilot, screen: BrowserScreen, timeout: float = 10.0) -> None:
    """Wait until the scan is done, every row is loaded and the last batch reached the table."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        await pilot.pause(0.05)
        if screen.settled:
            await pilot.pause()
            return
    raise AssertionError("browser did not settle")


def ids(screen: BrowserScreen) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(table.get_row_at(i)[-1]).removeprefix("v3 ") for i in range(table.row_count)]


def cells_by_column(screen: BrowserScreen, session_id: str) -> dict[str, str]:
    """The cells of a row by column key ("status", "title", ...): whatever columns the width leaves."""
    table = screen.query_one(DataTable)
    row = next(r for r in screen.rows.values() if r.session_id == session_id)
    return {str(key.value): str(cell) for key, cell in zip(table.columns, table.get_row(row.key))}


def column_keys(screen: BrowserScreen) -> list[str]:
    return [str(key.value) for key in screen.query_one(DataTable).columns]


def cells(screen: BrowserScreen, session_id: str) -> list[str]:
    table = screen.query_one(DataTable)
    row = next(r for r in screen.rows.values() if r.session_id == session_id)
    return [str(cell) for cell in table.get_row(row.key)]
