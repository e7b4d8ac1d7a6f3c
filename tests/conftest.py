"""Shared fixtures: a data directory, a migrated database, a real backend on a real socket, and a
platform opener that records what it is asked to open."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# QSettings (theme, language) of the GUI under test live in a folder of the run, never in the
# user's own configuration.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="goodbuddy-config-")
# Tests (and the backends they start) embed with the deterministic hashing provider unless a
# test configures another; the bundled model is exercised by its own slow-marked test.
os.environ.setdefault("GOODBUDDY_DEFAULT_EMBEDDING", "deterministic")
# Each backend keeps room to record a failure on a full disk (8 MB); the suite's hundreds of
# data directories keep 1 MB each (test_disk_full_socket runs the real size).
os.environ.setdefault("GOODBUDDY_SPACE_RESERVE_MB", "1")

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.opener import ENV_OPENER
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.ui.i18n import set_language


@pytest.fixture(autouse=True)
def own_configuration(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test starts from no saved GUI settings (language, theme, window): a language one
    test saved must not decide the language of the next test's window or command, whichever
    test ran before it in the same worker."""
    before = os.environ["XDG_CONFIG_HOME"]
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    yield
    os.environ["XDG_CONFIG_HOME"] = before
    # nor the process's interface language: a window opened in Chinese left it Chinese for
    # the next test of the worker (a sentence another test read in English)
    set_language("en")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def pool(data_dir: Path) -> Iterator[ConnectionPool]:
    """A migrated temporary database."""
    db = open_database(data_dir)
    yield db
    db.close_all()


@pytest.fixture
def services(pool: ConnectionPool, data_dir: Path) -> Iterator[Services]:
    """The backend's services in-process; notifications are collected in ``services.sent``."""
    sent: list[tuple[str, dict[str, object]]] = []
    running = Services.start(pool, data_dir, lambda method, params: sent.append((method, params)))
    running.sent = sent  # type: ignore[attr-defined]
    yield running
    running.stop()


@pytest.fixture
def dispatcher(services: Services) -> Dispatcher:
    return Dispatcher(services)


@pytest.fixture
def backend(data_dir: Path) -> Iterator[BackendProcess]:
    """A real backend process serving ``data_dir`` on a real QLocalServer."""
    process = BackendProcess.start(data_dir)
    yield process
    process.stop()  # also closes the pipes of a backend a test killed


@pytest.fixture
def client(backend: BackendProcess) -> Iterator[BlockingClient]:
    endpoint = backend.endpoint
    with BlockingClient(endpoint.server_name, endpoint.secret, "test").open() as c:
        yield c


@pytest.fixture(autouse=True, scope="session")
def _qt_application(qapp: object) -> object:
    """One QApplication for the whole run, before any client would make a bare core app."""
    return qapp


@pytest.fixture
def opened_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform opener replaced at the process boundary by a command that records its argument."""
    log = tmp_path / "opened.log"
    script = tmp_path / "record-opener"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_OPENER, str(script))
    return log
