"""Application-wide settings (model connections) as versioned JSON rows, keyed by name (the
keys are in ``setting_keys.py``)."""

from __future__ import annotations

import sqlite3
from typing import TypeVar

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.main_process.storage.db import transaction

Model = TypeVar("Model", bound=ContractModel)


def read(conn: sqlite3.Connection, key: str, model: type[Model]) -> Model | None:
    row = conn.execute("SELECT value FROM app_settings WHERE key = ?", (key,)).fetchone()
    return model.model_validate_json(row[0]) if row else None


def read_or_default(conn: sqlite3.Connection, key: str, model: type[Model]) -> Model:
    """The stored setting, or the model's defaults when none is stored yet."""
    stored = read(conn, key, model)
    return stored if stored is not None else model()


def read_all(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every stored setting as ``(key, JSON text)``, by key (for the diagnostics bundle)."""
    return [(k, v) for k, v in conn.execute("SELECT key, value FROM app_settings ORDER BY key")]


def write(conn: sqlite3.Connection, key: str, value: ContractModel) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT INTO app_settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value.model_dump_json(by_alias=True)),
        )
