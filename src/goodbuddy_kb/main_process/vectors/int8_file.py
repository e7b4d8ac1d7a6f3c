"""The int8 copy of a version's float32 vectors (``<version>.q8`` beside ``<version>.f32``).

Each row is scaled by its own largest magnitude to int8 (−127…127); its scale is kept as
float32. Rows are grouped in blocks of :data:`BLOCK_ROWS`, each block its scales then its codes
dimension-major ([dims, BLOCK_ROWS], the layout the first pass multiplies fastest), a block's
unused columns zero. A 4 KiB header names the format, the dimensions and how many rows the file
covers; it is written after the blocks it counts, so a crash leaves a header that counts only
finished rows.

The copy is derived entirely from the float32 file: a block is always recomputed from that
file's rows, so rewriting a partly filled block never changes the rows it already held, and a
torn write leaves them as they were. A reader uses the copy only when it covers at least the
version's committed row count (rows past the count are a tail it ignores, as for the float32
file); otherwise the copy is rebuilt whole (:func:`rebuild`, in the background from
:func:`rebuild_soon` while queries keep the exact scan) into a temporary file that replaces it
atomically. Versions built before the copy existed get theirs this way, at their first query.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.cancel import CancelToken

#: Rows per block (a multiple of 4,096, so every block starts on a memory page).
BLOCK_ROWS = 8_192
HEADER_BYTES = 4_096
SUFFIX = ".q8"
#: How a rebuild's temporary file's suffix starts (``<version>.q8.tmp-<pid>``).
TEMPORARY = "q8.tmp-"
_MAGIC = b"GBQ8"
_FORMAT = 1
_HEADER = struct.Struct("<4sIIIQ")  # magic, format, dims, block rows, rows covered
_rebuild_lock = threading.Lock()
_building: dict[Path, threading.Thread] = {}
_building_lock = threading.Lock()  # never held while a rebuild runs: queries only glance


def path_for(f32_path: Path) -> Path:
    return f32_path.with_suffix(SUFFIX)


def block_bytes(dims: int) -> int:
    return BLOCK_ROWS * (4 + dims)


def block_offset(dims: int, block: int) -> int:
    return HEADER_BYTES + block * block_bytes(dims)


def quantize(
    matrix: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    """Per-row scales and int8 codes of ``matrix`` (a zero row gets scale 1 and zero codes)."""
    peak = np.abs(matrix).max(axis=1)
    scales = np.where(peak > 0, peak / 127, 1.0).astype(np.float32)
    codes = np.rint(matrix / scales[:, None]).astype(np.int8)
    return scales, codes


def covered(path: Path, dims: int) -> int:
    """Rows the copy at ``path`` serves, or −1 when it is missing, foreign or shorter than its
    header claims."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEADER.size)
            size = os.fstat(fh.fileno()).st_size
    except OSError:
        return -1
    if len(head) < _HEADER.size:
        return -1
    magic, version, file_dims, block_rows, rows = _HEADER.unpack(head)
    if (magic, version, file_dims, block_rows) != (_MAGIC, _FORMAT, dims, BLOCK_ROWS):
        return -1
    blocks = -(-rows // BLOCK_ROWS)
    return int(rows) if size >= block_offset(dims, blocks) else -1


def _header(dims: int, rows: int) -> bytes:
    return _HEADER.pack(_MAGIC, _FORMAT, dims, BLOCK_ROWS, rows).ljust(HEADER_BYTES, b"\0")


def _block(rows: npt.NDArray[np.float32], dims: int) -> bytes:
    """One block's bytes: scales then [dims, BLOCK_ROWS] codes, unused columns zero."""
    scales, codes = quantize(rows)
    padded_scales = np.zeros(BLOCK_ROWS, dtype=np.float32)
    padded_scales[: len(rows)] = scales
    columns = np.zeros((dims, BLOCK_ROWS), dtype=np.int8)
    columns[:, : len(rows)] = codes.T
    return padded_scales.tobytes() + columns.tobytes()


def _write_blocks(fh: BinaryIO, f32_path: Path, dims: int, first: int, end: int) -> None:
    """(Re)write every block touching rows [first, end) from the float32 file's rows."""
    matrix = np.memmap(f32_path, dtype=np.float32, mode="r", shape=(end, dims))
    try:
        for block in range(first // BLOCK_ROWS, -(-end // BLOCK_ROWS)):
            lo, hi = block * BLOCK_ROWS, min(end, (block + 1) * BLOCK_ROWS)
            fh.seek(block_offset(dims, block))
            fh.write(_block(np.asarray(matrix[lo:hi]), dims))
    finally:
        del matrix


def extend(path: Path, f32_path: Path, dims: int, count: int, end: int) -> None:
    """After rows [count, end) were appended to the float32 file: bring the copy to ``end`` rows
    when it served the first ``count`` (a new version's empty copy is started here); leave a
    stale or missing copy to :func:`rebuild`."""
    if count == 0 and not path.exists():
        path.write_bytes(_header(dims, 0))
    if end <= count or covered(path, dims) < count:
        return  # nothing appended, or a copy only a rebuild can bring up to date
    with open(path, "r+b") as fh:
        _write_blocks(fh, f32_path, dims, count, end)
        fh.flush()
        os.fsync(fh.fileno())
        fh.seek(0)
        fh.write(_header(dims, end))
        fh.flush()
        os.fsync(fh.fileno())


def rebuild(path: Path, f32_path: Path, dims: int, rows: int, cancel: CancelToken) -> None:
    """Write the copy of the float32 file's first ``rows`` rows afresh and swap it in."""
    with _rebuild_lock:
        if covered(path, dims) >= rows:
            return  # another query rebuilt it meanwhile
        temporary = path.with_name(f"{path.stem}.{TEMPORARY}{os.getpid()}")
        try:
            with open(temporary, "wb") as fh:
                fh.write(_header(dims, 0))
                for first in range(0, rows, BLOCK_ROWS * 8):
                    cancel.check()
                    _write_blocks(fh, f32_path, dims, first, min(rows, first + BLOCK_ROWS * 8))
                fh.seek(0)
                fh.write(_header(dims, rows))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)


def rebuild_soon(path: Path, f32_path: Path, dims: int, rows: int) -> None:
    """Start :func:`rebuild` in a background thread unless one is already at it."""
    with _building_lock:
        running = _building.get(path)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(
            target=_rebuild_quietly,
            args=(path, f32_path, dims, rows),
            name="int8-copy",
            daemon=True,
        )
        _building[path] = thread
        thread.start()


def _rebuild_quietly(path: Path, f32_path: Path, dims: int, rows: int) -> None:
    # The version may go away or its file turn out short: queries then keep the exact scan.
    with contextlib.suppress(OSError, ValueError):
        rebuild(path, f32_path, dims, rows, CancelToken())


def wait_for_rebuilds() -> None:
    """Block until every background rebuild has finished (tests, benchmarks)."""
    with _building_lock:
        threads = list(_building.values())
        _building.clear()
    for thread in threads:
        thread.join()
