"""The int8 copy's full blocks packed once into ONNX Runtime, for a first pass at memory speed.

A ``MatMulInteger`` whose block is an input repacks that block into its kernel's layout at every
product: at a million rows the first pass spent ~70 ms per query doing so, five times what the
products cost. Given the blocks as constants, ONNX Runtime packs them once, when the session is
made, and a query is then one run over the packed blocks (~25 ms at a million rows).

A packed copy holds the copy's *full* blocks, which never change once full (an append rewrites
only the last, partly filled block; a rebuild derives the same codes from the same float32
rows, and is told apart by its new inode anyway). So a copy packed before an append still serves
its prefix exactly, and the scanner streams the rows after it from the file. It is packed in a
background thread, first when a large version is scanned and again when the copy has grown by
an eighth; queries stream the whole file until it is ready.

Memory: the packed blocks live in the backend (a million 384-dimension rows: ~385 MB, within its
700 MB budget) and each group of blocks is read, packed and freed before the next. Packed copies together
stay under :data:`PACKED_MAX_BYTES`; a version that would not fit is streamed as before (memory
flat at any size). A removed version's packed copy is dropped with its files.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.vectors import int8_file, int8_kernel

#: Most bytes of int8 codes packed at once, over every version.
PACKED_MAX_BYTES = 512 * 2**20
#: Fewest full blocks worth packing (below, streaming them costs a few milliseconds).
MIN_BLOCKS = 4
#: Blocks per session: each group's file pages are dropped before the next is packed, so
#: packing never holds much more than the packed blocks themselves.
GROUP_BLOCKS = 16


@dataclass
class Packed:
    inode: int
    dims: int
    blocks: int
    sessions: list[Any]
    scales: npt.NDArray[np.float32]

    @property
    def rows(self) -> int:
        return self.blocks * int8_file.BLOCK_ROWS

    @property
    def nbytes(self) -> int:
        return self.rows * self.dims

    def scores(self, codes_q: npt.NDArray[np.uint8], scale_q: float) -> npt.NDArray[np.float32]:
        """Approximate scores of the packed rows (the same as the streamed pass's, bit for bit:
        the integer products are exact and scaled alike)."""
        dots = [int8_kernel.packed_dots(session, codes_q) for session in self.sessions]
        whole = np.concatenate(dots) if len(dots) > 1 else dots[0]
        scores: npt.NDArray[np.float32] = np.multiply(
            whole, self.scales * np.float32(scale_q), dtype=np.float32
        )
        return scores


_packed: dict[Path, Packed] = {}
_packing: dict[Path, threading.Thread] = {}
_lock = threading.Lock()
#: Set while the backend stops: packing ends after its current group and none starts.
_stopping = threading.Event()


def serving(path: Path, dims: int, row_count: int) -> Packed | None:
    """The packed copy of the int8 copy at ``path`` (a prefix of its rows), or None; starts
    packing in the background when none serves or the copy has grown by an eighth since."""
    try:
        inode = os.stat(path).st_ino
    except OSError:
        return None
    full = row_count // int8_file.BLOCK_ROWS
    with _lock:
        packed = _packed.get(path)
        if packed is not None and (packed.inode != inode or packed.dims != dims):
            del _packed[path]
            packed = None
        grown = packed is None or full - packed.blocks >= max(1, packed.blocks // 8)
        wanted = (
            full >= MIN_BLOCKS
            and grown
            and not _stopping.is_set()
            and _fits(path, full * int8_file.BLOCK_ROWS * dims)
        )
        running = _packing.get(path)
        if wanted and (running is None or not running.is_alive()):
            if packed is not None and not _fits(
                path, packed.nbytes + full * int8_file.BLOCK_ROWS * dims
            ):
                # never the old and the new copy of one version together over the budget: the
                # rows are streamed (this query still has the old one) until the new is ready
                del _packed[path]
            thread = threading.Thread(
                target=_pack_quietly, args=(path, dims, full, inode), name="int8-pack", daemon=True
            )
            _packing[path] = thread
            thread.start()
    return packed


def _fits(path: Path, nbytes: int) -> bool:
    others = sum(p.nbytes for key, p in _packed.items() if key != path)
    return others + nbytes <= PACKED_MAX_BYTES


def _pack_quietly(path: Path, dims: int, blocks: int, inode: int) -> None:
    # The version may go away or its copy be replaced meanwhile, or ONNX Runtime refuse the
    # graph (its errors are plain Exceptions): packing only ever speeds queries up, so any
    # failure leaves them streaming the copy, as before it was packed.
    with contextlib.suppress(Exception):
        packed = pack(path, dims, blocks, inode)
        if packed is not None:
            with _lock:
                current = _packed.get(path)
                if (current is None or current.blocks < packed.blocks) and _fits(
                    path, packed.nbytes
                ):
                    _packed[path] = packed


def pack(path: Path, dims: int, blocks: int, inode: int) -> Packed | None:
    """Pack the first ``blocks`` full blocks of the copy at ``path`` (None when the file is no
    longer that copy or holds fewer rows). The blocks are read, not mapped: a copy damaged
    while it is packed (a crash, a full disk) gives a short read here, never a fault."""
    block_rows = int8_file.BLOCK_ROWS
    scales = np.empty(blocks * block_rows, dtype=np.float32)
    sessions: list[Any] = []
    fd = os.open(path, os.O_RDONLY)
    try:
        if os.fstat(fd).st_ino != inode or int8_file.covered(path, dims) < blocks * block_rows:
            return None
        for first in range(0, blocks, GROUP_BLOCKS):
            if _stopping.is_set():
                return None
            count = min(GROUP_BLOCKS, blocks - first)
            size = int8_file.block_bytes(dims)
            data = os.pread(fd, count * size, int8_file.block_offset(dims, first))
            if len(data) < count * size:
                return None
            group = np.frombuffer(data, np.uint8).reshape(count, size)
            views = []
            for i in range(count):
                row = (first + i) * block_rows
                scales[row : row + block_rows] = group[i, : block_rows * 4].view(np.float32)
                views.append(group[i, block_rows * 4 :].view(np.int8).reshape(dims, block_rows))
            # ONNX Runtime packs the constants into its own buffers while the session is made
            # and drops the originals (int8_kernel.packed_session): this group's read is freed
            # before the next one is read
            sessions.append(int8_kernel.packed_session(dims, views))
            del views, group, data
            _release_freed()
    finally:
        os.close(fd)
    return Packed(inode, dims, blocks, sessions, scales)


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def _release_freed() -> None:
    """Hand the C heap's free memory back to the system: packing a group leaves its temporary
    buffers freed but held by glibc (measured: 551 MB resident for 366 MB of packed codes at a
    million rows without this, 374 MB with it). Nothing to do where the C library is not glibc."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def packed_rows(path: Path) -> int:
    """Rows of the int8 copy at ``path`` served packed (0 when none are)."""
    with _lock:
        packed = _packed.get(path)
    return packed.rows if packed is not None else 0


def forget(path: Path) -> None:
    """Drop the packed copy of the int8 copy at ``path`` (its version is removed)."""
    with _lock:
        _packed.pop(path, None)


def wait() -> None:
    """Block until every background packing has finished (tests, benchmarks)."""
    with _lock:
        threads = list(_packing.values())
    for thread in threads:
        thread.join()


def stop() -> None:
    """End packing (after the group under way, within ~0.2 s) and wait for it: the backend's
    shutdown, so that no session is being made while the process exits."""
    _stopping.set()
    try:
        wait()
    finally:
        _stopping.clear()  # (a test process goes on with other backends' services)


def clear() -> None:
    """Drop every packed copy (tests)."""
    wait()
    with _lock:
        _packed.clear()
        _packing.clear()
