"""Embedding providers and the model-connection settings that choose one."""

from __future__ import annotations

import os
import sqlite3

from goodbuddy_kb.contracts.models import EmbeddingConnection, EmbeddingKind
from goodbuddy_kb.main_process.credentials import CredentialStore
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider, LocalE5Provider
from goodbuddy_kb.main_process.embeddings.remote import OllamaProvider, OpenAICompatibleProvider
from goodbuddy_kb.main_process.storage import app_settings
from goodbuddy_kb.main_process.storage.setting_keys import EMBEDDING_API_KEY, EMBEDDING_SETTING

#: A data directory with no embedding setting yet starts on this kind (headless runs and CI
#: may choose `deterministic` or `none`); the product default is the bundled local model.
ENV_DEFAULT = "GOODBUDDY_DEFAULT_EMBEDDING"


def load_connection(conn: sqlite3.Connection) -> EmbeddingConnection:
    stored = app_settings.read(conn, EMBEDDING_SETTING, EmbeddingConnection)
    if stored is None:
        chosen = os.environ.get(ENV_DEFAULT, "local")
        kind: EmbeddingKind = (
            "none"
            if chosen == "none"
            else "deterministic"
            if chosen == "deterministic"
            else "local"
        )
        return EmbeddingConnection(kind=kind)
    return stored


def save_connection(conn: sqlite3.Connection, connection: EmbeddingConnection) -> None:
    app_settings.write(conn, EMBEDDING_SETTING, connection)


def make_provider(
    connection: EmbeddingConnection, credentials: CredentialStore
) -> EmbeddingProvider | None:
    """The configured provider, or None when semantic search is off. Never a fallback."""
    return provider_for(connection, credentials.get(EMBEDDING_API_KEY))


def provider_for(connection: EmbeddingConnection, key: str | None) -> EmbeddingProvider | None:
    """The provider of ``connection`` with this API key (a connection test passes the form's)."""
    if connection.kind == "none":
        return None
    if connection.kind == "local":
        return LocalE5Provider()
    if connection.kind == "deterministic":
        return DeterministicProvider(connection.dimensions or 384)
    assert connection.base_url and connection.model
    cls = OpenAICompatibleProvider if connection.kind == "openai-compatible" else OllamaProvider
    return cls(
        connection.base_url,
        connection.model,
        key,
        connection.dimensions,
        connection.batch_size,
        connection.timeout_s,
    )


__all__ = [
    "EmbeddingProvider",
    "load_connection",
    "make_provider",
    "provider_for",
    "save_connection",
]
