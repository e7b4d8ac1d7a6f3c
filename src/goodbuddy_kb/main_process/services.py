"""The backend's long-lived services, built once at start-up and handed to every handler."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.main_process.storage import sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.watcher import FolderWatcher
from goodbuddy_kb.main_process.tasks import Notify, TaskManager


@dataclass
class Services:
    db: ConnectionPool
    data_dir: Path
    tasks: TaskManager
    watcher: FolderWatcher

    @staticmethod
    def start(db: ConnectionPool, data_dir: Path, notify: Notify) -> Services:
        tasks = TaskManager(db, notify)

        def resync(library_id: str, source_id: str) -> None:
            with contextlib.suppress(KbError):  # the source or library was removed meanwhile
                tasks.sync(library_id, source_id)

        services = Services(db, data_dir, tasks, FolderWatcher(resync))
        services.rewatch()
        return services

    def rewatch(self) -> None:
        self.watcher.reconcile(sources.list_rows(self.db.get()))

    def stop(self) -> None:
        self.watcher.stop()
        self.tasks.shutdown()
