"""Hostile and broken files (issue 19, items 1–4 and the text concern): real files, real races.

The race between listing and reading is driven deterministically through the sync's progress
callback, which runs after the folder is listed and before each file is opened.
"""

from __future__ import annotations

import os
import stat
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.parsing import ParseError, limits, parse
from goodbuddy_kb.main_process.storage import documents, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.sync.reading import read_inside
from tests.docgen import docx_bomb, make_docx, malformed_docx, with_member

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and FIFOs")
SECRET = "outsidesecretmarker"


def hits(pool: ConnectionPool, library_id: str, text: str) -> int:
    return len(search(pool.get(), "fts", [library_id], build_query(text), 10))


def failures(pool: ConnectionPool, library_id: str) -> dict[str, str]:
    docs, _ = documents.page(pool.get(), library_id, 0, 50, "failed")
    return {d.path: d.error or "" for d in docs}


def swap_before_read(target: str, swap: object) -> object:
    """A progress hook that runs ``swap()`` just before ``target`` is opened."""

    def progress(done: int, total: int, current: str | None, failed: int) -> None:
        if current == target:
            swap()  # type: ignore[operator]

    return progress


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside.md"
    path.write_text(f"# Private\n\n{SECRET} salary table\n", encoding="utf-8")
    return path


# -- item 1: links ----------------------------------------------------------------------------
@posix_only
def test_file_swapped_for_a_link_during_sync_is_not_read(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow, outside: Path
) -> None:
    (folder / "a.md").write_text("alpha file\n", encoding="utf-8")
    (folder / "b.md").write_text("bravo file\n", encoding="utf-8")

    def swap() -> None:
        (folder / "b.md").unlink()
        (folder / "b.md").symlink_to(outside)

    report = sync_source(
        pool.get(),
        folder_source,
        CancelToken(),
        swap_before_read("b.md", swap),  # type: ignore[arg-type]
    )
    assert report.failed == 1
    assert hits(pool, folder_source.library_id, SECRET) == 0
    assert "link" in failures(pool, folder_source.library_id)["b.md"]
    again = sync_source(pool.get(), folder_source, CancelToken())
    assert hits(pool, folder_source.library_id, SECRET) == 0
    assert again.failed == 1 and "link" in failures(pool, folder_source.library_id)["b.md"]


@posix_only
def test_indexed_file_later_replaced_by_a_link_loses_its_content_with_a_reason(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow, outside: Path
) -> None:
    (folder / "a.md").write_text("alpha original wording\n", encoding="utf-8")
    sync_source(pool.get(), folder_source, CancelToken())
    assert hits(pool, folder_source.library_id, "original wording") == 1
    (folder / "a.md").unlink()
    (folder / "a.md").symlink_to(outside)
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == 1
    assert hits(pool, folder_source.library_id, SECRET) == 0
    assert hits(pool, folder_source.library_id, "original wording") == 0
    assert "link" in failures(pool, folder_source.library_id)["a.md"]


@posix_only
def test_folder_on_the_path_swapped_for_a_link_is_not_followed(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow, tmp_path: Path
) -> None:
    (folder / "sub").mkdir()
    (folder / "sub" / "c.md").write_text("charlie\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "c.md").write_text(f"{SECRET}\n", encoding="utf-8")

    def swap() -> None:
        (folder / "sub" / "c.md").unlink()
        (folder / "sub").rmdir()
        (folder / "sub").symlink_to(elsewhere)

    sync_source(
        pool.get(),
        folder_source,
        CancelToken(),
        swap_before_read("sub/c.md", swap),  # type: ignore[arg-type]
    )
    assert hits(pool, folder_source.library_id, SECRET) == 0
    assert "sub/c.md" in failures(pool, folder_source.library_id)


# -- item 2: FIFOs and devices ----------------------------------------------------------------
@posix_only
def test_file_swapped_for_a_fifo_does_not_hang_the_sync(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "a.md").write_text("alpha\n", encoding="utf-8")
    (folder / "b.md").write_text("bravo\n", encoding="utf-8")

    def swap() -> None:
        (folder / "a.md").unlink()
        os.mkfifo(folder / "a.md")

    started = time.monotonic()
    report = sync_source(
        pool.get(),
        folder_source,
        CancelToken(),
        swap_before_read("a.md", swap),  # type: ignore[arg-type]
    )
    assert time.monotonic() - started < 5
    assert (report.processed, report.failed) == (1, 1)
    assert "not a regular file" in failures(pool, folder_source.library_id)["a.md"]


@posix_only
def test_file_swapped_for_an_endless_device_is_refused(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "a.md").write_text("alpha\n", encoding="utf-8")

    def swap() -> None:
        (folder / "a.md").unlink()
        try:  # a real character device where the system allows it, else a link to one
            os.mknod(folder / "a.md", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
        except (PermissionError, AttributeError):
            (folder / "a.md").symlink_to("/dev/zero")

    tracemalloc.start()
    report = sync_source(
        pool.get(),
        folder_source,
        CancelToken(),
        swap_before_read("a.md", swap),  # type: ignore[arg-type]
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert report.failed == 1 and peak < 20 * 1024 * 1024


def test_a_file_that_grows_while_read_is_cut_at_the_limit(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 5000)
    with pytest.raises(ParseError, match="too large"):
        read_inside(tmp_path, "big.txt", limit=4096)
    assert read_inside(tmp_path, "big.txt", limit=5000) == b"x" * 5000
    with pytest.raises(ParseError, match="outside"):
        read_inside(tmp_path, "../big.txt")


# -- item 3: malformed Word documents ---------------------------------------------------------
def test_malformed_docx_fail_alone_and_the_sync_goes_on(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    bad = malformed_docx()
    for name, data in bad.items():
        (folder / f"{name}.docx").write_bytes(data)
    (folder / "zz-after.md").write_text("# After\n\nindexed after the bad ones\n", encoding="utf-8")
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == len(bad) and report.processed == 1
    assert set(failures(pool, folder_source.library_id)) == {f"{n}.docx" for n in bad}
    assert hits(pool, folder_source.library_id, "indexed after") == 1
    assert sources.describe(pool.get(), folder_source.library_id)[0].state == "ok"


# -- item 4: archive bombs --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (docx_bomb(200), "expands"),  # announced by the zip directory (300 MB of paragraphs)
        (docx_bomb(20), "expands more than"),  # under the member cap, over the ratio cap
    ],
)
def test_docx_bombs_are_refused_quickly_in_little_memory(data: bytes, reason: str) -> None:
    tracemalloc.start()
    started = time.process_time()  # processor time: a busy machine must not fail it
    with pytest.raises(ParseError, match=reason):
        parse(data, "bomb.docx")
    elapsed = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 5 and peak < 64 * 1024 * 1024, (elapsed, peak)


def test_a_zip_directory_that_lies_about_sizes_is_caught_while_reading() -> None:
    honest = with_member(make_docx([("p", "x")]), "word/document.xml", b"<a/>" * 400_000)
    # Rewrite the announced size of document.xml (local header and central directory) to 4.
    import zipfile
    from io import BytesIO

    info = zipfile.ZipFile(BytesIO(honest)).getinfo("word/document.xml")
    real = info.file_size.to_bytes(4, "little")
    lying = honest.replace(real, (4).to_bytes(4, "little"))
    assert lying != honest
    with pytest.raises(ParseError):
        parse(lying, "liar.docx")


def test_a_slow_document_ends_at_the_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "PARSE_SECONDS", 0.5)
    started = time.monotonic()
    with pytest.raises(ParseError, match="longer than"):
        parse(docx_bomb(1, varied=True), "slow.docx")
    assert time.monotonic() - started < 15  # loading the XML comes before the first check


# -- random bytes -------------------------------------------------------------------------------
def test_random_bytes_without_a_zero_byte_are_not_indexed_as_text() -> None:
    import random

    rng = random.Random(19)
    noise = bytes(rng.randrange(1, 128) for _ in range(20_000))
    with pytest.raises(ParseError, match="binary"):
        parse(noise, "noise.txt")
    assert parse("普通的中文文本。\nPlain text.\n".encode(), "ok.txt").sections
