"""Watching folder sources: a change re-syncs the source within a few seconds (debounced).

Only changed files are re-processed (the sync compares checksums). A watched folder that
disappears is noticed within seconds (its presence is checked every ``PRESENCE_S``) and synced,
which marks the source unavailable (nothing is deleted); when it comes back it is watched again
and synced. A helper renamed a watched folder away and back: the source read "OK" until a
manual sync, then "unavailable" for eight minutes after the folder was back.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from goodbuddy_kb.main_process.storage.sources import SourceRow

log = logging.getLogger(__name__)
#: Quiet time after the last change before the sync starts.
DEBOUNCE_S = 1.0
#: How often each watched folder's presence is checked.
PRESENCE_S = 2.0

Trigger = Callable[[str, str], None]  # (library id, source id)


class _Handler(FileSystemEventHandler):
    def __init__(self, fire: Callable[[], None]) -> None:
        self._fire = fire

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in ("opened", "closed_no_write"):
            self._fire()


class FolderWatcher:
    def __init__(
        self, trigger: Trigger, debounce_s: float = DEBOUNCE_S, presence_s: float = PRESENCE_S
    ) -> None:
        self._trigger = trigger
        self._debounce = debounce_s
        self._observer: BaseObserver = Observer()
        self._observer.daemon = True
        self._observer.start()
        #: source id → its watch and handler. Sources of several libraries on one folder
        #: share a watch (watchdog's watches are equal by path), each with its own handler.
        self._watches: dict[str, tuple[ObservedWatch, _Handler]] = {}
        self._timers: dict[str, threading.Timer] = {}
        self._lock = threading.Lock()
        #: The folder sources that want watching, and whether each folder was there when last
        #: looked at.
        self._wanted: dict[str, SourceRow] = {}
        self._present: dict[str, bool] = {}
        self._stopping = threading.Event()
        self._presence_s = presence_s
        threading.Thread(target=self._look, name="watched-presence", daemon=True).start()

    def reconcile(self, rows: list[SourceRow]) -> None:
        """Watch exactly the folder sources that want it (call after any source change)."""
        wanted = {r.id: r for r in rows if r.kind == "folder" and r.watch}
        with self._lock:
            self._wanted = wanted
            self._present = {
                source_id: self._present.get(source_id, Path(row.location).is_dir())
                for source_id, row in wanted.items()
            }
            for source_id in list(self._watches):
                if source_id not in wanted:
                    self._release(*self._watches.pop(source_id))
                    timer = self._timers.pop(source_id, None)
                    if timer is not None:
                        timer.cancel()
            for row in wanted.values():
                self._watch(row)

    def _watch(self, row: SourceRow) -> None:
        """Watch ``row``'s folder if it is there and not watched yet (under the lock)."""
        if row.id in self._watches or not Path(row.location).is_dir():
            return
        handler = _Handler(functools.partial(self._schedule, row.library_id, row.id))
        try:
            watch = self._observer.schedule(handler, row.location, recursive=True)
            self._watches[row.id] = (watch, handler)
        except OSError as exc:
            log.warning("cannot watch a folder source: %s", exc.strerror or exc)

    def _look(self) -> None:
        """Every few seconds: a watched folder gone or back is synced (the sync says it is
        unavailable, or reads it again), and watched again once back."""
        while not self._stopping.wait(self._presence_s):
            changed = []
            with self._lock:
                for source_id, row in self._wanted.items():
                    there = Path(row.location).is_dir()
                    if there != self._present.get(source_id, there):
                        changed.append(row)
                    self._present[source_id] = there
                    if not there and source_id in self._watches:
                        # (a watch follows the folder's inode wherever it was moved to)
                        self._release(*self._watches.pop(source_id))
                    elif there:
                        self._watch(row)  # back: watched again
            for row in changed:
                self._schedule(row.library_id, row.id)

    def _release(self, watch: ObservedWatch, handler: _Handler) -> None:
        """Stop one source's watching: its handler only, while another source shares the
        folder's watch (unscheduling the watch stopped that source's watching as well, and
        the second removal then failed: a library could not be deleted)."""
        shared = any(other == watch for other, _ in self._watches.values())
        try:
            if shared:
                self._observer.remove_handler_for_watch(handler, watch)
            else:
                self._observer.unschedule(watch)
        except KeyError:  # gone already (its folder was removed)
            log.info("a folder watch was already gone")

    @property
    def watched(self) -> set[str]:
        with self._lock:
            return set(self._watches)

    def _schedule(self, library_id: str, source_id: str) -> None:
        with self._lock:
            timer = self._timers.get(source_id)
            if timer is not None:
                timer.cancel()
            timer = threading.Timer(self._debounce, self._fire, (library_id, source_id))
            timer.daemon = True
            self._timers[source_id] = timer
            timer.start()

    def _fire(self, library_id: str, source_id: str) -> None:
        with self._lock:
            self._timers.pop(source_id, None)
        try:
            self._trigger(library_id, source_id)
        except Exception:
            log.exception("a watched folder could not be re-synced")

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()
        self._observer.stop()
        self._observer.join(timeout=2)
