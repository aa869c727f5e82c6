"""A 100 MB payload opens in the viewer without freezing: the screen paints at once, decoding runs in a thread,
the event loop never stalls for long, and scrolling to the end stays quick."""

from __future__ import annotations

import asyncio
import time

from helpers.corpus import write_huge_payload
from helpers.payloadhelpers import visible
from tui.formats.load import load
from tui.ui.app import MonitorApp
from tui.ui.screens.payload import PayloadScreen

SIZE = (160, 48)


class LagMeter:
    """The longest the event loop went without running a 10 ms timer: how long a key would have waited."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            self.worst = max(self.worst, time.perf_counter() - started - 0.01)

    def __enter__(self) -> "LagMeter":
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc) -> None:
        self._task.cancel()


async def test_100_mb_payload_opens_without_freezing(tmp_path):
    (tmp_path / "payloads").mkdir()
    case = write_huge_payload(tmp_path)
    app = MonitorApp(sessions_dir=tmp_path, document=load(str(tmp_path / case.name)), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session = app.screen
        session.tree.reveal(next(session.session.all_ops()))
        await pilot.pause()
        with LagMeter() as during_decode:
            started = time.perf_counter()
            session.action_payload()
            while not (isinstance(app.screen, PayloadScreen) and app.screen.is_mounted):
                await asyncio.sleep(0.005)
            screen = app.screen
            await asyncio.sleep(0)
            first_paint = time.perf_counter() - started
            assert screen.mode in ("decoding", "view")
            while screen.mode == "decoding":
                await asyncio.sleep(0.01)
            decoded = time.perf_counter() - started
        assert screen.mode == "view", visible(screen)
        assert screen.view_name == "text" and len(screen.current_lines) > 600_000
        assert visible(screen)[1].lstrip().startswith('{"index":')
        with LagMeter() as while_reading:
            for key in ("pagedown", "end", "v", "home", "x", "end"):
                pressed = time.perf_counter()
                await pilot.press(key)
            last_key = time.perf_counter() - pressed
            await pilot.pause(0.3)
        assert screen.view_name == "hex" and visible(screen)[-1].startswith("063")  # the last rows of hex
        print(f"100 MB payload: first paint {first_paint * 1000:.0f} ms, decoded in {decoded:.2f} s, worst stall "
              f"while decoding {during_decode.worst * 1000:.0f} ms, "
              f"while scrolling {while_reading.worst * 1000:.0f} ms")
        assert first_paint < 1.5
        assert during_decode.worst < 0.75 and while_reading.worst < 0.75
        assert decoded < 30 and last_key < 2
