"""What a full disk leaves behind, on real SQLite files: a COMMIT that fails leaves no
transaction open, a database whose file a stopped checkpoint left behind its write-ahead log is
read whole (not taken for a damaged one), and the reserve is laid only with room to spare."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.methods import NOTIFY_TASK
from goodbuddy_kb.contracts.tasks import TaskInfo
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.diagnostic_log import DiagnosticsLog
from goodbuddy_kb.main_process.storage import libraries, migrations, reserve
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.storage.db import ConnectionPool, connect, transaction
from goodbuddy_kb.main_process.tasks.runner import Outcome, Progress, TaskRunner


def test_a_commit_that_fails_leaves_no_transaction_open(tmp_path: Path) -> None:
    """SQLite keeps a transaction open when its COMMIT fails (a full disk, a deferred
    constraint); the connection then held the write lock and every later write failed."""
    conn = connect(tmp_path / "db.sqlite3")
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute(
        "CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER"
        " REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)"
    )
    with pytest.raises(sqlite3.IntegrityError), transaction(conn):
        conn.execute("INSERT INTO child VALUES (1, 99)")  # fails only at COMMIT
    assert not conn.in_transaction
    with transaction(conn):
        conn.execute("INSERT INTO parent VALUES (1)")
    other = sqlite3.connect(tmp_path / "db.sqlite3")
    assert other.execute("SELECT count(*) FROM child").fetchone() == (0,)
    assert other.execute("SELECT count(*) FROM parent").fetchone() == (1,)


def test_a_database_half_checkpointed_is_not_called_damaged(tmp_path: Path) -> None:
    """A full disk (or a crash) stopped a checkpoint: the database file alone is no database,
    its write-ahead log holds the rest. The start's read-only version check read the file
    alone and said "damaged: move it aside to start with an empty one"."""
    path = tmp_path / "kb.sqlite3"
    conn = connect(path)
    migrations.migrate(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("VACUUM")  # every page written again, into the log only
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(path, copy / path.name)
    shutil.copy(tmp_path / f"{path.name}-wal", copy / f"{path.name}-wal")
    conn.close()
    torn = copy / path.name
    data = bytearray(torn.read_bytes())
    page = 4096
    data[page:] = b"\x5a" * (len(data) - page)  # the checkpoint wrote garbage past page 1
    torn.write_bytes(bytes(data))
    migrations.check_known(torn)  # before: DatabaseError "database disk image is malformed"
    assert sqlite3.connect(torn).execute("PRAGMA quick_check").fetchone() == ("ok",)


def test_the_reserve_is_laid_with_room_to_spare_and_given_back_on_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert reserve.keep(tmp_path)
    assert (tmp_path / reserve.FILE).stat().st_size == reserve.size() > 0
    assert reserve.is_disk_full(OSError(errno.ENOSPC, "full"))
    assert not reserve.is_disk_full(OSError(errno.EACCES, "denied"))
    conn = connect(tmp_path / "db.sqlite3")
    assert reserve.release_for(conn) and not (tmp_path / reserve.FILE).exists()
    # a disk with less than the reserve and its spare free: not laid, and bulk writes refused
    free = reserve.size() + reserve.SPARE - 1
    monkeypatch.setattr(reserve, "_free", lambda _folder: free)
    assert not reserve.keep(tmp_path) and not (tmp_path / reserve.FILE).exists()
    free = reserve.SPARE - 1
    with pytest.raises(OSError) as raised:
        reserve.check_room_for(conn)
    assert raised.value.errno == errno.ENOSPC


def test_a_task_whose_end_cannot_be_written_still_ends_failed_and_is_written_later(
    pool: ConnectionPool,
) -> None:
    """The work fails and its final row cannot be written either (the disk filled up by
    another program): the task is still published and listed failed with the reason — it had
    stayed "running" for good — and the row is written once the database takes writes again."""
    published: list[TaskInfo] = []
    diagnostics = DiagnosticsLog(pool)
    runner = TaskRunner(
        pool,
        lambda method, params: (
            published.append(TaskInfo.model_validate(params))
            if method == NOTIFY_TASK.name
            else None
        ),
        diagnostics,
    )
    library_id = libraries.create(pool.get(), "Full").id

    def work(_token: CancelToken, _progress: Progress) -> Outcome:
        conn = pool.get()  # the lane's own connection: from now on it cannot write
        conn.execute("PRAGMA query_only = ON")
        with transaction(conn):
            conn.execute("UPDATE libraries SET name = 'x'")
        raise AssertionError("unreachable")

    try:
        task = runner._queue("sync", library_id, None, "k", work)
        runner.wait_idle()
        last = published[-1]
        assert last.id == task.id and last.state == "failed", published
        listed = runner.listed(task_store.list_recent(pool.get(), library_id, 10))
        assert [(x.state, x.error_code) for x in listed] == [("failed", "data.read_only")]
        row = pool.get().execute("SELECT state FROM tasks WHERE id = ?", (task.id,)).fetchone()
        assert tuple(row) == ("failed",), "written by the listing, from a connection that can"
    finally:
        runner.shutdown()
        diagnostics.close()
