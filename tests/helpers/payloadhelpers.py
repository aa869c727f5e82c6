"""Shared helpers of the payload-screen tests: an app showing one op in a PayloadScreen, waiting until it decoded, reading it."""

from __future__ import annotations

import time

from textual.app import App

from tui.formats.aiagent.snapshot import build_session
from tui.ui.screens.payload import PayloadScreen

from helpers.payloadfixtures import tree


class PayloadApp(App):
    def __init__(self, op, sessions_dir=None) -> None:
        super().__init__()
        self.op = op
        self.sessions_dir = sessions_dir
        self.copied: list[str] = []

    def on_mount(self) -> None:
        self.push_screen(PayloadScreen(self.op, self.sessions_dir))

    def copy_to_clipboard(self, text: str) -> None:  # recorded instead of written to the terminal
        self.copied.append(text)


def op_of(op_dict: dict):
    return build_session(tree(op_dict)).turns[1].ops[0]


async def settled(pilot, timeout: float = 30.0) -> PayloadScreen:
    """Wait until the payload screen has finished decoding the capture it shows."""
    deadline = time.monotonic() + timeout
    while True:
        screen = pilot.app.screen
        if isinstance(screen, PayloadScreen) and screen.is_mounted and screen.mode != "decoding":
            await pilot.pause()
            return screen
        if time.monotonic() > deadline:
            raise AssertionError("payload screen did not finish decoding")
        await pilot.pause(0.02)


def visible(screen: PayloadScreen) -> list[str]:
    body = screen.body
    return [body.render_line(y).text.rstrip() for y in range(body.scrollable_content_region.height)]


def status(screen: PayloadScreen) -> str:
    return str(screen.query_one("#payload-status").render())


def header(screen: PayloadScreen) -> str:
    return str(screen.query_one("#payload-capture").render())
