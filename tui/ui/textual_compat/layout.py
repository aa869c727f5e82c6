"""Widget's private API for scrolling sizes: set without laying the whole screen out."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


# Layouts: a flood of live events laid the session screen out ~15 times a second (5-30 ms each: the "Live"
# benchmark's mixed row), mostly for nothing: a scrolling view's new lines, a size the layout itself measured.
def set_scroll_size(view: ScrollView, size: Size, *, repaint: bool = True) -> None:
    """A ScrollView's scrolling size (`virtual_size`, a layout reactive: each new batch of log lines laid out the
    whole screen) set with a repaint and its scrollbars updated; a layout still follows when a scrollbar comes or
    goes (`show_*_scrollbar` are layout reactives) or when the scroll offset would pass the new end. No repaint
    for a view whose lines on screen do not depend on it (a tree's: Tree pads its lines to the scrolling width and
    crops them to the view's), whose changed lines are repainted by whoever changed them."""
    if size == view.virtual_size:
        return
    shown = view.scrollable_content_region
    if (not view.is_mounted or not shown or view.scroll_x > max(0, size.width - shown.width)
            or view.scroll_y > max(0, size.height - shown.height)):
        view.virtual_size = size
        return
    view.set_reactive(Widget.virtual_size, size)
    view._scroll_update(size)
    if repaint:
        view.refresh()


class LaidOutOnce(Widget):
    """A widget that takes the scrolling size a layout measured for it without asking for another layout (the
    default, `_size_updated` setting the layout reactive `virtual_size`, laid the screen out twice each time the
    details changed height); scrollbars still come and go with a layout. The second base: CSS follows the first."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)
