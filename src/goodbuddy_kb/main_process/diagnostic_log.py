"""Diagnostics events held in memory and written in batches, so that a search stays read-only.

A search or a finished task adds its event here (``add``), which takes microseconds and touches
no file. The waiting events reach the ``diagnostic_events`` table together, in one short write
transaction: ``FLUSH_AFTER_S`` after the first of them, before anything reads the table (the
summary, the export: ``flush``), and at shutdown (``close``) — so nothing a person looks at is
missing, and a burst of searches costs one write instead of one each. Memory is bounded: at
most ``MAX_PENDING`` events wait (the table keeps no more than that either), the oldest giving
way first. A clean shutdown loses nothing; a crash (the process killed) loses the events of at
most the last ``FLUSH_AFTER_S`` seconds.

One flusher thread waits without a timeout while nothing is pending: an idle backend does not
wake up for the diagnostics.
"""

from __future__ import annotations

import collections
import json
import logging
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage.db import ConnectionPool, transaction

log = logging.getLogger(__name__)

#: Rows kept in the table; older ones are dropped as new ones arrive.
MAX_EVENTS = 5_000
#: Events waiting in memory at most (a full table's worth: older ones would be dropped anyway).
MAX_PENDING = MAX_EVENTS
#: Seconds from the first waiting event to the write that takes it and every later one.
FLUSH_AFTER_S = 5.0


@dataclass(frozen=True)
class PendingEvent:
    at: str
    kind: str
    outcome: str
    duration_ms: float
    details: str  # JSON


def write_events(conn: sqlite3.Connection, events: list[PendingEvent]) -> None:
    """Add events in order and drop the oldest past the ring's size (one short transaction)."""
    with transaction(conn):
        conn.executemany(
            "INSERT INTO diagnostic_events (at, kind, outcome, duration_ms, details)"
            " VALUES (?, ?, ?, ?, ?)",
            [(e.at, e.kind, e.outcome, e.duration_ms, e.details) for e in events],
        )
        conn.execute(
            "DELETE FROM diagnostic_events WHERE id <= (SELECT max(id) FROM diagnostic_events) - ?",
            (MAX_EVENTS,),
        )


class DiagnosticsLog:
    """The backend's one buffer of diagnostics events (thread-safe)."""

    def __init__(self, db: ConnectionPool, flush_after_s: float = FLUSH_AFTER_S) -> None:
        self._db = db
        self._flush_after = flush_after_s
        self._pending: collections.deque[PendingEvent] = collections.deque(maxlen=MAX_PENDING)
        self._changed = threading.Condition()
        #: Held from taking the pending events until they are committed, so that a reader's
        #: ``flush`` never returns while another thread's write of earlier events is under way.
        self._writing = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="kb-diagnostics", daemon=True)
        self._thread.start()

    def add(self, kind: str, outcome: str, duration_ms: float, details: dict[str, Any]) -> None:
        event = PendingEvent(now_iso(), kind, outcome, round(duration_ms, 1), json.dumps(details))
        with self._changed:
            self._pending.append(event)
            if len(self._pending) == 1:
                self._changed.notify()

    def pending(self) -> int:
        with self._changed:
            return len(self._pending)

    def flush(self) -> int:
        """Write every waiting event now (before reading the table); how many were written.
        A failed write (a busy or full disk) is logged and its events dropped: diagnostics never
        fail the work or the reading."""
        with self._writing:
            with self._changed:
                events = list(self._pending)
                self._pending.clear()
            if not events:
                return 0
            try:
                write_events(self._db.get(), events)
            except (sqlite3.Error, OSError, KbError) as exc:
                log.warning(
                    "%d diagnostics events were not recorded (%s)",
                    len(events),
                    exc.__class__.__name__,
                )
                return 0
            return len(events)

    def close(self) -> None:
        """Stop the flusher and write what is waiting (at shutdown, before the pool closes)."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        self._thread.join(timeout=5)
        self.flush()

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._pending and not self._closed:
                    self._changed.wait()  # no timeout: idle means asleep
                if self._closed:
                    return
                # Gather what arrives in the next few seconds into the same write.
                self._changed.wait_for(lambda: self._closed, timeout=self._flush_after)
                if self._closed:
                    return
            self.flush()
