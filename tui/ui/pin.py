"""A hold on a live tree that is released once (LiveController.pinned): trees are cut (tui.model.nodes.release_tree)
as soon as nothing holds them, so every hold must end, and end once, whatever raised. A Pin is a context manager
for a hold within one call (a diff), and a handle for one whose owner outlives a call (a screen releases its Pins
on unmount). Its own module: the controller and its history mixin both hand Pins out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.model.nodes import Session


class Pin:
    """Holds `root` until `release` (or the end of its `with`); later calls do nothing. A Pin of None holds
    nothing."""

    __slots__ = ("root", "_let_go")

    def __init__(self, root: Session | None, let_go: Callable[[Session], None] | None = None) -> None:
        self.root = root
        self._let_go = let_go if root is not None else None

    def release(self) -> None:
        let_go, self._let_go = self._let_go, None
        if let_go is not None and self.root is not None:
            let_go(self.root)

    def __enter__(self) -> Pin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
