"""Migrations: all apply to an empty database; a failing one leaves everything as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from goodbuddy_kb.main_process.storage.db import connect
from goodbuddy_kb.main_process.storage.migrations import (
    MigrationError,
    default_migrations_dir,
    discover,
    migrate,
    pending,
)


def snapshot(conn: sqlite3.Connection) -> tuple[list[tuple[str, str]], list[tuple[object, ...]]]:
    schema = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
    ).fetchall()
    tables = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
    ]
    rows: list[tuple[object, ...]] = []
    for table in tables:
        rows.extend((table, *tuple(r)) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1"))
    return [tuple(s) for s in schema], rows


def test_all_shipped_migrations_apply_to_an_empty_database(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    shipped = discover(default_migrations_dir())
    assert shipped, "no migrations found"
    assert [m.label for m in pending(conn, default_migrations_dir())] == [m.label for m in shipped]
    assert migrate(conn) == [m.label for m in shipped]
    assert pending(conn, default_migrations_dir()) == []
    assert migrate(conn) == []  # safe to run twice
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"libraries", "sources", "documents", "chunks", "tasks", "schema_migrations"} <= tables
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_pending_does_not_apply_anything(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    before = snapshot(conn)
    pending(conn, default_migrations_dir())
    assert snapshot(conn) == before


def test_failing_migration_rolls_back_schema_and_data(tmp_path: Path) -> None:
    migrations = tmp_path / "migrations"
    migrations.mkdir()
    (migrations / "0001_base.sql").write_text(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n"
        "INSERT INTO notes (body) VALUES ('keep me');\n"
    )
    conn = connect(tmp_path / "db.sqlite3")
    assert migrate(conn, migrations) == ["0001_base"]
    (migrations / "0002_broken.sql").write_text(
        "CREATE TABLE extra (id INTEGER);\n"
        "ALTER TABLE notes ADD COLUMN tag TEXT;\n"
        "UPDATE notes SET body = 'changed';\n"
        "DELETE FROM notes;\n"
        "INSERT INTO no_such_table VALUES (1);\n"
    )
    before = snapshot(conn)
    with pytest.raises(MigrationError) as info:
        migrate(conn, migrations)
    assert info.value.migration == "0002_broken"
    assert "no_such_table" in info.value.reason
    assert snapshot(conn) == before
    assert not conn.in_transaction
    assert [m.label for m in pending(conn, migrations)] == ["0002_broken"]


def test_foreign_keys_cascade_from_library_to_chunks(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn)
    t = "2026-01-01"
    conn.execute("INSERT INTO libraries VALUES ('l', 'L', '{}', '{}', 0, ?, ?)", (t, t))
    conn.execute(
        "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at)"
        " VALUES ('s', 'l', 'folder', '/x', ?, ?)",
        (t, t),
    )
    conn.execute(
        "INSERT INTO documents (id, library_id, source_id, relative_path, title, created_at,"
        " updated_at) VALUES ('d', 'l', 's', 'a.md', 'a', ?, ?)",
        (t, t),
    )
    conn.execute(
        "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum,"
        " created_at, updated_at) VALUES ('c', 'l', 'd', 0, 'x', 'x', 'h', ?, ?)",
        (t, t),
    )
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, role, content, index_text,"
            " checksum, created_at, updated_at) VALUES ('c2', 'l', 'd', 1, 'child', 'x', 'x', 'h', ?, ?)",
            (t, t),
        )
    conn.execute("DELETE FROM libraries WHERE id = 'l'")
    for table in ("sources", "documents", "chunks"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
