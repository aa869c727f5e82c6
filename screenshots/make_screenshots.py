"""Regenerate the README's pictures from the real app: `python screenshots/make_screenshots.py [NAME ...]`.

Uses the same fixed scenes as the SVG snapshot tests (tests/helpers/scenes.py).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from helpers import scenes  # noqa: E402

SHOTS = [
    ("browser", scenes.browser_app, scenes.wait_browser_loaded, ()),
    ("session", scenes.session_app, scenes.settle, ()),
    ("drill-down", scenes.session_app, scenes.drill_two_levels, ()),
    ("payload-viewer", scenes.session_app, scenes.open_llm_payload, ()),
    ("errors-only", scenes.session_app, scenes.settle, ("e",)),
    ("help", scenes.session_app, scenes.settle, ("question_mark",)),
    ("waterfall", scenes.session_app, scenes.open_waterfall, ()),
    ("insights", scenes.session_app, scenes.settle, ("i",)),
    ("export", scenes.session_app, scenes.settle, ("x",)),
    ("jules", scenes.jules_app, scenes.jules_failed_command, ()),
    ("genkit", scenes.genkit_app, scenes.genkit_branch, ()),
    ("history", scenes.session_app, scenes.view_older_version, ()),
    ("history-diff", scenes.session_app, scenes.diff_versions, ()),
    ("broken-files", scenes.corpus_browser_app, scenes.wait_browser_loaded, ()),
    ("stats", scenes.browser_app, scenes.open_stats, ()),
]


async def shoot(name, make_app, before, keys, size=(160, 48)) -> Path:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await before(pilot)
        if keys:
            await pilot.press(*keys)
            await pilot.pause(0.3)
        return Path(app.save_screenshot(filename=f"{name}.svg", path=str(HERE)))


async def main(names: list[str]) -> None:
    for name, make_app, before, keys in SHOTS:
        if not names or name in names:  # `make_screenshots.py insights export` redoes only those
            print(await shoot(name, make_app, before, keys))


if __name__ == "__main__":
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="aiagent-shots-cache-") as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # the scenes' indexes never land in the user's cache
        asyncio.run(main(sys.argv[1:]))
