"""The empty browser's hint: with a listener already running it names it, rather than suggesting a `--listen
ws://` one (issue 30, point 10); without one it still says how to stream events in."""

from __future__ import annotations

from helpers.apphelpers import wait_for
from tui.ui.app import MonitorApp


def note(app) -> str:
    return str(app.screen.query_one("#browser-note").render())


async def test_the_empty_hint_names_the_running_listener(tmp_path):
    sock = tmp_path / "s.sock"
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, lambda: "watching" in note(app))
        assert f"unix:{sock}" in note(app) and "--listen ws://" not in note(app)


async def test_without_a_stream_the_empty_hint_says_how_to_stream(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, lambda: "watching" in note(app))
        assert "--listen ws://127.0.0.1:8765" in note(app)
