"""What a start compares to find a watched folder changed while the app was closed."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.storage import sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.catchup import changed_while_closed, stale_watched
from goodbuddy_kb.main_process.sync.engine import sync_source


def _age(folder: Path, seconds: float = 3600) -> None:
    then = time.time() - seconds
    for path in folder.rglob("*"):
        os.utime(path, (then, then))


def _synced(pool: ConnectionPool, source: SourceRow, folder: Path) -> SourceRow:
    _age(folder)
    sync_source(pool.get(), source, CancelToken())
    return sources.get(pool.get(), source.library_id, source.id)


def test_a_synced_folder_is_unchanged_until_a_file_is(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    (folder / "b.md").write_text("# B\n\nbeta\n", encoding="utf-8")
    row = _synced(pool, folder_source, folder)
    assert not changed_while_closed(pool.get(), row)
    # same modification time as before, other size (an archive unpacked over the folder)
    (folder / "a.md").write_text("# A\n\nalpha, longer now\n", encoding="utf-8")
    _age(folder)
    assert changed_while_closed(pool.get(), row)


def test_a_folder_away_is_synced_once_to_say_so_and_again_when_it_is_back(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow, tmp_path: Path
) -> None:
    (folder / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    row = _synced(pool, folder_source, folder)
    aside = tmp_path / "aside"
    shutil.move(folder, aside)
    assert changed_while_closed(pool.get(), row)  # the sync marks it unavailable
    sync_source(pool.get(), row, CancelToken())
    row = sources.get(pool.get(), row.library_id, row.id)
    assert row.state == "unavailable"
    assert not changed_while_closed(pool.get(), row)  # said once, not at every start
    shutil.move(aside, folder)
    assert changed_while_closed(pool.get(), row)  # back: its state must be put right


def test_only_watched_folders_are_caught_up(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    row = _synced(pool, folder_source, folder)
    (folder / "b.md").write_text("# B\n\nbeta\n", encoding="utf-8")
    assert stale_watched(pool.get(), [row]) == []  # a folder synced by hand stays so
    watched = replace(row, watch=True)
    assert stale_watched(pool.get(), [watched]) == [watched]
