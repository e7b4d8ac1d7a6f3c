"""Conversation search on a migrated database: conversations from before the search index are
indexed by its migration (titles and messages, Chinese and English), and the pure pieces —
the match expression (every term must occur; nothing typed becomes FTS5 syntax) and the bounded
snippet around the hit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from goodbuddy_kb.contracts.chat import MAX_SNIPPET_CHARACTERS
from goodbuddy_kb.main_process.chat import search_index, store
from goodbuddy_kb.main_process.storage.migrations import default_migrations_dir, migrate
from tests.main_process.test_migrations import migrated_before

MIGRATION = "_conversation_management.py"


def before_the_index(tmp_path: Path) -> tuple[sqlite3.Connection, Path, dict[str, bytes]]:
    """A database migrated up to (not including) the conversation-management migration."""
    first = next(p.name for p in default_migrations_dir().iterdir() if p.name.endswith(MIGRATION))
    return migrated_before(tmp_path, first[:4])


def test_conversations_from_before_the_index_are_found_after_the_migration(
    tmp_path: Path,
) -> None:
    conn, migrations, held = before_the_index(tmp_path)
    t = "2026-01-01T00:00:00Z"
    conn.executemany(
        "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
        [("a" * 32, "差旅报销", t, t), ("b" * 32, "Weekly notes", t, t)],
    )
    conn.executemany(
        "INSERT INTO messages (id, conversation_id, ordinal, role, content, state, created_at)"
        " VALUES (?, ?, ?, ?, ?, 'complete', ?)",
        [
            ("1" * 32, "a" * 32, 0, "user", "住宿标准？", t),
            ("2" * 32, "a" * 32, 1, "assistant", "一线城市每晚六百元。", t),
            ("3" * 32, "b" * 32, 0, "user", "What about meetings?", t),
            ("4" * 32, "b" * 32, 1, "assistant", "Standups are fifteen minutes long.", t),
        ],
    )
    conn.commit()
    for name, data in held.items():
        (migrations / name).write_bytes(data)
    migrate(conn, migrations)

    def found(query: str) -> list[str]:
        return [x.id for x in store.list_conversations(conn, query)]

    assert found("六百元") == ["a" * 32]
    assert found("报销") == ["a" * 32], "the title"
    assert found("standup") == ["b" * 32], "a stem of an answer's word"
    assert found("晚") == ["a" * 32], "one Chinese character"
    assert found("fifteen 六百") == []
    listed = store.list_conversations(conn)
    assert {x.id: (x.message_count, x.title_is_default) for x in listed} == {
        "a" * 32: (2, True),
        "b" * 32: (2, True),
    }


def test_a_query_is_all_of_its_terms_and_never_fts5_syntax() -> None:
    assert search_index.match_expression("报销标准") == '"报销" AND "销标" AND "标准"'
    # "or" is an English function word (no evidence), NEAR an ordinary word
    assert search_index.match_expression('policies "OR" NEAR(') == ('"polici" AND "near"')
    assert search_index.match_expression("税") == '("税" * OR "税")'
    assert search_index.match_expression(" ?!* ") is None


def test_a_snippet_is_bounded_and_shows_the_hit() -> None:
    text = "开头" * 200 + " the reimbursement ceiling is 600 " + "结尾" * 200
    piece = search_index.snippet(text, search_index.query_pattern("ceilings"))
    assert "ceiling" in piece and len(piece) <= MAX_SNIPPET_CHARACTERS
    assert piece.startswith("…") and piece.endswith("…")
    assert search_index.snippet("short  text\n", None) == "short text"


def test_a_default_title_never_puts_an_ellipsis_after_a_full_stop() -> None:
    from goodbuddy_kb.main_process.chat.store import default_title

    question = "I lost my company laptop on the train. What should I do first?"
    assert default_title(question) == "I lost my company laptop on the train."
    assert default_title("Which expense claims need sign-off from the CFO and by when") == (
        "Which expense claims need sign-off from…"
    )
    assert default_title("年假怎么结转？") == "年假怎么结转？"
