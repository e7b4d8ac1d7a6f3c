"""Conversations and messages in SQLite."""

from __future__ import annotations

import json
import sqlite3

from goodbuddy_kb.contracts.chat import (
    ChatScope,
    Citation,
    Conversation,
    Message,
    MessageState,
    RetrievalState,
)
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.main_process.ids import new_id, now_iso
from goodbuddy_kb.main_process.storage.db import transaction


def _scope_json(scope: ChatScope | None) -> str | None:
    return scope.model_dump_json(by_alias=True) if scope is not None else None


def create_conversation(
    conn: sqlite3.Connection, title: str, scope: ChatScope | None = None
) -> Conversation:
    cid, stamp = new_id(), now_iso()
    with transaction(conn):
        conn.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at, scope)"
            " VALUES (?, ?, ?, ?, ?)",
            (cid, title, stamp, stamp, _scope_json(scope)),
        )
    return get_conversation(conn, cid)


def _conversation(row: sqlite3.Row) -> Conversation:
    scope = ChatScope.model_validate_json(row["scope"]) if row["scope"] else None
    return Conversation(
        id=row["id"],
        title=row["title"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        scope=scope,
    )


def get_conversation(conn: sqlite3.Connection, conversation_id: str) -> Conversation:
    row = conn.execute("SELECT * FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    if row is None:
        raise NotFoundError("conversation not found", {"conversationId": conversation_id})
    return _conversation(row)


def list_conversations(conn: sqlite3.Connection) -> list[Conversation]:
    rows = conn.execute("SELECT * FROM conversations ORDER BY updated_at DESC, id")
    return [_conversation(r) for r in rows]


def set_scope(conn: sqlite3.Connection, conversation_id: str, scope: ChatScope) -> Conversation:
    """Keep ``scope`` with the conversation (its order in the list is left as it is)."""
    with transaction(conn):
        get_conversation(conn, conversation_id)
        conn.execute(
            "UPDATE conversations SET scope = ? WHERE id = ?", (_scope_json(scope), conversation_id)
        )
    return get_conversation(conn, conversation_id)


def delete_conversation(conn: sqlite3.Connection, conversation_id: str) -> None:
    with transaction(conn):
        get_conversation(conn, conversation_id)
        conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))


def _message(row: sqlite3.Row) -> Message:
    retrieval = json.loads(row["retrieval"])
    return Message(
        id=row["id"],
        conversation_id=row["conversation_id"],
        role=row["role"],
        content=row["content"],
        state=row["state"],
        retrieval=RetrievalState.model_validate(retrieval) if retrieval else None,
        citations=[Citation.model_validate(c) for c in json.loads(row["citations"])],
        error=row["error"],
        created_at=row["created_at"],
    )


def list_messages(conn: sqlite3.Connection, conversation_id: str) -> list[Message]:
    get_conversation(conn, conversation_id)
    rows = conn.execute(
        "SELECT * FROM messages WHERE conversation_id = ? ORDER BY ordinal", (conversation_id,)
    )
    return [_message(r) for r in rows]


def add_message(
    conn: sqlite3.Connection,
    conversation_id: str,
    role: str,
    content: str,
    state: MessageState,
    retrieval: RetrievalState | None = None,
    citations: list[Citation] | None = None,
    error: str | None = None,
) -> Message:
    mid, stamp = new_id(), now_iso()
    with transaction(conn):
        (ordinal,) = conn.execute(
            "SELECT coalesce(max(ordinal), -1) + 1 FROM messages WHERE conversation_id = ?",
            (conversation_id,),
        ).fetchone()
        conn.execute(
            "INSERT INTO messages (id, conversation_id, ordinal, role, content, state, retrieval, citations, error, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                mid,
                conversation_id,
                ordinal,
                role,
                content,
                state,
                json.dumps(retrieval.to_wire() if retrieval else {}),
                json.dumps([c.to_wire() for c in citations or []], ensure_ascii=False),
                error,
                stamp,
            ),
        )
        conn.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ?", (stamp, conversation_id)
        )
    return get_message(conn, mid)


def get_message(conn: sqlite3.Connection, message_id: str) -> Message:
    return _message(conn.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone())


def finish_message(
    conn: sqlite3.Connection,
    message_id: str,
    content: str,
    state: MessageState,
    retrieval: RetrievalState | None,
    citations: list[Citation],
    error: str | None,
) -> Message:
    with transaction(conn):
        conn.execute(
            "UPDATE messages SET content = ?, state = ?, retrieval = ?, citations = ?, error = ? WHERE id = ?",
            (
                content,
                state,
                json.dumps(retrieval.to_wire() if retrieval else {}),
                json.dumps([c.to_wire() for c in citations], ensure_ascii=False),
                error,
                message_id,
            ),
        )
    return get_message(conn, message_id)
