"""Conversations and messages in SQLite (the search index through ``search_index``)."""

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
from goodbuddy_kb.main_process.chat import search_index
from goodbuddy_kb.main_process.ids import new_id, now_iso
from goodbuddy_kb.main_process.storage.db import transaction


def _scope_json(scope: ChatScope | None) -> str | None:
    return scope.model_dump_json(by_alias=True) if scope is not None else None


#: Longest part of the first question a default title keeps.
DEFAULT_TITLE_CHARACTERS = 40


def default_title(question: str) -> str:
    """The first question, whitespace collapsed, at most 40 characters, cut after a whole word
    where it is written with spaces. The list shows when each conversation was last active
    beside it, so two that began alike are told apart; the date used to be part of the title
    too, and came back in a rename's field and an export's file name ("… 1000 p  2026-12-04
    1926.md")."""
    text = " ".join(question.split())
    if len(text) > DEFAULT_TITLE_CHARACTERS:
        cut = text[: DEFAULT_TITLE_CHARACTERS - 1]
        space = cut.rfind(" ")
        if space >= DEFAULT_TITLE_CHARACTERS // 2 and text[len(cut)] != " ":
            cut = cut[:space]
        # a first sentence that ends where the cut is needs no "…" after its full stop
        # ("…laptop on the train.…")
        whole = cut.rstrip()
        text = whole if whole.endswith(tuple(".!?。！？")) else cut.rstrip(" ,;:，、") + "…"
    return text


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
        search_index.index_text(conn, cid, None, title)
    return get_conversation(conn, cid)


_COUNT = "(SELECT count(*) FROM messages m WHERE m.conversation_id = conversations.id)"


def _conversation(row: sqlite3.Row, count: int, snippet: str | None = None) -> Conversation:
    scope = ChatScope.model_validate_json(row["scope"]) if row["scope"] else None
    return Conversation(
        id=row["id"],
        title=row["title"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        scope=scope,
        pinned=bool(row["pinned"]),
        title_is_default=bool(row["title_is_default"]),
        message_count=count,
        chat_model=row["chat_model"],
        snippet=snippet,
    )


def get_conversation(
    conn: sqlite3.Connection, conversation_id: str, *, deleted: bool = False
) -> Conversation:
    """The conversation; a deleted one is "not found" unless ``deleted`` (restore) asks."""
    row = conn.execute(
        f"SELECT *, {_COUNT} AS n FROM conversations WHERE id = ?"
        + ("" if deleted else " AND deleted_at IS NULL"),
        (conversation_id,),
    ).fetchone()
    if row is None:
        raise NotFoundError("conversation not found", {"conversationId": conversation_id})
    return _conversation(row, row["n"])


def list_conversations(
    conn: sqlite3.Connection, query: str = "", limit: int = 200
) -> list[Conversation]:
    """Pinned first, then newest activity; with ``query``, only the matching ones (full-text
    over titles and messages), each with a snippet of where it matched."""
    if not query.strip():
        rows = conn.execute(
            f"SELECT *, {_COUNT} AS n FROM conversations WHERE deleted_at IS NULL"
            " ORDER BY pinned DESC, updated_at DESC, id LIMIT ?",
            (limit,),
        ).fetchall()
        return [_conversation(r, r["n"]) for r in rows]
    expression = search_index.match_expression(query)
    if expression is None:
        return []
    pattern = search_index.query_pattern(query)
    return [
        _conversation(row, row["n"], search_index.snippet(row["hit_text"], pattern))
        for row in conn.execute(search_index.SEARCH_SQL, (expression, limit)).fetchall()
    ]


def set_scope(conn: sqlite3.Connection, conversation_id: str, scope: ChatScope) -> Conversation:
    """Keep ``scope`` with the conversation (its order in the list is left as it is)."""
    with transaction(conn):
        get_conversation(conn, conversation_id)
        conn.execute(
            "UPDATE conversations SET scope = ? WHERE id = ?", (_scope_json(scope), conversation_id)
        )
    return get_conversation(conn, conversation_id)


def rename(conn: sqlite3.Connection, conversation_id: str, title: str) -> Conversation:
    """A title the person chose: kept from now on (the first question no longer sets it)."""
    with transaction(conn):
        get_conversation(conn, conversation_id)
        conn.execute(
            "UPDATE conversations SET title = ?, title_is_default = 0 WHERE id = ?",
            (title, conversation_id),
        )
        search_index.index_text(conn, conversation_id, None, title)
    return get_conversation(conn, conversation_id)


def set_pinned(conn: sqlite3.Connection, conversation_id: str, pinned: bool) -> Conversation:
    with transaction(conn):
        get_conversation(conn, conversation_id)
        conn.execute(
            "UPDATE conversations SET pinned = ? WHERE id = ?", (int(pinned), conversation_id)
        )
    return get_conversation(conn, conversation_id)


def set_chat_model(conn: sqlite3.Connection, conversation_id: str, model: str | None) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE conversations SET chat_model = ? WHERE id = ?", (model, conversation_id)
        )


def delete_conversation(conn: sqlite3.Connection, conversation_id: str) -> None:
    """Hidden at once (list, search, messages, send); purged for good at the next start."""
    with transaction(conn):
        get_conversation(conn, conversation_id)
        conn.execute(
            "UPDATE conversations SET deleted_at = ? WHERE id = ?", (now_iso(), conversation_id)
        )


def restore_conversation(conn: sqlite3.Connection, conversation_id: str) -> Conversation:
    with transaction(conn):
        get_conversation(conn, conversation_id, deleted=True)
        conn.execute("UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,))
    return get_conversation(conn, conversation_id)


def purge_deleted(conn: sqlite3.Connection) -> int:
    """Delete for good the conversations deleted in an earlier session (messages and index rows
    go by cascade); returns how many."""
    with transaction(conn):
        return conn.execute("DELETE FROM conversations WHERE deleted_at IS NOT NULL").rowcount


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
        search_index.index_text(conn, conversation_id, mid, content)
        if role == "user" and ordinal == 0:
            _title_from_first_question(conn, conversation_id, content)
    return get_message(conn, mid)


def _title_from_first_question(conn: sqlite3.Connection, conversation_id: str, text: str) -> None:
    """A title nobody chose becomes the first question with the date and time."""
    title = default_title(text)
    changed = conn.execute(
        "UPDATE conversations SET title = ? WHERE id = ? AND title_is_default = 1",
        (title, conversation_id),
    ).rowcount
    if changed:
        search_index.index_text(conn, conversation_id, None, title)


def get_message(conn: sqlite3.Connection, message_id: str) -> Message:
    """The message, unless it or its conversation is gone (deleted conversations included)."""
    row = conn.execute(
        "SELECT m.* FROM messages m JOIN conversations c ON c.id = m.conversation_id"
        " WHERE m.id = ? AND c.deleted_at IS NULL",
        (message_id,),
    ).fetchone()
    if row is None:
        raise NotFoundError("message not found", {"messageId": message_id})
    return _message(row)


def delete_message(conn: sqlite3.Connection, message_id: str) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM messages WHERE id = ?", (message_id,))


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
        row = conn.execute(
            "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
        ).fetchone()
        if row is not None:
            search_index.index_text(conn, row[0], message_id, content)
            conn.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (now_iso(), row[0])
            )
    # Read back even if the conversation was deleted while the answer streamed.
    return _message(conn.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone())
