"""The app on a producer-true v2 snapshot (tests/helpers/producer_tree.py): `--op S0-1` selects the step op, the log pane
of the root shows sub-agent logs under their whole path, and the details show the final report, pluginMetas,
character counts and the stand-in time of an op without a start."""

import pytest

from helpers import producer_tree
from helpers.apphelpers import SIZE, session_app, top, wait_for
from helpers.builders import write
from tui.model.search import find_op_by_path
from tui.ui.widgets.log_pane import LogPane


@pytest.fixture
def snapshot_file(tmp_path):
    return write(tmp_path / "producer.json.gz", producer_tree.snapshot())


def detail_text(screen) -> str:
    return str(screen.query_one("#detail-body").render())


@pytest.mark.parametrize("typed", ["S0-2", "s0-2"])
async def test_op_option_selects_a_step_op(snapshot_file, typed):
    app = session_app(snapshot_file, op_path=typed, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        op = find_op_by_path(screen.session, "S0-2")
        assert await wait_for(pilot, lambda: screen.tree.cursor_node is not None
                              and screen.tree.cursor_node.data is op)
        assert "LLM S0-2" in detail_text(screen)


async def test_op_option_selects_an_op_inside_a_sub_agent_step(snapshot_file):
    app = session_app(snapshot_file, op_path="1-4.S0-3", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        op = find_op_by_path(screen.session, "1-4.S0-3")
        assert await wait_for(pilot, lambda: screen.tree.cursor_node is not None
                              and screen.tree.cursor_node.data is op)


async def test_root_log_pane_shows_joined_sub_agent_paths(snapshot_file):
    app = session_app(snapshot_file, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        pane = screen.query_one(LogPane)
        assert await wait_for(pilot, lambda: len(pane.entries) == 3)
        assert [e.path for e in pane.entries] == ["1-2.1-1", "1-2.1-1", "S0-1.1-1"]
        rendered = "\n".join(pane.render_line(y).text for y in range(3))
        assert "1-2.1-1" in rendered and "S0-1.1-1" in rendered


async def test_details_show_final_report_plugin_metas_and_sizes(snapshot_file):
    app = session_app(snapshot_file, op_path="1-3", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        assert await wait_for(pilot, lambda: "TOOL 1-3" in detail_text(screen))
        text = detail_text(screen)
        assert "in 120  out 4,567" in text and "no start recorded: accounting/log ts" in text
        from tui.ui.widgets.detail_panel import describe

        session_text = describe(screen.session).plain
        assert "Final report" in session_text and "# Answer" in session_text and '"answer": 42' in session_text
        assert "Plugin metas" in session_text and '"ticket": "T-1"' in session_text
        assert "user turns" in session_text
