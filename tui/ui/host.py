"""What the app mixins may ask of the MonitorApp, written down for the type checker.

Screens never see the app: what they need comes at construction (the LiveController) and by message
(tui.ui.messages). Only the app's own mixins (IdleCollector) are typed against it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    class AppMixin(App[Any]):
        """For the type checker only: what the app mixins use of MonitorApp."""

        def closing(self) -> bool: ...
else:
    AppMixin = object  # at run time the mixins are plain classes; MonitorApp provides all of the above
