"""Run nested tree walks without recursion: a walk is a generator that yields the walks of its children."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
Walk = Generator["Walk", T, T]


def drive(first: Walk[Any]) -> Any:
    """Run `first` to the end. A walk it yields runs first (to its end), and its result is sent back to it.

    The stack lives in a list, so sub-agents nested hundreds of levels deep cost no Python recursion.
    """
    stack = [first]
    sent = None
    while True:
        try:
            request = stack[-1].send(sent)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            sent = done.value
            continue
        stack.append(request)
        sent = None


def flatten(first: Iterator) -> Iterator[str]:
    """The strings `first` yields, in order; an iterator it yields has its strings spliced in at that point.

    For nested bodies of lines (a sub-agent's inside its parent's) at any depth without Python recursion.
    """
    stack: list[Iterator] = [first]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
        elif isinstance(item, str):
            yield item
        else:
            stack.append(item)
