"""Run nested tree walks without recursion: a walk is a generator that yields the walks of its children."""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar

T = TypeVar("T")
Walk = Generator["Walk", T, T]


def drive(first: Walk) -> T:
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
