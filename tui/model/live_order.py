"""Ordering of one live session's events by `meta.sequence` (formats.md section 4): which numbers were seen, how
many are missing between them, and streamed text put back in sequence order when chunks arrive late."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import deque


class SeenSequences:
    """The sequence numbers seen so far, as sorted disjoint runs [start, end]: a stream in order is a single run,
    so memory grows with the number of holes, not of events.

    `missing` counts the numbers absent between the lowest and the highest seen: a late event fills its hole
    (it was reordered, not lost) and a duplicate changes nothing."""

    __slots__ = ("starts", "ends", "missing")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.missing = 0

    @property
    def highest(self) -> int | None:
        return self.ends[-1] if self.ends else None

    def __contains__(self, n: int) -> bool:
        i = bisect_right(self.starts, n) - 1
        return i >= 0 and n <= self.ends[i]

    def add(self, n: int) -> bool:
        """Record n; False when it had been seen already."""
        starts, ends = self.starts, self.ends
        if not starts:
            starts.append(n)
            ends.append(n)
            return True
        i = bisect_right(starts, n) - 1
        if i >= 0 and n <= ends[i]:
            return False
        if n > ends[-1]:
            self.missing += n - ends[-1] - 1
        elif n < starts[0]:
            self.missing += starts[0] - n - 1
        else:
            self.missing -= 1  # fills a hole
        joins_left = i >= 0 and ends[i] == n - 1
        joins_right = i + 1 < len(starts) and starts[i + 1] == n + 1
        if joins_left and joins_right:
            ends[i] = ends[i + 1]
            del starts[i + 1], ends[i + 1]
        elif joins_left:
            ends[i] = n
        elif joins_right:
            starts[i + 1] = n
        else:
            starts.insert(i + 1, n)
            ends.insert(i + 1, n)
        return True


class OrderedText:
    """Streamed text (output/thinking chunks) kept in sequence order, the newest `limit` characters of it."""

    __slots__ = ("chunks", "size", "limit", "_joined")

    def __init__(self, limit: int) -> None:
        self.chunks: deque[tuple[int, str]] = deque()  # (sequence, text); unnumbered chunks take the last one's
        self.size = 0
        self.limit = limit
        self._joined: str | None = ""

    def add(self, text: str, sequence: int | None) -> None:
        if not text:
            return
        last = self.chunks[-1][0] if self.chunks else -1
        if sequence is None or sequence >= last:
            self.chunks.append((last if sequence is None else sequence, text))
        else:
            chunks = list(self.chunks)
            insort(chunks, (sequence, text), key=lambda c: c[0])
            self.chunks = deque(chunks)
        self.size += len(text)
        while self.size - len(self.chunks[0][1]) >= self.limit:
            self.size -= len(self.chunks.popleft()[1])
        self._joined = None

    def __str__(self) -> str:
        if self._joined is None:
            self._joined = "".join(text for _, text in self.chunks)[-self.limit:]
        return self._joined

    def __bool__(self) -> bool:
        return self.size > 0
