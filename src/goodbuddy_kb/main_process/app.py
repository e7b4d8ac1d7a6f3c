"""Backend start-up and shutdown: lock, migrate, listen, announce, serve, close.

The launcher writes the per-launch secret as the first line of standard input (never argv, never
a world-readable file). The backend answers on standard output with one JSON line: ``ready`` with
its socket name, or ``error`` with a reason (data directory locked, migration failed). It also
writes ``backend.json`` (mode 0600, in a 0700 directory) so other clients of the same user can
attach. End of standard input means the launcher is gone, and the backend shuts down — unless a
GUI is connected to it (say the MCP server started it and the window attached later): then it
says ``{"staying": true}`` on standard output, so the launcher does not wait for it, and serves
until the last GUI connection closes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import socket
import sqlite3
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.contracts.wire import GUI_CLIENT
from goodbuddy_kb.datadir import (
    Endpoint,
    NotADataDirectory,
    ensure_private_dir,
    resolve_data_dir,
)
from goodbuddy_kb.main_process.chat import store as chat_store
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph import starters
from goodbuddy_kb.main_process.lock import DataDirLock, DataDirLocked
from goodbuddy_kb.main_process.netio import install_log_redaction
from goodbuddy_kb.main_process.server import BridgeServer
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.startup import verdict
from goodbuddy_kb.main_process.storage.db import DATABASE_FILE, ConnectionPool, connect
from goodbuddy_kb.main_process.storage.migrations import (
    MigrationError,
    NewerDataError,
    check_known,
    migrate,
)
from goodbuddy_kb.main_process.sync.folder import keep_out
from goodbuddy_kb.qt import QtCore

log = logging.getLogger("goodbuddy_kb.backend")

EXIT_LOCKED = 3
EXIT_MIGRATION = 4
EXIT_BAD_LAUNCH = 5
EXIT_BAD_DATA_DIR = 6
EXIT_DATA_ERROR = 7
EXIT_NEWER_DATA = 8
#: How long the backend waits, after its launcher's pipe closes, for that launcher's own
#: connection to close too before it counts who is still connected.
LAUNCHER_GRACE_MS = 100


def _announce(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def open_database(data_dir: Path, migrations_dir: Path | None = None) -> ConnectionPool:
    """Migrate the data directory's database and return a pool; raises MigrationError."""
    path = data_dir / DATABASE_FILE
    conn = connect(path)
    try:
        migrate(conn, migrations_dir)
        # Libraries still on an earlier starter ontology extract with the current one.
        starters.refresh(conn)
        # Conversations deleted in an earlier session (their undo lasted that session).
        chat_store.purge_deleted(conn)
    finally:
        conn.close()
    return ConnectionPool(path)


class _StdinWatcher(QtCore.QObject):
    closed = QtCore.Signal()

    def start(self) -> None:
        threading.Thread(target=self._run, name="kb-stdin", daemon=True).start()

    def _run(self) -> None:
        try:
            while sys.stdin.readline():
                pass
        except (OSError, ValueError):
            pass
        self.closed.emit()


class _SignalWakeup:
    """Lets Python's signal handlers run while Qt waits, without a timer waking the process.

    Python runs a handler only when the interpreter next gets control; while Qt's event loop
    sleeps in C that would be never. The C-level handler writes the signal's number to a socket
    (``signal.set_wakeup_fd``) that Qt watches, so a signal wakes the loop and its handler runs
    at once — and an idle backend is not woken five times a second to check.
    """

    def __init__(self) -> None:
        self._read, self._write = socket.socketpair()
        for end in (self._read, self._write):
            end.setblocking(False)
        signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)
        self._notifier = QtCore.QSocketNotifier(
            self._read.fileno(), QtCore.QSocketNotifier.Type.Read
        )
        self._notifier.activated.connect(self._drain)

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            self._read.recv(64)


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="goodbuddy-kb-backend")
    parser.add_argument("--data-dir", default=None)
    # sync the watched folders that changed while no backend ran (a long-lived client's)
    parser.add_argument("--catch-up-watched", action="store_true")
    args = parser.parse_args(argv)
    # Every file the backend creates (database, WAL, lock, exports, OCR scratch) is the owner's
    # alone, wherever it is written: the 0700 data directory is not the only guard.
    os.umask(0o077)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    install_log_redaction()

    secret = sys.stdin.readline().strip()
    if len(secret) < 32:
        _announce(error="bad_launch", message="no launch secret on standard input")
        return EXIT_BAD_LAUNCH

    data_dir = resolve_data_dir(args.data_dir)
    try:
        return _open_and_serve(data_dir, secret, args.catch_up_watched)
    except (OSError, sqlite3.Error) as exc:
        reason, message = verdict(exc)
        log.error("cannot open %s: %s", data_dir, message)
        _announce(error=reason, message=message)
        return EXIT_DATA_ERROR


def _refuse_newer(exc: NewerDataError) -> int:
    params = {"found": str(exc.found), "known": str(exc.known)}
    _announce(error="newer_data", message=english("data.newer", params))
    return EXIT_NEWER_DATA


def _open_and_serve(data_dir: Path, secret: str, catch_up: bool = False) -> int:
    try:
        ensure_private_dir(data_dir)
    except NotADataDirectory as exc:
        _announce(error="data_dir", message=str(exc))
        return EXIT_BAD_DATA_DIR
    try:
        # Before the lock file is written: a newer build's directory is left byte for byte.
        check_known(data_dir / DATABASE_FILE)
    except NewerDataError as exc:
        return _refuse_newer(exc)
    lock = DataDirLock(data_dir)
    try:
        lock.acquire()
    except DataDirLocked as exc:
        _announce(error="locked", message=str(exc))
        return EXIT_LOCKED
    try:
        try:
            pool = open_database(data_dir)
        except MigrationError as exc:
            _announce(error="migration", message=str(exc))
            return EXIT_MIGRATION
        except NewerDataError as exc:  # stamped by a newer build meanwhile
            return _refuse_newer(exc)
        return _serve(data_dir, pool, secret, catch_up)
    finally:
        lock.release()


def _serve(data_dir: Path, pool: ConnectionPool, secret: str, catch_up: bool) -> int:
    app = QtCore.QCoreApplication.instance() or QtCore.QCoreApplication([])
    server = BridgeServer(secret, f"goodbuddy-kb-{uuid.uuid4().hex}")
    keep_out(data_dir)  # a folder source holding the data directory never imports it
    services = Services.start(pool, data_dir, server.notify_threadsafe, catch_up=catch_up)
    server.attach(Dispatcher(services))
    full_name = server.listen()
    endpoint = Endpoint(full_name, secret, os.getpid())
    endpoint.write(data_dir)

    stopping: list[bool] = []

    def stop() -> None:
        if stopping:  # the last client leaving while it shuts down asks again
            return
        stopping.append(True)
        server.shutdown()
        services.stop()
        app.quit()

    def launcher_gone() -> None:
        # The launcher closes its own connection before its pipe: let that disconnect arrive.
        QtCore.QTimer.singleShot(LAUNCHER_GRACE_MS, decide)

    def decide() -> None:
        """Stop, or keep serving the clients still connected (a window, another command or an
        MCP server that attached meanwhile) until the last one leaves."""
        if not server.connections_open():
            stop()
            return
        reason = "gui" if GUI_CLIENT in server.clients_connected() else "clients"
        log.info("launcher gone; serving the connected %s until they leave", reason)
        server.last_client_left.connect(stop)
        # The launcher may be gone without waiting for the answer.
        with contextlib.suppress(OSError, ValueError):
            _announce(staying=True, reason=reason)

    watcher = _StdinWatcher()
    watcher.closed.connect(launcher_gone)
    watcher.start()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: QtCore.QTimer.singleShot(0, stop))
    wakeup = _SignalWakeup()  # noqa: F841 (kept alive while serving)

    _announce(ready=True, serverName=full_name, pid=os.getpid())
    log.info("serving %s", data_dir)
    try:
        app.exec()
    finally:
        Endpoint.remove(data_dir, os.getpid())
        pool.close_all()
    return 0
