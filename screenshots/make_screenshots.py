"""Regenerate the README's pictures from the real app: `python screenshots/make_screenshots.py [NAME...]`.

Uses the same fixed scenes as the SVG snapshot tests (tests/scenes.py).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

import scenes  # noqa: E402

SHOTS = [
    ("browser", scenes.browser_app, scenes.wait_browser_loaded, ()),
    ("session", scenes.session_app, scenes.settle, ()),
    ("drill-down", scenes.session_app, scenes.drill_two_levels, ()),
    ("payload-viewer", scenes.session_app, scenes.open_llm_payload, ()),
    ("errors-only", scenes.session_app, scenes.settle, ("e",)),
    ("help", scenes.session_app, scenes.settle, ("question_mark",)),
    ("history", scenes.session_app, scenes.view_older_version, ()),
    ("history-diff", scenes.session_app, scenes.diff_versions, ()),
]


async def shoot(name, make_app, before, keys, size=(160, 48)) -> Path:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await before(pilot)
        if keys:
            await pilot.press(*keys)
            await pilot.pause(0.3)
        return Path(app.save_screenshot(filename=f"{name}.svg", path=str(HERE)))


async def main(only: list[str]) -> None:
    for name, make_app, before, keys in SHOTS:
        if not only or name in only:
            print(await shoot(name, make_app, before, keys))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))  # names of shots to make (default: all)
