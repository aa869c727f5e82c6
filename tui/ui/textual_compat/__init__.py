"""Every use of Textual's private API, in one package.

A few speed-ups and one leak fix need Textual internals (a DataTable that skips measuring rows, a Tree that
attaches a node's children in one go, a Footer that drops dead watchers). Private names change without notice, so
they live here and nowhere else (tests/test_architecture.py checks that), Textual is pinned in pyproject.toml, and
tests/ui/test_textual_compat.py checks the pin and that every name listed in PRIVATE_NAMES still exists: a Textual
upgrade fails there, loudly, instead of somewhere in a screen.

Here: what the package relies on (PRIVATE_NAMES) and the names the app imports; the code lives in `app` (the app,
its notices, its stylesheet), `tables` (DataTable), `layout` (scrolling sizes) and `trees` (Tree)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey  # not exported publicly; tests count them to catch the leak

from tui.ui.textual_compat.app import (
    CoveredScreensStayDark, app_is_exiting, drop_closed_watchers, drop_notifications, release_style_memo,
    share_parsed_css,
)
from tui.ui.textual_compat.layout import LaidOutOnce, set_scroll_size
from tui.ui.textual_compat.tables import UnmeasuredRowsTable
from tui.ui.textual_compat.trees import (
    QuietTree, attach_children, rebuild_tree_lines, remeasure_tree, set_label_quietly, unlink_tree_nodes,
)

__all__ = [
    "CoveredScreensStayDark", "FooterKey", "LaidOutOnce", "PRIVATE_NAMES", "QuietTree", "UnmeasuredRowsTable",
    "app_is_exiting", "attach_children", "drop_closed_watchers", "drop_notifications", "rebuild_tree_lines",
    "release_style_memo", "remeasure_tree", "set_label_quietly", "set_scroll_size", "share_parsed_css",
    "unlink_tree_nodes",
]

# (module, object in it or "", private attribute): what this module relies on. Instance attributes are checked
# on a live object by the test; the rest with getattr on the class or module.
_RELIED_ON = (
    ("textual.app", "App", "_exit _background_screens _screen_stack _running _notifications _unnotify"),
    ("textual.reactive", "", "__watchers"),  # the attribute name Reactive stores watchers under (a string)
    ("textual.dom", "DOMNode", "_closing _closed"),
    ("textual._styles_cache", "StylesCache", "get_inner_outer"),
    ("textual.css.stylesheet", "Stylesheet", "_parse_rules _variables"),
    ("textual.widgets._footer", "FooterKey", ""),
    ("textual.widgets._data_table", "DataTable", "_update_dimensions _row_locations _data _new_rows "
     "_require_update_dimensions _highlight_cursor _update_count _column_locations _row_label_column_width "
     "_refresh_region"),
    ("textual.widgets._tree", "Tree", "_tree_lines _tree_nodes _add_node _invalidate _line_cache _clear_line_cache "
     "_updates _on_resize _tree_lines_cached _build"),
    ("textual.widgets._tree", "TreeNode", "_children _parent _allow_expand _updates _label _reset _line _expanded"),
    ("textual.widgets._tree", "_TreeLine", ""),
    ("textual.widget", "Widget", "_size_updated _scroll_update"),
)
PRIVATE_NAMES: list[tuple[str, str, str]] = [(module, owner, name) for module, owner, names in _RELIED_ON
                                             for name in names.split() or [""]]
