"""0016: libraries that still hold the first starter ontology, exactly as it was offered, get
the current one — relation patterns that fire on ordinary sentences (articles and filler words,
由…负责审批, "is owned by the", sits in / works from …) and question words among the relation
types' aliases (在哪、几楼、where, owner), which the graph channel reads as cues.

An ontology a person edited (anything different from the first starter) is left as it is. The
entity and relation type keys and endpoint constraints are the same, so no locked entity or
relation is stranded. A library whose graph is on is marked as needing a rebuild: its graph was
extracted with the old patterns, and nothing is re-extracted by itself.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

from goodbuddy_kb.main_process.graph.ontology import starter

#: SHA-256 of the first starter ontology (as stored by 0010 and every library created since,
#: JSON with sorted keys and no spaces).
FIRST_STARTER = "b91b31e4c806a9aa05d65a529d8d2eae10a3ff6a2b2bfac04e6e65da2b4122af"


def fingerprint(text: str) -> str:
    canonical = json.dumps(
        json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def apply(conn: sqlite3.Connection) -> None:
    current = starter().model_dump_json(by_alias=True)
    rows = conn.execute("SELECT library_id, ontology, settings FROM graph_settings").fetchall()
    for library_id, ontology, settings in rows:
        try:
            if fingerprint(ontology) != FIRST_STARTER:
                continue
            on = json.loads(settings).get("strategy", "off") != "off"
        except (ValueError, AttributeError):
            continue  # not ours to judge: left as it is
        conn.execute(
            "UPDATE graph_settings SET ontology = ?,"
            " needs_rebuild = CASE WHEN ? THEN 1 ELSE needs_rebuild END WHERE library_id = ?",
            (current, on, library_id),
        )
