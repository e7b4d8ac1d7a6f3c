"""The int8 first pass with exact rescoring (issue 34): the same top K as the exact float32 scan,
its copy kept by appends, torn copies ignored and rebuilt, dead rows excluded, small libraries
scanned exactly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.vectors import int8_file, int8_packed, scanner, store

DIMS = 384
ROWS = 6_000


@pytest.fixture(autouse=True)
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 1,024 rows and the int8 pass above 1,000 rows, so a few thousand rows span
    several blocks (a partial last one included) and take the int8 pass."""
    monkeypatch.setattr(int8_file, "BLOCK_ROWS", 1_024)
    monkeypatch.setattr(scanner, "EXACT_MAX_ROWS", 1_000)


def vectors(n: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((n, DIMS), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def version_with(
    pool: ConnectionPool, data_dir: Path, matrix: np.ndarray, batches: list[int]
) -> tuple[store.Version, Path]:
    """A version whose rows were appended in ``batches`` (uneven, so blocks are refilled)."""
    conn = pool.get()
    library_id = libraries.create(conn, "S").id
    version = store.create(conn, data_dir, library_id, "fp", "label", DIMS)
    first = 0
    for size in batches:
        items = [(first + i + 1, "h") for i in range(size)]
        store.append(
            conn, data_dir, store.get(conn, version.id), items, matrix[first : first + size]
        )
        first += size
    return store.get(conn, version.id), store.path_of(data_dir, version.id)


def grow(conn: sqlite3.Connection, data_dir: Path, version_id: str, more: np.ndarray) -> int:
    """Appends ``more`` to the version after its ``ROWS`` rows; returns the rows it now has."""
    items = [(ROWS + i + 1, "h") for i in range(len(more))]
    store.append(conn, data_dir, store.get(conn, version_id), items, more)
    return ROWS + len(more)


def exact_top(matrix: np.ndarray, q: np.ndarray, k: int, dead: tuple[int, ...] = ()) -> list[int]:
    scores = matrix @ q
    scores[list(dead)] = -np.inf
    return np.argsort(-scores, kind="stable")[:k].tolist()


def no_rebuild(*args: object) -> None:
    raise AssertionError("the int8 copy was rebuilt")


def test_appends_keep_the_int8_copy_and_the_top_k_is_the_exact_scans(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    matrix = vectors(ROWS, 0)
    _, path = version_with(pool, data_dir, matrix, [0, 1_000, 37, 0, 2_000, 2_963])
    assert int8_file.covered(int8_file.path_for(path), DIMS) == ROWS
    monkeypatch.setattr(int8_file, "rebuild_soon", no_rebuild)  # the appends' copy serves as is
    queries = vectors(20, 1)
    queries[:10] = matrix[[5, 1_024, 1_037, 3_036, 3_037, 4_095, 4_096, 5_119, 5_120, 5_999]]
    for q in queries:
        for k in (10, 50):
            result = scanner.scan(path, ROWS, DIMS, q, k, CancelToken())
            assert result.rows.tolist() == exact_top(matrix, q, k)
            assert np.allclose(result.scores, (matrix @ q)[result.rows], atol=1e-6)  # exact
            assert result.scored == ROWS


def test_the_first_pass_background_is_the_libraries(pool: ConnectionPool, data_dir: Path) -> None:
    matrix = vectors(ROWS, 2)
    _, path = version_with(pool, data_dir, matrix, [ROWS])
    q = vectors(1, 3)[0]
    result = scanner.scan(path, ROWS, DIMS, q, 10, CancelToken())
    scores = matrix @ q
    assert result.score_sum / ROWS == pytest.approx(scores.mean(), abs=2e-4)
    assert (result.score_sq_sum / ROWS) ** 0.5 == pytest.approx(
        float(np.sqrt(np.mean(scores**2))), rel=1e-2
    )


def test_dead_rows_stay_out_of_both_passes(pool: ConnectionPool, data_dir: Path) -> None:
    matrix = vectors(ROWS, 4)
    _, path = version_with(pool, data_dir, matrix, [ROWS])
    q = matrix[2_500]
    dead = sorted(exact_top(matrix, q, 5))
    result = scanner.scan(path, ROWS, DIMS, q, 10, CancelToken(), np.array(dead, dtype=np.int64))
    assert result.rows.tolist() == exact_top(matrix, q, 10, tuple(dead))
    assert result.scored == ROWS - 5


def test_a_torn_or_missing_copy_is_ignored_and_rebuilt(
    pool: ConnectionPool, data_dir: Path
) -> None:
    matrix = vectors(ROWS, 5)
    _, path = version_with(pool, data_dir, matrix, [ROWS])
    copy = int8_file.path_for(path)
    q = vectors(1, 6)[0]
    for damage in ("truncate", "delete", "garbage header"):
        if damage == "truncate":  # a crash while the copy was being written
            with open(copy, "r+b") as fh:
                fh.truncate(copy.stat().st_size - 5_000)
        elif damage == "delete":
            copy.unlink()
        else:
            copy.write_bytes(b"\xff" * 8_192)
        assert int8_file.covered(copy, DIMS) == -1
        result = scanner.scan(path, ROWS, DIMS, q, 10, CancelToken())  # exact meanwhile
        assert result.rows.tolist() == exact_top(matrix, q, 10)
        int8_file.wait_for_rebuilds()
        assert int8_file.covered(copy, DIMS) == ROWS  # rebuilt for the next queries
        result = scanner.scan(path, ROWS, DIMS, q, 10, CancelToken())
        assert result.rows.tolist() == exact_top(matrix, q, 10)


def test_a_tail_past_the_row_count_is_ignored_then_replaced(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after both files were written but before SQLite counted the rows: readers keep
    the committed count, and the next append truncates and rewrites the tail in both."""
    matrix = vectors(ROWS, 7)
    version, path = version_with(pool, data_dir, matrix, [ROWS])
    q = vectors(1, 8)[0]
    tail = np.tile(q, (300, 1)).astype(np.float32)  # rows that would win every query
    with open(path, "ab") as fh:
        fh.write(tail.tobytes())
    int8_file.extend(int8_file.path_for(path), path, DIMS, ROWS, ROWS + 300)
    result = scanner.scan(path, ROWS, DIMS, q, 10, CancelToken())
    assert result.rows.tolist() == exact_top(matrix, q, 10)
    more = vectors(500, 9)
    conn = pool.get()
    grow(conn, data_dir, version.id, more)
    whole = np.concatenate([matrix, more])
    monkeypatch.setattr(int8_file, "rebuild_soon", no_rebuild)
    for query in (q, more[250], whole[ROWS - 1]):
        result = scanner.scan(path, len(whole), DIMS, query, 10, CancelToken())
        assert result.rows.tolist() == exact_top(whole, query, 10)


def test_small_libraries_are_scanned_exactly_without_a_copy(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    matrix = vectors(900, 10)
    _, path = version_with(pool, data_dir, matrix, [900])
    int8_file.path_for(path).unlink()
    monkeypatch.setattr(int8_file, "rebuild_soon", no_rebuild)
    q = vectors(1, 11)[0]
    result = scanner.scan(path, 900, DIMS, q, 10, CancelToken())
    assert result.rows.tolist() == exact_top(matrix, q, 10)
    assert result.scores.tolist() == pytest.approx((matrix @ q)[result.rows].tolist(), abs=1e-6)
    assert not int8_file.path_for(path).exists()


def test_the_copy_goes_where_the_version_goes(pool: ConnectionPool, data_dir: Path) -> None:
    conn = pool.get()
    matrix = vectors(2_000, 12)
    version, path = version_with(pool, data_dir, matrix, [2_000])
    copy = int8_file.path_for(path)
    stray = copy.with_name(f"{path.stem}.{int8_file.TEMPORARY}999")
    stray.write_bytes(b"half a rebuild")
    assert copy.exists()
    # a rebuild beside a current version, cut short by a crash
    beside = store.create(conn, data_dir, version.library_id, "fp", "l", DIMS)
    store.promote(conn, data_dir, beside)
    assert store.recover_interrupted(conn, data_dir) == 1  # the building version failed
    assert not path.exists() and not copy.exists() and not stray.exists()


def test_a_first_version_a_crash_cut_short_serves_what_it_committed(
    pool: ConnectionPool, data_dir: Path
) -> None:
    """A library's first version (searched while it filled) is kept by the crash recovery: its
    committed rows serve, the torn tail the crash left in its file is cut, its copy stays."""
    conn = pool.get()
    matrix = vectors(2_000, 13)
    version, path = version_with(pool, data_dir, matrix, [1_200, 800])
    with open(path, "ab") as fh:
        fh.write(b"\x01" * (DIMS * 4 * 3 + 5))  # an append the crash cut before its commit
    assert store.recover_interrupted(conn, data_dir) == 1
    kept = store.current(conn, version.library_id)
    assert kept is not None and kept.id == version.id and kept.row_count == 2_000
    assert path.stat().st_size == 2_000 * DIMS * 4 and int8_file.path_for(path).exists()
    q = vectors(1, 14)[0]
    result = scanner.scan(path, kept.row_count, DIMS, q, 10, CancelToken())
    assert result.rows.tolist() == exact_top(matrix, q, 10)


def streamed(monkeypatch: pytest.MonkeyPatch, path: Path, rows: int, q: np.ndarray, k: int):
    """The scan with no packed copy (every block streamed from the file)."""
    with monkeypatch.context() as m:
        m.setattr(int8_packed, "serving", lambda *args: None)
        return scanner.scan(path, rows, DIMS, q, k, CancelToken())


def test_a_packed_copy_gives_the_streamed_scores_and_a_grown_copy_streams_its_tail(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first large scan packs the copy's full blocks in the background; from then on a
    scan runs the packed prefix and streams the rest, with the streamed pass's result and
    the exact scan's top K. After an append the old packed prefix still serves (full blocks
    never change) while the grown copy is packed again."""
    conn = pool.get()
    matrix = vectors(ROWS + 2_500, 20)
    version, path = version_with(pool, data_dir, matrix[:ROWS], [ROWS])
    copy = int8_file.path_for(path)
    queries = vectors(8, 21)
    queries[:3] = matrix[[7, 4_100, 5_990]]
    scanner.scan(path, ROWS, DIMS, queries[3], 10, CancelToken())
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 5 * 1_024  # the full blocks; the sixth is partial
    for q in queries:
        packed = scanner.scan(path, ROWS, DIMS, q, 30, CancelToken())
        assert packed.rows.tolist() == exact_top(matrix[:ROWS], q, 30)
        alone = streamed(monkeypatch, path, ROWS, q, 30)
        assert packed.rows.tolist() == alone.rows.tolist()
        assert packed.scores.tolist() == alone.scores.tolist()  # rescored exactly, alike
        assert packed.scored == alone.scored == ROWS
        # the background sums every approximate score: the same scores, summed in other groups
        assert packed.score_sum == pytest.approx(alone.score_sum, rel=1e-5, abs=1e-5)
        assert packed.score_sq_sum == pytest.approx(alone.score_sq_sum, rel=1e-5)
    grown = grow(conn, data_dir, version.id, matrix[ROWS:])
    monkeypatch.setattr(int8_packed, "PACKED_MAX_BYTES", 0)  # no new packing: the old prefix
    for q in queries:
        result = scanner.scan(path, grown, DIMS, q, 30, CancelToken())
        assert result.rows.tolist() == exact_top(matrix, q, 30)
    assert int8_packed.packed_rows(copy) == 5 * 1_024
    monkeypatch.undo()
    monkeypatch.setattr(int8_file, "BLOCK_ROWS", 1_024)
    monkeypatch.setattr(scanner, "EXACT_MAX_ROWS", 1_000)
    scanner.scan(path, grown, DIMS, queries[0], 10, CancelToken())
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 8 * 1_024
    for q in queries:
        assert scanner.scan(path, grown, DIMS, q, 30, CancelToken()).rows.tolist() == exact_top(
            matrix, q, 30
        )


def test_packing_stays_within_its_memory_budget_and_goes_with_the_version(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = pool.get()
    matrix = vectors(ROWS, 22)
    version, path = version_with(pool, data_dir, matrix, [ROWS])
    copy = int8_file.path_for(path)
    monkeypatch.setattr(int8_packed, "PACKED_MAX_BYTES", 4 * 1_024 * DIMS)  # 4 of 5 blocks
    q = matrix[11]
    assert scanner.scan(path, ROWS, DIMS, q, 10, CancelToken()).rows.tolist() == exact_top(
        matrix, q, 10
    )
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 0  # over budget: streamed, as before packing
    monkeypatch.setattr(int8_packed, "PACKED_MAX_BYTES", 512 * 2**20)
    scanner.scan(path, ROWS, DIMS, q, 10, CancelToken())
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 5 * 1_024
    store.discard(conn, data_dir, version.id)
    assert int8_packed.packed_rows(copy) == 0 and not copy.exists()


def test_stopping_ends_packing_and_starts_none(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backend's shutdown waits for packing, which ends at its next group: no session is
    being made while the process exits; queries meanwhile stream, with the same result."""
    matrix = vectors(ROWS, 23)
    _, path = version_with(pool, data_dir, matrix, [ROWS])
    copy = int8_file.path_for(path)
    monkeypatch.setattr(int8_packed, "GROUP_BLOCKS", 1)
    int8_packed._stopping.set()
    try:
        q = matrix[3]
        assert scanner.scan(path, ROWS, DIMS, q, 10, CancelToken()).rows.tolist() == exact_top(
            matrix, q, 10
        )
        int8_packed.wait()
        assert int8_packed.packed_rows(copy) == 0  # none started while stopping
        assert int8_packed.pack(copy, DIMS, 5, copy.stat().st_ino) is None  # ends at a group
    finally:
        int8_packed._stopping.clear()
    int8_packed.stop()  # nothing running: returns at once, and packing is possible again
    scanner.scan(path, ROWS, DIMS, matrix[3], 10, CancelToken())
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 5 * 1_024


def test_a_repack_never_holds_two_copies_of_a_version_over_the_budget(
    pool: ConnectionPool, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = pool.get()
    matrix = vectors(ROWS + 2_500, 24)
    version, path = version_with(pool, data_dir, matrix[:ROWS], [ROWS])
    copy = int8_file.path_for(path)
    monkeypatch.setattr(int8_packed, "PACKED_MAX_BYTES", 8 * 1_024 * DIMS)  # the grown copy alone
    scanner.scan(path, ROWS, DIMS, matrix[0], 10, CancelToken())
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 5 * 1_024
    grown = grow(conn, data_dir, version.id, matrix[ROWS:])
    monkeypatch.setattr(int8_packed, "_pack_quietly", lambda *args: None)  # see it mid-repack
    q = matrix[6_100]
    assert scanner.scan(path, grown, DIMS, q, 10, CancelToken()).rows.tolist() == exact_top(
        matrix, q, 10
    )
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 0  # the old copy went before the new was made
    monkeypatch.undo()
    monkeypatch.setattr(int8_file, "BLOCK_ROWS", 1_024)
    monkeypatch.setattr(scanner, "EXACT_MAX_ROWS", 1_000)
    monkeypatch.setattr(int8_packed, "PACKED_MAX_BYTES", 8 * 1_024 * DIMS)
    scanner.scan(path, grown, DIMS, q, 10, CancelToken())
    int8_packed.wait()
    assert int8_packed.packed_rows(copy) == 8 * 1_024
