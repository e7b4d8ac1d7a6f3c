"""Find the backend serving a data directory, or start one and hand it the launch secret.

The secret goes to the child over its standard-input pipe, which no other process can read;
the child announces readiness (or why it cannot start) as one JSON line on standard output.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts.errors import KbError, UnavailableError
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.datadir import (
    LOG_FILE,
    Endpoint,
    NotADataDirectory,
    backend_lock_held,
    ensure_private_dir,
)
from goodbuddy_kb.selfexec import backend_argv, backend_env

START_TIMEOUT_S = 30.0
#: How long a client waits for a backend another client is starting on the same directory.
START_WAIT_S = 120.0
__all__ = ["LOG_FILE", "BackendProcess", "BackendStartError", "Session", "open_session"]


class BackendStartError(UnavailableError):
    """The backend process could not start; ``reason`` is its own one-word verdict."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message, {"reason": reason})
        self.reason = reason


class BackendProcess:
    """A backend child process started by this launcher; lives while its stdin pipe is open."""

    def __init__(self, popen: subprocess.Popen[bytes], endpoint: Endpoint) -> None:
        self.popen = popen
        self.endpoint = endpoint

    @property
    def pid(self) -> int:
        return self.popen.pid

    @staticmethod
    def start(
        data_dir: Path, timeout: float = START_TIMEOUT_S, *, catch_up: bool = False
    ) -> BackendProcess:
        """``catch_up``: a long-lived client's backend (the window, the MCP server) syncs the
        watched folders that changed while no backend ran and goes on with the vectorisation
        and OCR the app's closing cut off; a command's own backend, gone in a moment, starts
        no work it would cut short."""
        try:
            ensure_private_dir(data_dir)
        except NotADataDirectory as exc:
            raise BackendStartError(f"the backend could not start: {exc}", "data_dir") from None
        secret = secrets.token_hex(32)
        # The log is the owner's alone (0600), like every file the backend creates.
        try:
            log = os.fdopen(
                os.open(data_dir / LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab"
            )
        except OSError as exc:
            unwritable = Reason("data.read_only", detail=exc.strerror or exc.__class__.__name__)
            raise BackendStartError(
                f"the backend could not start: {unwritable}", "read_only"
            ) from None
        try:
            popen = subprocess.Popen(
                [*backend_argv(), "--data-dir", str(data_dir)]
                + (["--catch-up-watched"] if catch_up else []),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                close_fds=True,
                env=backend_env(),
            )
        finally:
            log.close()
        assert popen.stdin is not None and popen.stdout is not None
        popen.stdin.write((secret + "\n").encode("ascii"))
        popen.stdin.flush()
        line = _read_line(popen.stdout, timeout)
        try:
            announce: dict[str, Any] = json.loads(line) if line else {}
        except json.JSONDecodeError:
            announce = {}
        if not announce.get("ready"):
            popen.stdin.close()
            popen.wait(timeout=5)
            popen.stdout.close()
            reason = str(announce.get("error", "exited"))
            message = str(announce.get("message", f"backend exited with {popen.returncode}"))
            raise BackendStartError(f"the backend could not start: {message}", reason)
        return BackendProcess(popen, Endpoint(str(announce["serverName"]), secret, popen.pid))

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, timeout: float = 8.0) -> int | None:
        """Close the pipe (the backend shuts down cleanly), escalating if it does not.

        A backend that a GUI is still using stays: it says so, and this returns None at once
        (the process is reaped in the background when it exits later).
        """
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
        deadline = time.monotonic() + timeout
        stdout = self.popen.stdout
        if stdout is not None and not stdout.closed and _is_staying(_read_line(stdout, timeout)):
            self._close_pipes()
            threading.Thread(target=self.popen.wait, name="kb-reap", daemon=True).start()
            return None
        try:
            return self.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.popen.terminate()
            try:
                return self.popen.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                return self.popen.wait()
        finally:
            self._close_pipes()

    def kill(self) -> None:
        """Kill without a clean shutdown (tests of crash recovery use this)."""
        self.popen.kill()
        self.popen.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self.popen.stdin, self.popen.stdout):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(OSError):
                    pipe.close()


def _is_staying(line: str) -> bool:
    try:
        message = json.loads(line) if line else {}
    except json.JSONDecodeError:
        return False
    return isinstance(message, dict) and message.get("staying") is True


def _read_line(stream: IO[bytes], timeout: float) -> str:
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout).decode("utf-8", "replace").strip()
    except queue.Empty:
        return ""


@dataclass
class Session:
    """A connected client, and the backend process if this session started it."""

    client: BlockingClient
    endpoint: Endpoint
    process: BackendProcess | None

    def close(self) -> None:
        self.client.close()
        if self.process is not None:
            self.process.stop()


def _attach(data_dir: Path, client_name: str) -> Session | None:
    endpoint = Endpoint.read(data_dir)
    if endpoint is None:
        return None
    try:
        client = BlockingClient(endpoint.server_name, endpoint.secret, client_name).open()
    except KbError:
        return None
    return Session(client, endpoint, None)


def open_session(
    data_dir: Path,
    client_name: str = "cli",
    start: bool = True,
    wait: float = START_WAIT_S,
    catch_up: bool = False,
) -> Session:
    """Attach to the backend already serving ``data_dir``, or start one (and own it).

    Many clients starting at once on an idle directory (scripts, cron jobs) race to start a
    backend: one wins the directory's lock and the others wait for it to announce itself, and
    start one themselves if the winner gives up, within ``wait`` seconds."""
    session = _attach(data_dir, client_name)
    if session is not None:
        return session
    if not start:
        raise UnavailableError("no backend is serving this data directory")
    deadline = time.monotonic() + wait
    while True:
        try:
            process = BackendProcess.start(data_dir, catch_up=catch_up)
            break
        except BackendStartError as exc:
            if exc.reason != "locked" or time.monotonic() >= deadline:
                raise
        # Another backend holds the lock and is still starting: wait for it to announce itself.
        while time.monotonic() < deadline:
            session = _attach(data_dir, client_name)
            if session is not None:
                return session
            if not backend_lock_held(data_dir):
                break  # the winner is gone without serving: try again ourselves
            time.sleep(0.1)
    client = BlockingClient(process.endpoint.server_name, process.endpoint.secret, client_name)
    try:
        client.open()
    except KbError:
        process.stop()
        raise
    return Session(client, process.endpoint, process)
