"""A task's pace: items per second over a recent window and the time left at that pace.

The rate is measured over the last ``WINDOW_S`` seconds (plus the sample just before them), so
it follows a machine that becomes busier or quieter, and it falls while a long batch is still
running instead of holding the last good figure. Until two samples differ there is no rate and
no ETA: the task says it is estimating rather than guessing.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW_S = 30.0


class Throughput:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._samples: deque[tuple[float, int]] = deque()
        self._started: tuple[float, int] | None = None

    def add(self, done: int) -> None:
        now = self._clock()
        if self._started is None:
            self._started = (now, done)
        self._samples.append((now, done))
        while len(self._samples) > 2 and self._samples[1][0] < now - WINDOW_S:
            self._samples.popleft()

    def rate(self) -> float | None:
        """Items per second over the window, or None while it cannot be known."""
        if len(self._samples) < 2 or self._samples[-1][1] <= self._started_done():
            return None  # nothing finished yet
        (t0, d0), (t1, d1) = self._samples[0], self._samples[-1]
        return max(0, d1 - d0) / (t1 - t0) if t1 > t0 else None

    def average(self) -> float | None:
        """Items per second since the first sample (the figure a finished task keeps)."""
        if self._started is None or not self._samples:
            return None
        (t0, d0), (t1, d1) = self._started, self._samples[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 and d1 > d0 else None

    def eta_s(self, done: int, total: int) -> float | None:
        """Seconds left at the current rate (None when unknown or nothing is moving)."""
        rate = self.rate()
        if rate is None or rate <= 0 or total <= done:
            return None if total > done else 0.0
        return (total - done) / rate

    def _started_done(self) -> int:
        return self._started[1] if self._started is not None else 0
