"""Each way a data directory can be unusable maps to one coded verdict with advice; the message
names the cause and never a traceback (the disk-full case cannot be made on a test machine's disk,
so the errors SQLite and the OS raise for it are given here as they arrive)."""

from __future__ import annotations

import errno
import sqlite3

from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.main_process.startup import task_failure, verdict


def test_each_cause_has_its_code() -> None:
    cases = [
        (OSError(errno.ENOSPC, "No space left on device"), "disk_full", "data.disk_full"),
        (sqlite3.OperationalError("database or disk is full"), "disk_full", "data.disk_full"),
        (OSError(errno.EACCES, "Permission denied"), "read_only", "data.read_only"),
        (OSError(errno.EROFS, "Read-only file system"), "read_only", "data.read_only"),
        (
            sqlite3.OperationalError("attempt to write a readonly database"),
            "read_only",
            "data.read_only",
        ),
        (
            sqlite3.DatabaseError("file is not a database"),
            "corrupt_database",
            "data.corrupt_database",
        ),
        (
            sqlite3.DatabaseError("database disk image is malformed"),
            "corrupt_database",
            "data.corrupt_database",
        ),
        (OSError(errno.EIO, "Input/output error"), "start_failed", "data.unusable"),
    ]
    for exc, kind, code in cases:
        got_kind, reason = verdict(exc)
        assert (got_kind, reason.code) == (kind, code), exc
        assert "Traceback" not in reason
        coded = classify(str(reason))  # a stored reason is read back with its code
        assert coded is not None and coded.code == code


def test_a_task_that_lost_its_source_says_so() -> None:
    reason = task_failure(sqlite3.IntegrityError("FOREIGN KEY constraint failed"))
    assert reason.code == "data.removed_meanwhile"
    assert (
        task_failure(sqlite3.OperationalError("database or disk is full")).code == "data.disk_full"
    )
