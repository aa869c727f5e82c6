"""Ordering of one live session's events by `meta.sequence` (formats.md section 4): which numbers were seen, how
many are missing between them, and streamed text put back in sequence order when chunks arrive late."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import deque

# A jump of the sequence further than this (either way) is not that many lost events: the producer restarted its
# counter, or the number is garbage (±2**63). It is counted as a reset and numbering starts over from there.
MAX_SEQUENCE_JUMP = 1_000_000


class SeenSequences:
    """The sequence numbers seen so far, as sorted disjoint runs [start, end]: a stream in order is a single run,
    so memory grows with the number of holes, not of events.

    `missing` counts the numbers absent between the lowest and the highest seen: a late event fills its hole
    (it was reordered, not lost) and a duplicate changes nothing. A jump past MAX_SEQUENCE_JUMP is a reset
    (`resets`): the numbers seen before are forgotten, the holes already counted stay counted."""

    __slots__ = ("starts", "ends", "missing", "resets")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.missing = 0
        self.resets = 0

    @property
    def highest(self) -> int | None:
        return self.ends[-1] if self.ends else None

    def __contains__(self, n: int) -> bool:
        i = bisect_right(self.starts, n) - 1
        return i >= 0 and n <= self.ends[i]

    def add(self, n: int) -> bool:
        """Record n; False when it had been seen already."""
        starts, ends = self.starts, self.ends
        if ends and n == ends[-1] + 1:  # the next one in order: most events
            ends[-1] = n
            return True
        if not starts:
            starts.append(n)
            ends.append(n)
            return True
        i = bisect_right(starts, n) - 1
        if i >= 0 and n <= ends[i]:
            return False
        if n - ends[-1] > MAX_SEQUENCE_JUMP or starts[0] - n > MAX_SEQUENCE_JUMP:
            self.resets += 1
            starts[:] = [n]
            ends[:] = [n]
            return True
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

    def discard(self, n: int) -> None:
        """Forget n (an event taken back), as if it had never been seen."""
        starts, ends = self.starts, self.ends
        i = bisect_right(starts, n) - 1
        if i < 0 or n > ends[i]:
            return
        last = len(starts) - 1
        if starts[i] == ends[i]:  # a run of its own: the holes on both sides become one, or the range shrinks
            if last == 0:
                pass
            elif i == last:
                self.missing -= n - ends[i - 1] - 1
            elif i == 0:
                self.missing -= starts[1] - n - 1
            else:
                self.missing += 1
            del starts[i], ends[i]
        elif n == ends[i]:
            ends[i] = n - 1
            self.missing += i != last
        elif n == starts[i]:
            starts[i] = n + 1
            self.missing += i != 0
        else:
            starts.insert(i + 1, n + 1)
            ends.insert(i + 1, ends[i])
            ends[i] = n - 1
            self.missing += 1


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
