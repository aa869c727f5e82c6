"""issue 29, point 2: SessionScreen is composed (no mixins, no type-checking stub base), and what its keys toggle
are reactives: setting `errors_only`, `follow`, `query_text` or `viewing` does what the key does, seen on screen."""

from __future__ import annotations

from textual.screen import Screen

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write
from tui.formats.aiagent.history import Summary, Version
from tui.ui.screens.session import SessionScreen


def two_turns(tmp_path):
    return write(tmp_path / "s.json.gz", session(
        turn(1, op("tool", op_id="a", name="alpha_tool"), op("tool", op_id="b", name="broken_tool", status="failed")),
        turn(2, op("tool", op_id="c", name="gamma_tool"), op("llm", op_id="d", provider="p", model="newest-model",
                                                             started=2500, ended=2900))))


def shown(screen) -> str:
    tree = screen.tree
    return "\n".join(tree.render_line(y).text for y in range(min(tree.size.height, tree.last_line + 1)))


async def settle(pilot):
    for _ in range(3):
        await pilot.pause()


def test_the_session_screen_is_composed_not_mixed():
    assert SessionScreen.__bases__ == (Screen,)
    assert not any(cls.__name__ in ("LiveView", "HistoryView", "SessionScreenMixin") for cls in SessionScreen.__mro__)


async def test_errors_only_is_a_reactive(tmp_path):
    app = session_app(two_turns(tmp_path), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = top(app)
        await settle(pilot)
        assert "alpha_tool" in shown(screen)
        screen.errors_only = True
        await settle(pilot)
        text = shown(screen)
        assert "broken_tool" in text and "alpha_tool" not in text and "gamma_tool" not in text
        assert "errors only" in str(screen.query_one("#status").render())
        await pilot.press("e")  # the key toggles the same reactive
        await settle(pilot)
        assert screen.errors_only is False and "alpha_tool" in shown(screen)


async def test_follow_and_search_are_reactives(tmp_path):
    app = session_app(two_turns(tmp_path), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = top(app)
        await settle(pilot)
        screen.follow = True
        await settle(pilot)
        assert screen.tree.cursor_node.data.target == "p:newest-model"  # the newest op, selected
        assert "follow: on" in str(screen.query_one("#status").render())
        screen.query_text = "tool"
        assert len(screen.matches) == 3 and screen.match_index == -1
        await pilot.press("n")
        await settle(pilot)
        assert "match 1/3" in str(screen.query_one("#status").render())
        await pilot.press("down")
        await settle(pilot)
        assert screen.follow is False  # a move of the user's turns follow off
        await pilot.press("escape")  # clears the search: the reactive, and its matches
        assert screen.query_text == "" and screen.matches == []


async def test_the_version_shown_is_a_reactive(tmp_path):
    app = session_app(two_turns(tmp_path), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = top(app)
        await settle(pilot)
        banner = screen.query_one("#history")
        assert not banner.display  # no versions recorded: nothing to say
        screen.viewing = Version("c0ffee00" * 8, 7, 0.0, Summary(ops=4, status="ok"), b"", 2000)
        await settle(pilot)
        assert banner.display and "viewing history" in str(banner.render()) and "id c0ffee00" in str(banner.render())
        screen.viewing = None
        await settle(pilot)
        assert not banner.display
