"""The paged exact scan returns exactly the top K of a brute-force numpy reference (the int8
first pass larger libraries take is tested in test_int8_scan.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.vectors import scanner
from goodbuddy_kb.main_process.vectors.scanner import scan


@pytest.fixture(autouse=True)
def exact_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanner, "EXACT_MAX_ROWS", 10**9)


def write(path: Path, n: int, dims: int = 384, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((n, dims), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    path.write_bytes(matrix.tobytes())
    return matrix


@pytest.mark.parametrize("n", [10_000, 100_000])
def test_exact_top_k_against_numpy(tmp_path: Path, n: int) -> None:
    matrix = write(tmp_path / "v.f32", n)
    rng = np.random.default_rng(1)
    for k in (1, 24, 200):
        q = rng.standard_normal(384).astype(np.float32)
        q /= np.linalg.norm(q)
        reference = np.argsort(-(matrix @ q), kind="stable")[:k]
        result = scan(tmp_path / "v.f32", n, 384, q, k, CancelToken())
        assert result.rows.tolist() == reference.tolist()
        assert result.scanned == n


def test_dead_rows_are_skipped_and_k_is_still_filled(tmp_path: Path) -> None:
    matrix = write(tmp_path / "v.f32", 5_000)
    q = matrix[42]
    first = scan(tmp_path / "v.f32", 5_000, 384, q, 10, CancelToken())
    dead = np.sort(first.rows[:5])
    second = scan(tmp_path / "v.f32", 5_000, 384, q, 10, CancelToken(), dead, page_rows=777)
    assert set(second.rows.tolist()).isdisjoint(dead.tolist())
    assert len(second.rows) == 10
    assert second.rows[:5].tolist() == first.rows[5:].tolist()


def test_ties_break_by_row_even_across_pages(tmp_path: Path) -> None:
    matrix = np.zeros((1000, 8), dtype=np.float32)
    matrix[:, 0] = 1.0
    (tmp_path / "t.f32").write_bytes(matrix.tobytes())
    q = np.array([1, 0, 0, 0, 0, 0, 0, 0], dtype=np.float32)
    result = scan(tmp_path / "t.f32", 1000, 8, q, 5, CancelToken(), page_rows=64)
    assert result.rows.tolist() == [0, 1, 2, 3, 4]


def test_only_the_counted_rows_are_read(tmp_path: Path) -> None:
    matrix = write(tmp_path / "v.f32", 100)
    with open(tmp_path / "v.f32", "ab") as fh:
        fh.write(b"\x00" * 100)  # a torn tail from a crash
    result = scan(tmp_path / "v.f32", 100, 384, matrix[3], 1, CancelToken())
    assert result.rows.tolist() == [3]


def test_cancel_between_pages(tmp_path: Path) -> None:
    write(tmp_path / "v.f32", 20_000)
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        scan(tmp_path / "v.f32", 20_000, 384, np.ones(384, dtype=np.float32), 5, token)


def test_wrong_query_dimensions_are_refused(tmp_path: Path) -> None:
    write(tmp_path / "v.f32", 10)
    with pytest.raises(ValueError, match="dimensions"):
        scan(tmp_path / "v.f32", 10, 384, np.ones(128, dtype=np.float32), 5, CancelToken())
