"""The user name and password written into a web source's address (``https://alice:pw@host/``).

They are never stored with the source, its documents or its tasks, so no list, path, result, MCP
answer or reference context can show them: the source keeps the address without them and the
credential store keeps them under the source's id, for the fetches that need them.
"""

from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit, urlunsplit

from goodbuddy_kb.main_process.credentials import CredentialStore

_store: CredentialStore | None = None


def split_userinfo(url: str) -> tuple[str, str | None]:
    """``url`` without its user-info, and the user-info (``user:password``) if it had one."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=host)), userinfo or None


def with_userinfo(url: str, userinfo: str | None) -> str:
    if not userinfo:
        return url
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{userinfo}@{parts.netloc}"))


def credential_name(source_id: str) -> str:
    return f"source-userinfo-{source_id}"


def install(store: CredentialStore) -> None:
    """Where the backend keeps the user-info (called once at start)."""
    global _store  # noqa: PLW0603 - one credential store per backend process
    _store = store


def remember(source_id: str, userinfo: str | None) -> None:
    if _store is not None and userinfo:
        _store.set(credential_name(source_id), userinfo)


def forget(source_ids: list[str]) -> None:
    if _store is None:
        return
    for source_id in source_ids:
        _store.set(credential_name(source_id), None)


def userinfo_for(source_id: str) -> str | None:
    return _store.get(credential_name(source_id)) if _store is not None else None


def scrub_stored(conn: sqlite3.Connection) -> int:
    """Move the user-info of web sources added before it was kept apart into the credential
    store, and take it out of their addresses and document paths. Returns how many sources."""
    rows = conn.execute(
        "SELECT id, location FROM sources WHERE kind = 'web' AND location LIKE '%@%'"
    ).fetchall()
    moved = 0
    for source_id, location in rows:
        clean, userinfo = split_userinfo(location)
        if userinfo is None:
            continue
        remember(source_id, userinfo)
        with conn:
            conn.execute("UPDATE sources SET location = ? WHERE id = ?", (clean, source_id))
            conn.execute(
                "UPDATE documents SET relative_path = ? WHERE source_id = ? AND relative_path = ?",
                (clean, source_id, location),
            )
        moved += 1
    return moved
