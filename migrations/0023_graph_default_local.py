"""0023: a library made from now on starts with the local graph (``NEW_LIBRARY_STRATEGY``), so
every library made before keeps what it had. One that never stored graph settings read as
"off"; it gets that row now, with the starter ontology, so it stays off until a person turns
the graph on. Libraries with settings are left as they are.
"""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.contracts.graph import GraphSettings
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.ids import now_iso


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT INTO graph_settings (library_id, settings, ontology, updated_at)"
        " SELECT id, ?, ?, ? FROM libraries"
        " WHERE id NOT IN (SELECT library_id FROM graph_settings)",
        (
            GraphSettings(strategy="off").model_dump_json(by_alias=True),
            starter().model_dump_json(by_alias=True),
            now_iso(),
        ),
    )
