"""What a key press would read from disk the first time, read once the first screen is up instead.

With every file descriptor taken (local clients holding connections), anything that opens a file fails with
EMFILE. A key that imports its screen's module, or whose screen's CSS file Textual reads on its first push, would
then crash the app. So after the first screen, a worker thread imports those modules and reads those CSS files,
and the UI thread adds the CSS to the stylesheet (as visiting every screen once would): afterwards no key opens a
file for code or styles.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

PRELOADED_MODULES = (
    "tui.ui.screens.session", "tui.ui.screens.browser", "tui.ui.screens.help", "tui.ui.screens.payload",
    "tui.ui.screens.waterfall", "tui.ui.screens.export", "tui.ui.screens.diff", "tui.model.insights",
    "tui.text.insights_text", "tui.text.export", "tui.payloads.op_captures",
    # imported where first used, not at start-up (the first screen does not need them)
    "tui.model.diff", "tui.model.waterfall", "tui.formats.genkit.snapshot", "hmac",
    "rich.traceback", "rich._emoji_codes",  # what Textual needs to report a fatal error
)
SCREENS = (("tui.ui.screens.session", "SessionScreen"), ("tui.ui.screens.browser", "BrowserScreen"),
           ("tui.ui.screens.help", "HelpScreen"), ("tui.ui.screens.payload", "PayloadScreen"),
           ("tui.ui.screens.waterfall", "WaterfallScreen"), ("tui.ui.screens.export", "ExportScreen"),
           ("tui.ui.screens.diff", "DiffScreen"))


def import_modules() -> None:
    for name in PRELOADED_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a failure here is met again, and reported, when the key is pressed
            pass


def screen_css() -> dict[str, str]:
    """The CSS files of the screens, by the path Textual names them with (its _make_path_object_relative)."""
    out: dict[str, str] = {}
    for module, name in SCREENS:
        try:
            cls = getattr(importlib.import_module(module), name)
            css_paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, (list, tuple)) else [cls.CSS_PATH]
            base = Path(getattr(cls, "_BASE_PATH", None) or inspect.getfile(cls))
            for css_path in filter(None, css_paths):
                path = Path(css_path) if Path(css_path).is_absolute() else (base.parent / css_path).resolve()
                out[str(path)] = path.read_text(encoding="utf-8")
        except Exception:  # noqa: BLE001 - Textual reads it (and reports a failure) when the screen is pushed
            continue
    return out


def add_css(app, css: dict[str, str]) -> None:
    """UI thread: the screens' CSS added to the app's stylesheet, as their first push would, but without styling
    the screens already up again (`Stylesheet.update`, a restyle and repaint of every widget): each screen's CSS
    names only its own screen and widget ids, so it cannot change them
    (tests/ui/test_css_once.py::test_the_preloaded_css_changes_nothing_on_screen)."""
    stylesheet = app.stylesheet
    added = False
    for path, text in css.items():
        if not stylesheet.has_source(path, ""):
            stylesheet.add_source(text, read_from=(path, ""))
            added = True
    if added:
        stylesheet.reparse()


def preload(app) -> None:
    """Worker thread: import the modules, read the CSS, hand the CSS to the UI thread."""
    import_modules()
    css = screen_css()
    try:
        app.call_from_thread(add_css, app, css)
    except RuntimeError:  # the app is closing
        pass
