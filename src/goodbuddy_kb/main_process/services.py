"""The backend's long-lived services, built once at start-up and handed to every handler."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chat.scope import ScopeRegistry
from goodbuddy_kb.main_process.credentials import CredentialStore
from goodbuddy_kb.main_process.diagnostic_log import DiagnosticsLog
from goodbuddy_kb.main_process.embeddings import load_connection, make_provider
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.graph.model import chat_client
from goodbuddy_kb.main_process.opener import open_with_platform, reveal_with_platform
from goodbuddy_kb.main_process.storage import sources
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.setting_keys import CHAT_API_KEY
from goodbuddy_kb.main_process.sync import catchup, web_auth
from goodbuddy_kb.main_process.sync.watcher import FolderWatcher
from goodbuddy_kb.main_process.tasks.manager import TaskManager
from goodbuddy_kb.main_process.tasks.runner import Notify
from goodbuddy_kb.main_process.vectors import int8_packed

log = logging.getLogger(__name__)


@dataclass
class Services:
    db: ConnectionPool
    data_dir: Path
    credentials: CredentialStore
    tasks: TaskManager = field(init=False)
    #: Diagnostics events waiting to be written together (a search writes nothing itself).
    diagnostics: DiagnosticsLog = field(init=False)
    watcher: FolderWatcher = field(init=False)
    _provider: EmbeddingProvider | None = field(default=None, init=False)
    _provider_for: EmbeddingConnection | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    #: Running cancellable requests by their client-chosen id.
    requests: dict[str, CancelToken] = field(default_factory=dict, init=False)
    #: Opens a checked local file path or http(s) URL with the platform's opener.
    opener: Callable[[str], None] = field(default_factory=lambda: open_with_platform, init=False)
    #: Shows a checked local file in its folder with the platform's file manager.
    revealer: Callable[[str], None] = field(
        default_factory=lambda: reveal_with_platform, init=False
    )
    #: Sends a notification to every client (thread-safe).
    notify: Notify = field(default=lambda _m, _p: None, init=False)
    scopes: ScopeRegistry = field(default_factory=ScopeRegistry, init=False)

    @staticmethod
    def start(
        db: ConnectionPool,
        data_dir: Path,
        notify: Notify,
        credentials: CredentialStore | None = None,
        catch_up: bool = False,
    ) -> Services:
        services = Services(db, data_dir, credentials or CredentialStore(data_dir))
        web_auth.install(services.credentials)
        web_auth.scrub_stored(db.get())
        services.notify = notify
        services.diagnostics = DiagnosticsLog(db)
        services.tasks = TaskManager(db, data_dir, notify, services.embedding, services.diagnostics)
        services.tasks.chat = lambda: chat_client(db.get(), services.credentials.get(CHAT_API_KEY))

        def resync(library_id: str, source_id: str) -> None:
            with contextlib.suppress(KbError):  # the source or library was removed meanwhile
                services.tasks.sync(library_id, source_id)

        services.watcher = FolderWatcher(resync)
        services.rewatch()
        # Only a long-lived client's backend (the window, the MCP server) goes on with work the
        # app's closing cut off: one a command starts for itself ends with it, and cancelled what
        # it resumed a second later, leaving a "Vectorise · cancelled · the app is closing" row
        # for each `tasks` or `library list` run (a helper's try).
        if catch_up:
            services.tasks.resume_interrupted_ocr()
            services.tasks.resume_interrupted_vectors()
            threading.Thread(
                target=services.catch_up, args=(resync,), name="watched-catch-up", daemon=True
            ).start()
        return services

    def catch_up(self, resync: Callable[[str, str], None]) -> None:
        """Sync the watched folders that changed while the app was closed (the watcher only
        hears changes while it runs)."""
        try:
            conn = self.db.get()
            for source in catchup.stale_watched(conn, sources.list_rows(conn)):
                resync(source.library_id, source.id)
        except Exception:  # a start must not fail on it; the next change syncs the folder
            log.exception("watched folders could not be caught up")

    def embedding(self) -> EmbeddingProvider | None:
        """The provider of the current model connection (re-made when the setting changes)."""
        connection = load_connection(self.db.get())
        with self._lock:
            if self._provider_for != connection:
                if self._provider is not None:
                    self._provider.close()
                self._provider = make_provider(connection, self.credentials)
                self._provider_for = connection
            return self._provider

    def reset_embedding(self) -> None:
        with self._lock:
            self._provider_for = None

    @contextlib.contextmanager
    def request(self, request_id: str | None) -> Iterator[CancelToken]:
        """A cancel token registered under ``request_id`` while the request runs."""
        token = CancelToken()
        if request_id is not None:
            with self._lock:
                self.requests[request_id] = token
        try:
            yield token
        finally:
            if request_id is not None:
                with self._lock:
                    self.requests.pop(request_id, None)

    def cancel_request(self, request_id: str) -> bool:
        with self._lock:
            token = self.requests.get(request_id)
        if token is None:
            return False
        token.cancel()
        return True

    def rewatch(self) -> None:
        self.watcher.reconcile(sources.list_rows(self.db.get()))

    def stop(self) -> None:
        with self._lock:
            tokens = list(self.requests.values())
        for token in tokens:
            token.cancel(task_store.APP_CLOSING)
        self.watcher.stop()
        self.tasks.shutdown()
        int8_packed.stop()
        self.diagnostics.close()  # after the tasks, whose endings are events too
