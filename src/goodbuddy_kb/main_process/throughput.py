"""A task's pace: items per second over a recent window and the time left at that pace.

The pace is measured from the moments the count moved: from the oldest such moment in the
last ``WINDOW_S`` seconds (or the last one before them) up to now. So it follows a machine that
becomes busier or quieter, and while one long batch runs it slowly falls instead of holding the
last good figure or dropping to zero. Until something is done there is no rate and no ETA: the
task says it is estimating rather than guessing.

The pace shown is the slower of that and the pace over the last ``RECENT`` moves: a run whose
first items cost nothing (a rebuild after a cancelled one, its first documents already done)
read "2.2 documents/s · about 9 s left" at 9/30 with 40 s to go (a helper's try). A slower
recent pace shows at once; a faster one within the window.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW_S = 30.0
#: The moves the recent pace is measured over (see the module's docstring).
RECENT = 3


class Throughput:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._moves: deque[tuple[float, int]] = deque()  # (time, done) whenever done changed
        self._start: tuple[float, int] | None = None
        self._recent: deque[tuple[float, int]] = deque(maxlen=RECENT + 1)

    def add(self, done: int) -> None:
        now = self._clock()
        if self._start is None:
            self._start = (now, done)
            self._moves.append(self._start)
            self._recent.append(self._start)
            return
        if done != self._moves[-1][1]:
            self._moves.append((now, done))
            self._recent.append((now, done))
        while len(self._moves) > 2 and self._moves[1][0] < now - WINDOW_S:
            self._moves.popleft()

    def rate(self) -> float | None:
        """Items per second now, or None while nothing has been done."""
        if self._start is None or self._moves[-1][1] <= self._start[1]:
            return None
        now, last = self._clock(), self._moves[-1][1]
        rates = [max(0, last - d0) / (now - t0) for t0, d0 in (self._moves[0], self._recent[0])]
        return min(rates) if now > self._recent[0][0] else None

    def average(self) -> float | None:
        """Items per second from the first report to the last move (what a finished task keeps)."""
        if self._start is None:
            return None
        (t0, d0), (t1, d1) = self._start, self._moves[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 and d1 > d0 else None

    def eta_s(self, done: int, total: int) -> float | None:
        """Seconds left at the current rate (None when unknown or nothing is moving)."""
        if total <= done:
            return 0.0
        rate = self.rate()
        return (total - done) / rate if rate else None
