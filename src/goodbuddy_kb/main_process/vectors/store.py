"""Vector index versions: one float32 file per version plus its row map in SQLite.

A version is ``building`` until every enabled retrievable chunk of its library has a vector of
the right dimensions and checksum; then one transaction makes it the library's current
version and supersedes the old one. A failed or cancelled build never touches the current one.
A library's first version (no current one to keep serving) is searched while it fills.
Rows are appended (file first, then the row count in SQLite), so a crash mid-append leaves a
tail that readers ignore and the next append truncates. Each append also extends the version's
int8 copy (:mod:`.int8_file`, the scanner's first pass), which goes wherever the float32 file goes.

A changed or deleted chunk leaves its old row behind, dead (``alive = 0``): every query still
reads it and skips it. Once dead rows make up ``COMPACT_SHARE`` of a version (and at least
``COMPACT_MIN_DEAD``), :func:`compact` copies its live rows into a new version and swaps it in
the way a rebuild does (validated, in one transaction; a chunk changed meanwhile keeps the old
version serving and leaves the compaction to the next vectorisation).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from goodbuddy_kb.main_process.embeddings.base import Matrix
from goodbuddy_kb.main_process.ids import new_id, now_iso
from goodbuddy_kb.main_process.storage import reserve
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import int8_file, int8_packed

VECTOR_DIR = "vectors"
#: A version is compacted once this share of its rows is dead ...
COMPACT_SHARE = 0.25
#: ... and at least this many (a small library's few dead rows cost nothing).
COMPACT_MIN_DEAD = 64
#: Rows copied per append while compacting.
COMPACT_BATCH = 4096


@dataclass(frozen=True)
class Version:
    id: str
    library_id: str
    fingerprint: str
    label: str
    dims: int
    state: str
    row_count: int
    error: str | None


def _version(row: sqlite3.Row) -> Version:
    return Version(
        row["id"],
        row["library_id"],
        row["fingerprint"],
        row["label"],
        row["dims"],
        row["state"],
        row["row_count"],
        row["error"],
    )


def path_of(data_dir: Path, version_id: str) -> Path:
    return data_dir / VECTOR_DIR / f"{version_id}.f32"


def current(conn: sqlite3.Connection, library_id: str) -> Version | None:
    row = conn.execute(
        "SELECT v.* FROM vector_versions v JOIN libraries l ON l.current_vector_version = v.id"
        " WHERE l.id = ? AND v.state = 'ready'",
        (library_id,),
    ).fetchone()
    return _version(row) if row else None


def cut_off_rebuild(conn: sqlite3.Connection, library_id: str) -> Version | None:
    """The new version the library's latest vectorisation was building beside the current one
    when it ended unfinished (its files gone: the closing or the crash recovery failed it), if
    that is the library's latest version: a rebuild a person asked for, for the model it names."""
    row = conn.execute(
        "SELECT v.* FROM vector_versions v JOIN libraries l ON l.id = v.library_id"
        " WHERE v.library_id = ?1 AND v.state = 'failed' AND l.current_vector_version IS NOT NULL"
        " AND v.created_at >= (SELECT max(t.created_at) FROM tasks t WHERE t.library_id = ?1"
        " AND t.kind = 'vectorize')"
        " AND v.created_at = (SELECT max(u.created_at) FROM vector_versions u"
        " WHERE u.library_id = ?1)",
        (library_id,),
    ).fetchone()
    return _version(row) if row else None


def serving(conn: sqlite3.Connection, library_id: str) -> Version | None:
    """The version searches read: the current one, else — for a library that has never had
    one — its first version while it fills. Its rows are readable as they are appended (file
    first, then the row count), so semantic search starts with the first batch. A rebuild
    beside a current version never serves: the current one does until the swap."""
    found = current(conn, library_id)
    if found is not None:
        return found
    row = conn.execute(
        "SELECT v.* FROM vector_versions v JOIN libraries l ON l.id = v.library_id"
        " WHERE l.id = ? AND l.current_vector_version IS NULL AND v.state = 'building'"
        " ORDER BY v.created_at DESC LIMIT 1",
        (library_id,),
    ).fetchone()
    return _version(row) if row else None


def get(conn: sqlite3.Connection, version_id: str) -> Version:
    return _version(
        conn.execute("SELECT * FROM vector_versions WHERE id = ?", (version_id,)).fetchone()
    )


def last_failure(conn: sqlite3.Connection, library_id: str) -> str | None:
    row = conn.execute(
        "SELECT error FROM vector_versions WHERE library_id = ? AND state = 'failed'"
        " ORDER BY created_at DESC LIMIT 1",
        (library_id,),
    ).fetchone()
    return row[0] if row else None


def create(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_id: str,
    fingerprint: str,
    label: str,
    dims: int,
) -> Version:
    version_id = new_id()
    (data_dir / VECTOR_DIR).mkdir(exist_ok=True)
    path_of(data_dir, version_id).write_bytes(b"")
    with transaction(conn):
        conn.execute(
            "INSERT INTO vector_versions (id, library_id, fingerprint, label, dims, state, created_at)"
            " VALUES (?, ?, ?, ?, ?, 'building', ?)",
            (version_id, library_id, fingerprint, label, dims, now_iso()),
        )
    return get(conn, version_id)


def append(
    conn: sqlite3.Connection,
    data_dir: Path,
    version: Version,
    items: list[tuple[int, str]],
    matrix: Matrix,
) -> None:
    """Add vectors for ``items`` = [(chunk seq, checksum)] in the order of ``matrix`` rows."""
    if matrix.shape != (len(items), version.dims):
        raise ValueError(f"expected {len(items)}×{version.dims} vectors, got {matrix.shape}")
    with transaction(conn):
        append_in_transaction(conn, data_dir, version, items, matrix)


def append_in_transaction(
    conn: sqlite3.Connection,
    data_dir: Path,
    version: Version,
    items: list[tuple[int, str]],
    matrix: Matrix,
) -> None:
    """:func:`append` inside the caller's open transaction, so the vectors become visible with
    whatever else it changes (a rebuilt document's chunks). Until the commit readers keep the
    old row count and ignore the file's new tail; a rollback or a crash leaves only that tail,
    which the next append truncates."""
    if matrix.shape != (len(items), version.dims):
        raise ValueError(f"expected {len(items)}×{version.dims} vectors, got {matrix.shape}")
    reserve.check_room(data_dir)  # the disk's last room is for recording failures
    path = path_of(data_dir, version.id)
    row_bytes = version.dims * 4
    (count,) = conn.execute(
        "SELECT row_count FROM vector_versions WHERE id = ?", (version.id,)
    ).fetchone()
    with open(path, "r+b") as fh:
        fh.truncate(count * row_bytes)  # drop a tail a crash may have left
        fh.seek(count * row_bytes)
        fh.write(np.ascontiguousarray(matrix, dtype=np.float32).tobytes())
        fh.flush()
        os.fsync(fh.fileno())
    _extend_int8(path, version.dims, count, count + len(items))
    conn.executemany(
        "UPDATE vector_rows SET alive = 0 WHERE version_id = ? AND chunk_seq = ? AND alive = 1",
        [(version.id, seq) for seq, _ in items],
    )
    conn.executemany(
        "INSERT INTO vector_rows (version_id, row, chunk_seq, checksum) VALUES (?, ?, ?, ?)",
        [(version.id, count + i, seq, checksum) for i, (seq, checksum) in enumerate(items)],
    )
    # Chunks deleted or changed since they were read for embedding (a sync or rebuild runs
    # beside vectorisation) get dead rows at once, as the triggers would have made them.
    conn.execute(
        "UPDATE vector_rows SET alive = 0 WHERE version_id = ? AND row >= ? AND NOT EXISTS ("
        " SELECT 1 FROM chunks c WHERE c.seq = vector_rows.chunk_seq"
        " AND c.checksum = vector_rows.checksum AND c.enabled = 1)",
        (version.id, count),
    )
    conn.execute(
        "UPDATE vector_versions SET row_count = ? WHERE id = ?",
        (count + len(items), version.id),
    )


def _extend_int8(path: Path, dims: int, count: int, end: int) -> None:
    """Bring the int8 copy along; one that cannot be written is removed, and the scanner
    rebuilds it when it needs it."""
    copy = int8_file.path_for(path)
    try:
        int8_file.extend(copy, path, dims, count, end)
    except OSError:
        copy.unlink(missing_ok=True)


def _remove_files(data_dir: Path, version_id: str) -> None:
    path = path_of(data_dir, version_id)
    path.unlink(missing_ok=True)
    int8_packed.forget(int8_file.path_for(path))
    int8_file.path_for(path).unlink(missing_ok=True)


def version_ids(conn: sqlite3.Connection, library_id: str) -> list[str]:
    """Every vector version of the library, whatever its state."""
    rows = conn.execute("SELECT id FROM vector_versions WHERE library_id = ?", (library_id,))
    return [r[0] for r in rows]


def remove_files(data_dir: Path, version_ids_: list[str]) -> None:
    """Remove the files of versions whose rows are gone (a deleted library's); a file still
    open elsewhere (Windows) stays for the start-up's clean-up."""
    for version_id in version_ids_:
        with contextlib.suppress(OSError):
            _remove_files(data_dir, version_id)


def missing(
    conn: sqlite3.Connection,
    library_id: str,
    version_id: str | None,
    limit: int | None = None,
    with_text: bool = True,
) -> list[sqlite3.Row]:
    """Enabled retrievable chunks of the library without a live vector in ``version_id``
    (seq, id, document_id, checksum and, unless ``with_text`` is false, index_text)."""
    text = ", c.index_text" if with_text else ""
    sql = (
        f"SELECT c.seq, c.id, c.document_id, c.checksum{text} FROM chunks c"
        " WHERE c.library_id = ? AND c.enabled = 1 AND c.role != 'parent' AND NOT EXISTS ("
        " SELECT 1 FROM vector_rows v WHERE v.version_id = ? AND v.chunk_seq = c.seq AND v.alive = 1"
        " AND v.checksum = c.checksum) ORDER BY c.seq"
    )
    args: tuple[object, ...] = (library_id, version_id or "")
    if limit is not None:
        sql += " LIMIT ?"
        args += (limit,)
    return conn.execute(sql, args).fetchall()


def chunk_texts(conn: sqlite3.Connection, seqs: list[int]) -> list[sqlite3.Row]:
    """seq, document_id, checksum and index_text of the chunks ``seqs`` that are still enabled
    and retrievable, read together so a vector is stored with the checksum of its text."""
    if not seqs:
        return []
    marks = ",".join("?" for _ in seqs)
    return conn.execute(
        f"SELECT seq, document_id, checksum, index_text FROM chunks WHERE seq IN ({marks})"
        " AND enabled = 1 AND role != 'parent' ORDER BY seq",
        seqs,
    ).fetchall()


#: Passages read to tell a library's languages (evenly spaced: a few milliseconds at any size).
LANGUAGE_SAMPLE = 1_000


def sample_texts(conn: sqlite3.Connection, library_id: str, chunks: int) -> list[str]:
    """Up to ``LANGUAGE_SAMPLE`` retrievable chunks' texts of the library, evenly spaced."""
    step = max(1, chunks // LANGUAGE_SAMPLE)
    return [
        text
        for (text,) in conn.execute(
            "SELECT content FROM chunks WHERE library_id = ? AND enabled = 1"
            " AND role != 'parent' AND seq % ? = 0 LIMIT ?",
            (library_id, step, LANGUAGE_SAMPLE),
        )
    ]


def count_missing(conn: sqlite3.Connection, library_id: str, version_id: str | None) -> int:
    (n,) = conn.execute(
        "SELECT count(*) FROM chunks c WHERE c.library_id = ? AND c.enabled = 1 AND c.role != 'parent'"
        " AND NOT EXISTS (SELECT 1 FROM vector_rows v WHERE v.version_id = ? AND v.chunk_seq = c.seq"
        " AND v.alive = 1 AND v.checksum = c.checksum)",
        (library_id, version_id or ""),
    ).fetchone()
    return int(n)


def gap_count(conn: sqlite3.Connection, library_id: str, version_id: str) -> int:
    """Retrievable chunks without a live vector, counted cheaply for every query: a chunk has
    at most one live row per version (appends retire older rows) and a changed checksum kills
    the row (trigger), so retrievable − live is exact."""
    chunks, alive = chunk_counts(conn, library_id, version_id)
    return max(0, chunks - alive)


def chunk_counts(conn: sqlite3.Connection, library_id: str, version_id: str) -> tuple[int, int]:
    """(retrievable chunks of the library, live vector rows of ``version_id``)."""
    (chunks,) = conn.execute(
        "SELECT count(*) FROM chunks WHERE library_id = ? AND enabled = 1 AND role != 'parent'",
        (library_id,),
    ).fetchone()
    (alive,) = conn.execute(
        "SELECT count(*) FROM vector_rows WHERE version_id = ? AND alive = 1", (version_id,)
    ).fetchone()
    return int(chunks), int(alive)


def promote(
    conn: sqlite3.Connection, data_dir: Path, version: Version, allow_gaps: bool = False
) -> None:
    """Validate a building version and make it current, atomically; raise if incomplete —
    unless ``allow_gaps``: a library's first version, which serves while it fills anyway, is
    made current with the chunks an import is still adding left to the next (incremental)
    vectorisation."""
    with transaction(conn):
        gaps = count_missing(conn, version.library_id, version.id)
        if gaps and not allow_gaps:
            raise ValueError(f"{gaps} chunks still have no vector")
        old = conn.execute(
            "SELECT current_vector_version FROM libraries WHERE id = ?", (version.library_id,)
        ).fetchone()
        conn.execute(
            "UPDATE vector_versions SET state = 'superseded', finished_at = ? WHERE library_id = ?"
            " AND state = 'ready'",
            (now_iso(), version.library_id),
        )
        conn.execute(
            "UPDATE vector_versions SET state = 'ready', finished_at = ? WHERE id = ?",
            (now_iso(), version.id),
        )
        conn.execute(
            "UPDATE libraries SET current_vector_version = ? WHERE id = ?",
            (version.id, version.library_id),
        )
    if old and old[0] and old[0] != version.id:
        discard(conn, data_dir, old[0])


def fail(conn: sqlite3.Connection, data_dir: Path, version: Version, reason: str) -> None:
    """Record a failed build on its own; the current version keeps serving."""
    with transaction(conn):
        conn.execute(
            "UPDATE vector_versions SET state = 'failed', error = ?, finished_at = ? WHERE id = ?",
            (reason[:500], now_iso(), version.id),
        )
        conn.execute("DELETE FROM vector_rows WHERE version_id = ?", (version.id,))
    _remove_files(data_dir, version.id)


def recover_interrupted(conn: sqlite3.Connection, data_dir: Path) -> int:
    """At start: versions a crash left ``building`` are failed builds (their files deleted; the
    current version keeps serving) — except a library's first version, searched while it
    filled: it is made current with what it had committed (:func:`_keep_first`), and the
    vectorisation resumed at start embeds the rest. Vector files no version owns are removed.
    Returns how many builds were recovered."""
    rows = conn.execute(
        "SELECT v.*, l.current_vector_version IS NULL AS first FROM vector_versions v"
        " JOIN libraries l ON l.id = v.library_id WHERE v.state = 'building'"
        " ORDER BY v.row_count DESC"
    ).fetchall()
    kept: set[str] = set()
    for row in rows:
        version = _version(row)
        first = bool(row["first"]) and version.library_id not in kept
        if first and _keep_first(conn, data_dir, version):
            kept.add(version.library_id)
        else:
            fail(conn, data_dir, version, "interrupted: the app stopped during the build")
    owned = {r[0] for r in conn.execute("SELECT id FROM vector_versions WHERE state = 'ready'")}
    folder = data_dir / VECTOR_DIR
    if folder.is_dir():
        for path in folder.iterdir():
            stem, _, kind = path.name.partition(".")
            ours = kind in ("f32", int8_file.SUFFIX[1:]) or kind.startswith(int8_file.TEMPORARY)
            if ours and (stem not in owned or kind.startswith(int8_file.TEMPORARY)):
                path.unlink(missing_ok=True)  # an unowned file, or a rebuild a stop cut short
    return len(rows)


def _keep_first(conn: sqlite3.Connection, data_dir: Path, version: Version) -> bool:
    """Make a first version a crash cut short current with its committed rows. Appends write
    the file (synced) before the row count, so the file holds at least every counted row; a
    longer file has a torn tail, which is cut. False (the version is failed instead) when it
    committed nothing or its file is shorter than its count."""
    path = path_of(data_dir, version.id)
    size = version.row_count * version.dims * 4
    try:
        if version.row_count == 0 or path.stat().st_size < size:
            return False
        with open(path, "r+b") as fh:
            fh.truncate(size)
    except OSError:
        return False
    promote(conn, data_dir, version, allow_gaps=True)
    return True


def discard(conn: sqlite3.Connection, data_dir: Path, version_id: str) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM vector_rows WHERE version_id = ?", (version_id,))
        conn.execute("UPDATE vector_versions SET state = 'superseded' WHERE id = ?", (version_id,))
    _remove_files(data_dir, version_id)


def document_coverage(
    conn: sqlite3.Connection, library_id: str, version_id: str
) -> tuple[int, int]:
    """(documents whose every retrievable chunk has a live vector, documents with a
    retrievable chunk): what "vectors cover 420/2,000 documents" counts."""
    row = conn.execute(
        "SELECT count(DISTINCT c.document_id), count(DISTINCT CASE WHEN NOT EXISTS ("
        " SELECT 1 FROM vector_rows v WHERE v.version_id = ? AND v.chunk_seq = c.seq"
        " AND v.alive = 1 AND v.checksum = c.checksum) THEN c.document_id END)"
        " FROM chunks c WHERE c.library_id = ? AND c.enabled = 1 AND c.role != 'parent'",
        (version_id, library_id),
    ).fetchone()
    total, lacking = int(row[0]), int(row[1])
    return total - lacking, total


def dead_rows(conn: sqlite3.Connection, version_id: str) -> np.ndarray:
    rows = conn.execute(
        "SELECT row FROM vector_rows WHERE version_id = ? AND alive = 0 ORDER BY row", (version_id,)
    )
    return np.fromiter((r[0] for r in rows), dtype=np.int64)


def dead_count(conn: sqlite3.Connection, version_id: str) -> int:
    (n,) = conn.execute(
        "SELECT count(*) FROM vector_rows WHERE version_id = ? AND alive = 0", (version_id,)
    ).fetchone()
    return int(n)


def worth_compacting(conn: sqlite3.Connection, version: Version) -> bool:
    dead = dead_count(conn, version.id)
    return dead >= COMPACT_MIN_DEAD and dead >= COMPACT_SHARE * version.row_count


def compact(
    conn: sqlite3.Connection, data_dir: Path, version: Version, check: Callable[[], None]
) -> Version | None:
    """A new version holding ``version``'s live rows only (same model, same vectors, in the same
    order), made current in its place; None when a chunk changed while the rows were copied (the
    copy is discarded, ``version`` keeps serving). ``check`` raises to stop (the copy is
    discarded)."""
    made = create(
        conn, data_dir, version.library_id, version.fingerprint, version.label, version.dims
    )
    try:
        live = conn.execute(
            "SELECT row, chunk_seq, checksum FROM vector_rows WHERE version_id = ? AND alive = 1"
            " ORDER BY row",
            (version.id,),
        ).fetchall()
        if live:
            source = np.memmap(
                path_of(data_dir, version.id),
                dtype=np.float32,
                mode="r",
                shape=(version.row_count, version.dims),
            )
            for start in range(0, len(live), COMPACT_BATCH):
                check()
                part = live[start : start + COMPACT_BATCH]
                rows = np.fromiter((r[0] for r in part), dtype=np.int64, count=len(part))
                # (append reads the row count it extends from SQLite: ``made`` needs no re-read)
                append(conn, data_dir, made, [(r[1], r[2]) for r in part], source[rows])
            del source
    except BaseException:
        discard(conn, data_dir, made.id)
        raise
    try:
        promote(conn, data_dir, get(conn, made.id))
    except ValueError:  # a chunk changed meanwhile (found before the swap, rolled back)
        discard(conn, data_dir, made.id)
        return None
    # (what promote raises after its swap, removing the old files, leaves the copy current)
    return get(conn, made.id)
