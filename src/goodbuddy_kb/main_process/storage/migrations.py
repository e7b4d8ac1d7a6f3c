"""Ordered SQL migrations, each applied with its bookkeeping row in one transaction.

Files are named ``NNNN_name.sql`` (or ``NNNN_name.py`` with an ``apply(conn)`` function); ``pending()`` tells what would run without applying anything.
A failing migration is rolled back completely: schema and data stay exactly as before.
A database that records a migration this build does not have was written by a newer version: it
is refused (``NewerDataError``), never migrated down; ``check_known`` asks without writing a byte.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.(sql|py)$")
_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL
)
"""


class MigrationError(Exception):
    """A migration failed and was rolled back; the database is as it was before it."""

    def __init__(self, migration: str, reason: str) -> None:
        self.migration = migration
        self.reason = reason
        super().__init__(f"migration {migration} failed and was rolled back: {reason}")


class NewerDataError(Exception):
    """The database records migrations newer than this build's: it is left as it is."""

    def __init__(self, found: int, known: int) -> None:
        self.found = found
        self.known = known
        super().__init__(f"data version {found} is newer than this build's {known}")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    @property
    def label(self) -> str:
        return f"{self.version:04d}_{self.name}"

    def sql(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def is_python(self) -> bool:
        return self.path.suffix == ".py"

    def checksum(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def default_migrations_dir() -> Path:
    """`goodbuddy_kb/migrations` inside a wheel; the repository's `migrations/` in a checkout."""
    package_root = Path(__file__).resolve().parents[2]
    shipped = package_root / "migrations"
    if shipped.is_dir():
        return shipped
    return package_root.parents[1] / "migrations"


def discover(directory: Path) -> list[Migration]:
    found: list[Migration] = []
    for path in sorted(directory.iterdir()):
        match = _NAME.match(path.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), path))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError("(discovery)", "two migrations share a version number")
    return found


def applied_versions(conn: sqlite3.Connection) -> set[int]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return set()
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def pending(conn: sqlite3.Connection, directory: Path) -> list[Migration]:
    done = applied_versions(conn)
    return [m for m in discover(directory) if m.version not in done]


def _bookkeeping_row(migration: Migration) -> str:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    return (
        "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES "
        f"({migration.version}, '{migration.name}', '{migration.checksum()}', '{stamp}')"
    )


def _apply_python(conn: sqlite3.Connection, migration: Migration) -> None:
    """A Python migration (for backfills that need the project's own text functions): its
    ``apply(conn)`` runs inside the same transaction as the bookkeeping row."""
    spec = importlib.util.spec_from_file_location(f"_migration_{migration.version}", migration.path)
    if spec is None or spec.loader is None:
        raise MigrationError(migration.label, "cannot load the migration module")
    module = importlib.util.module_from_spec(spec)
    conn.execute("BEGIN IMMEDIATE")
    try:
        spec.loader.exec_module(module)
        conn.execute(_BOOKKEEPING)
        module.apply(conn)
        conn.execute(_bookkeeping_row(migration))
        conn.execute("COMMIT")
    except Exception as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise MigrationError(migration.label, f"{exc.__class__.__name__}: {exc}") from exc


def apply_one(conn: sqlite3.Connection, migration: Migration) -> None:
    if migration.is_python:
        _apply_python(conn, migration)
        return
    script = (
        "BEGIN IMMEDIATE;\n"
        f"{_BOOKKEEPING};\n"
        f"{migration.sql()}\n;\n"
        f"{_bookkeeping_row(migration)};\n"
        "COMMIT;"
    )
    try:
        conn.executescript(script)
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise MigrationError(migration.label, str(exc)) from exc


def refuse_newer(done: set[int], directory: Path | None = None) -> None:
    """NewerDataError when ``done`` holds a migration this build does not know."""
    known = [m.version for m in discover(directory or default_migrations_dir())]
    newest = max(known, default=0)
    if done - set(known) and max(done) > newest:
        raise NewerDataError(max(done), newest)


def check_known(database: Path, directory: Path | None = None) -> None:
    """Refuse (NewerDataError) a database written by a newer build, reading it without writing
    anything: opened read-only and immutable, no journal or shared-memory file is made and its
    header is not touched — unless the file alone does not open (a checkpoint a crash or a full
    disk stopped): then it is read, still read-only, with its write-ahead log. A missing
    database is a new one."""
    if not database.is_file():
        return
    try:
        done = _versions_read_only(database, "mode=ro&immutable=1")
    except sqlite3.DatabaseError:
        if not database.with_name(f"{database.name}-wal").is_file():
            raise
        # The file alone is not the database: a crash or a full disk stopped a checkpoint,
        # and the rest is in the write-ahead log (read with it, still without writing).
        done = _versions_read_only(database, "mode=ro")
    refuse_newer(done, directory)


def _versions_read_only(database: Path, options: str) -> set[int]:
    conn = sqlite3.connect(f"{database.resolve().as_uri()}?{options}", uri=True)
    try:
        return applied_versions(conn)
    finally:
        conn.close()


def migrate(conn: sqlite3.Connection, directory: Path | None = None) -> list[str]:
    """Apply every pending migration in order; returns the labels applied. A database from a
    newer build is refused (NewerDataError) before anything is applied."""
    refuse_newer(applied_versions(conn), directory)
    todo = pending(conn, directory or default_migrations_dir())
    for migration in todo:
        apply_one(conn, migration)
    return [m.label for m in todo]
