"""Migrations: all apply to an empty database; a failing one leaves everything as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.settings import DEFAULT_MINIMUM_RELEVANCE
from goodbuddy_kb.main_process.lexical import index as lexical_index
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


def seed(conn: sqlite3.Connection) -> str:
    """One library 'l' with source 's' and document 'd'; returns the timestamp used."""
    t = "2026-01-01"
    conn.execute(
        "INSERT INTO libraries (id, name, retrieval_settings, chunking_settings, created_at,"
        " updated_at) VALUES ('l', 'L', '{}', '{}', ?, ?)",
        (t, t),
    )
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
    return t


def test_foreign_keys_cascade_from_library_to_chunks(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn)
    t = seed(conn)
    conn.execute(
        "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum,"
        " created_at, updated_at) VALUES ('c', 'l', 'd', 0, 'x', 'x', 'h', ?, ?)",
        (t, t),
    )
    lexical_index.add(conn, conn.execute("SELECT seq, '年假 leave' FROM chunks").fetchall())
    assert conn.execute("SELECT count(*) FROM chunks_cjk").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, role, content, index_text,"
            " checksum, created_at, updated_at) VALUES ('c2', 'l', 'd', 1, 'child', 'x', 'x', 'h', ?, ?)",
            (t, t),
        )
    conn.execute("DELETE FROM libraries WHERE id = 'l'")
    for table in ("sources", "documents", "chunks"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    for table in ("chunks_fts", "chunks_cjk"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


def test_cjk_backfill_indexes_existing_chunks_and_a_failure_rolls_back(tmp_path: Path) -> None:
    """The CJK migration backfills chunks written before it; if backfill fails, the table is not
    created and the full-text index keeps working."""
    import shutil

    migrations = tmp_path / "migrations"
    shutil.copytree(
        default_migrations_dir(), migrations, ignore=shutil.ignore_patterns("__pycache__")
    )
    for later in migrations.iterdir():
        if later.name[:4] > "0004":
            later.unlink()  # this test is about 0004 on the schema of its time
    cjk = migrations / "0004_cjk_bigrams.py"
    original = cjk.read_text()
    cjk.unlink()
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn, migrations)
    t = seed(conn)
    for i in range(2500):
        conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum,"
            " created_at, updated_at) VALUES (?, 'l', 'd', ?, 'x', ?, 'h', ?, ?)",
            (f"c{i}", i, f"年假制度 {i}", t, t),
        )
    conn.execute(
        "INSERT INTO chunks_fts (rowid, text) SELECT seq, kb_fts_text(index_text) FROM chunks"
    )
    # a backfill that fails after its first batches
    cjk.write_text(
        original.replace(
            "        last = rows[-1][0]",
            "        last = rows[-1][0]\n        if last > 1500:\n            raise RuntimeError('disk full')",
        )
    )
    before = snapshot(conn)
    with pytest.raises(MigrationError, match="disk full"):
        migrate(conn, migrations)
    assert snapshot(conn) == before
    assert (
        conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '2499'").fetchone()[0]
        == 1
    )
    cjk.write_text(original)
    assert migrate(conn, migrations) == ["0004_cjk_bigrams"]
    hits = conn.execute(
        "SELECT count(*) FROM chunks_cjk WHERE chunks_cjk MATCH '\"年假\"'"
    ).fetchone()[0]
    assert hits == 2500


def test_stemmed_fulltext_rebuilds_both_tables_with_headings_and_a_failure_rolls_back(
    tmp_path: Path,
) -> None:
    """0012 recreates the lexical tables (stems, a heading column) from the chunks in batches;
    a failure part-way leaves the 0003/0004 tables serving exactly as before."""
    import shutil

    migrations = tmp_path / "migrations"
    shutil.copytree(
        default_migrations_dir(), migrations, ignore=shutil.ignore_patterns("__pycache__")
    )
    stemmed = migrations / "0012_stemmed_fulltext.py"
    original = stemmed.read_text()
    stemmed.unlink()
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn, migrations)
    t = seed(conn)
    conn.execute("UPDATE documents SET title = 'Travel handbook' WHERE id = 'd'")
    for i in range(2500):
        conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text,"
            " heading_path, checksum, created_at, updated_at)"
            " VALUES (?, 'l', 'd', ?, 'x', ?, '[\"住宿标准\"]', 'h', ?, ?)",
            (f"c{i}", i, f"hotel policies {i}", t, t),
        )
    # the tables as 0003/0004 filled them (unstemmed text, no heading column)
    conn.execute("INSERT INTO chunks_fts (rowid, text) SELECT seq, index_text FROM chunks")
    conn.execute("INSERT INTO chunks_cjk (rowid, text) SELECT seq, '' FROM chunks")
    stemmed.write_text(
        original.replace(
            "            last = rows[-1][0]",
            "            last = rows[-1][0]\n            if last > 1500:\n"
            "                raise RuntimeError('disk full')",
        )
    )
    before = snapshot(conn)
    with pytest.raises(MigrationError, match="disk full"):
        migrate(conn, migrations)
    assert snapshot(conn) == before
    assert (
        conn.execute(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'policies'"
        ).fetchone()[0]
        == 2500
    )
    stemmed.write_text(original)
    assert migrate(conn, migrations) == ["0012_stemmed_fulltext"]

    def count(table: str, match: str) -> int:
        return int(
            conn.execute(
                f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (match,)
            ).fetchone()[0]
        )

    assert count("chunks_fts", '"polici"') == 2500  # "policies" and "policy" meet at the stem
    assert count("chunks_fts", 'heading : "handbook"') == 2500
    assert count("chunks_cjk", 'heading : "住宿"') == 2500
    assert count("chunks_fts", 'text : "handbook"') == 0  # the title never enters the text
    conn.execute("DELETE FROM chunks WHERE id = 'c1'")
    assert count("chunks_fts", '"polici"') == count("chunks_cjk", '"住宿"') == 2499


def test_the_first_starter_ontology_is_updated_and_an_edited_one_is_left(tmp_path: Path) -> None:
    """0016: a library still on the first starter ontology gets the current one (and, with its
    graph on, is marked for a rebuild); an ontology a person edited stays as it was."""
    import json
    import shutil

    from goodbuddy_kb.contracts.graph import Ontology
    from goodbuddy_kb.main_process.graph.ontology import starter

    migrations = tmp_path / "migrations"
    shutil.copytree(
        default_migrations_dir(), migrations, ignore=shutil.ignore_patterns("__pycache__")
    )
    for later in migrations.iterdir():
        if later.name[:4] >= "0016":
            later.unlink()
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn, migrations)
    first = (Path(__file__).parent / "graph" / "first_starter_ontology.json").read_text()
    edited = json.loads(first)
    edited["entityTypes"][0]["nameEn"] = "Staff"
    t = "2026-01-01"
    for library_id, ontology, strategy in (
        ("on", first, "local"),
        ("off", first, "off"),
        ("edited", json.dumps(edited), "local"),
    ):
        conn.execute(
            "INSERT INTO libraries (id, name, retrieval_settings, chunking_settings, created_at,"
            " updated_at) VALUES (?, ?, '{}', '{}', ?, ?)",
            (library_id, library_id, t, t),
        )
        conn.execute(
            "INSERT INTO graph_settings (library_id, settings, ontology, updated_at)"
            " VALUES (?, ?, ?, ?)",
            (library_id, json.dumps({"strategy": strategy}), ontology, t),
        )
    shutil.copy(default_migrations_dir() / "0016_graph_starter_update.py", migrations)
    assert migrate(conn, migrations) == ["0016_graph_starter_update"]
    state = {
        row[0]: (Ontology.model_validate_json(row[1]), row[2])
        for row in conn.execute("SELECT library_id, ontology, needs_rebuild FROM graph_settings")
    }
    assert state["on"] == (starter(), 1)
    assert state["off"] == (starter(), 0)
    assert state["edited"][0].entity_types[0].name_en == "Staff" and state["edited"][1] == 0
    patterns = {p for r in state["on"][0].relation_types for p in r.patterns}
    assert "{tail} is maintained by {head}" in patterns


def test_libraries_on_the_old_relevance_default_move_to_the_calibrated_one(tmp_path: Path) -> None:
    """Relevance became a calibrated probability: a library still on the old default floor
    (0.015, which let nearly everything through) moves to the new default; a floor a person
    chose stays."""
    conn, migrations, held = migrated_before(tmp_path, "0021")
    t = "2026-01-01"
    for name, floor in (("old", 0.015), ("chosen", 0.05)):
        conn.execute(
            "INSERT INTO libraries (id, name, retrieval_settings, chunking_settings, created_at,"
            " updated_at) VALUES (?, ?, json_object('topK', 10, 'minimumRelevance', ?), '{}', ?, ?)",
            (name, name, floor, t, t),
        )
    for name, data in held.items():
        (migrations / name).write_bytes(data)
    migrate(conn, migrations)
    floors = dict(
        conn.execute(
            "SELECT id, json_extract(retrieval_settings, '$.minimumRelevance') FROM libraries"
        )
    )
    assert floors == {"old": DEFAULT_MINIMUM_RELEVANCE, "chosen": 0.05}
    (top_k,) = conn.execute(
        "SELECT json_extract(retrieval_settings, '$.topK') FROM libraries WHERE id = 'old'"
    ).fetchone()
    assert top_k == 10, "the rest of the settings stays"


def test_libraries_made_before_the_local_graph_default_stay_off(tmp_path: Path) -> None:
    """0023: a new library's graph is local; one made before (no graph settings stored, which
    read as "off") stays off, and one whose graph a person turned on stays on."""
    import json

    from goodbuddy_kb.main_process.graph import store

    conn, migrations, held = migrated_before(tmp_path, "0023")
    t = "2026-01-01"
    for name in ("untouched", "turned_on"):
        conn.execute(
            "INSERT INTO libraries (id, name, retrieval_settings, chunking_settings, created_at,"
            " updated_at) VALUES (?, ?, '{}', '{}', ?, ?)",
            (name, name, t, t),
        )
    conn.execute(
        "INSERT INTO graph_settings (library_id, settings, ontology, updated_at)"
        " VALUES ('turned_on', ?, '{}', ?)",
        (json.dumps({"strategy": "model"}), t),
    )
    for name, data in held.items():
        (migrations / name).write_bytes(data)
    assert "0023_graph_default_local" in migrate(conn, migrations)
    assert store.settings(conn, "untouched").strategy == "off"
    (kept,) = conn.execute(
        "SELECT settings FROM graph_settings WHERE library_id = 'turned_on'"
    ).fetchone()
    assert json.loads(kept) == {"strategy": "model"}
    conn.execute(
        "INSERT INTO libraries (id, name, retrieval_settings, chunking_settings, created_at,"
        " updated_at) VALUES ('new', 'new', '{}', '{}', ?, ?)",
        (t, t),
    )
    assert store.settings(conn, "new").strategy == "local"


def migrated_before(
    tmp_path: Path, version: str
) -> tuple[sqlite3.Connection, Path, dict[str, bytes]]:
    """A database with every shipped migration before ``version`` applied: the connection, a
    migrations folder without the later ones, and those (name → bytes) to put back."""
    import shutil

    migrations = tmp_path / "migrations"
    shutil.copytree(
        default_migrations_dir(), migrations, ignore=shutil.ignore_patterns("__pycache__")
    )
    later = sorted(p for p in migrations.iterdir() if p.name[:4] >= version)
    held = {p.name: p.read_bytes() for p in later}
    for p in later:
        p.unlink()
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn, migrations)
    return conn, migrations, held


def test_documents_listed_before_the_sort_key_get_one(tmp_path: Path) -> None:
    """0024: documents already listed get their sort key, so an existing library lists
    "chapter 2" before "chapter 10" without a sync."""
    conn, migrations, held = migrated_before(tmp_path, "0024")
    seed(conn)
    t = "2026-01-01"
    for doc_id, path in (("d10", "chapter 10.md"), ("d2", "Chapter 2.md")):
        conn.execute(
            "INSERT INTO documents (id, library_id, source_id, relative_path, title, created_at,"
            " updated_at) VALUES (?, 'l', 's', ?, 'x', ?, ?)",
            (doc_id, path, t, t),
        )
    for name, data in held.items():
        (migrations / name).write_bytes(data)
    assert "0024_document_sort_key" in migrate(conn, migrations)
    listed = conn.execute(
        "SELECT relative_path FROM documents WHERE library_id = 'l' ORDER BY sort_key"
    ).fetchall()
    assert [r[0] for r in listed] == ["a.md", "Chapter 2.md", "chapter 10.md"]
    plan = " ".join(
        str(r[-1])
        for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM documents WHERE library_id = 'l'"
            " ORDER BY sort_key, relative_path, id LIMIT 10"
        )
    )
    assert "documents_library_order" in plan and "TEMP B-TREE" not in plan, plan
