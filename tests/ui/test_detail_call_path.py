"""A long callPath in the Details panel wraps between its agents, never inside an `->` (issue 30, point 10)."""

from __future__ import annotations

from rich.console import Console

from helpers.builders import op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.ui.widgets.detail_panel import describe


def test_a_long_call_path_wraps_between_agents_never_inside_an_arrow():
    agents = ["github-search", "web-fetch", "docs-search", "summariser", "fact-check", "writer"]
    raw = session(turn(1, op("tool", op_id="t1", name="t")))
    raw["callPath"] = "->".join(agents)
    text = describe(build_session(raw))
    for width in range(20, 80):
        lines = [line.plain.rstrip() for line in text.wrap(Console(width=width), width)]
        start = next(n for n, line in enumerate(lines) if "callPath" in line)
        shown = lines[start: start + 8]
        assert not any(line.endswith("-") or line.lstrip().startswith(">") for line in shown), (width, shown)
        assert all(agent in "\n".join(shown) for agent in agents)  # each agent whole on its line
