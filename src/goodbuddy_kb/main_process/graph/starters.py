"""Every starter ontology the product has offered, by fingerprint, and the step that moves a
library still holding one of them, exactly as offered, to the current starter.

A library keeps the ontology it was given (a person may edit it), so without this step a better
starter would reach only new libraries: one created earlier would go on extracting with the old
patterns and never say so. An ontology that matches no starter was edited and is left as it is.
The entity and relation type keys and endpoint constraints only ever grow, so no locked entity or
relation is stranded. A library whose graph is on is marked as needing a rebuild (nothing is
re-extracted by itself); one whose graph is off extracts with the current starter when turned
on. Run at every start, after the migrations (`app.open_database`).

When the starter changes, add its new fingerprint to ``STARTERS`` (a test fails until it is
there): ``fingerprint(starter().model_dump_json(by_alias=True))``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.storage.db import transaction

#: SHA-256 of every starter ontology offered so far (canonical JSON: sorted keys, no spaces),
#: the current one among them.
STARTERS = frozenset(
    (
        "14dc658ba9f660e1f4bb25ec552e85593aa34e09d5c5bef3c67435bd331e5027",
        "2212c5adb648ae5182c15c049c674d0849690570c02e99c6673c9399fe731e72",
        "27a0ec288d307410ab145fa09008cc574dd58286ffbe8bfc79ed1498b27ce040",
        "2a7b7c1680555b0034ad4b29f4638ec4f7847e07ae77c927e915621734145166",
        "387e6f7450443e33f7619f56a0c62c7c6d6263a531e74c98b1a039d29631c5aa",
        "3eebfe3c118ff7441e1332aa576af29273cb7db9f41929ac1f5f2667f70e45c9",
        "4712347404db166b2a3c345f733b5e07b0dd4bc250457b4a522847d623b9939d",
        "4f87bb81180d8f7e09020d67893cc86ec9867e31253681c008b2add66e07390c",
        "5025cd1bb489f11a48377a8f6e0c9149c7aed73b8c1fd044e4685053ab6529d1",
        "6230d4cc19a5d559bf6ac32f3e5344e85141359248f1e22834812103d916c1bd",
        "6a8a5975bc452579f268bc52430df267a858532e8020522288af38710c5fe421",
        "7c0240f800b8a7d35a0c22a238eb446d4d9c3393ce081e63d5d2d0a9452bd8aa",
        "91b696fe1a1a27659d02617b49c274c77580347f47203f0762286e751a68bf37",
        "a6fe6bb8812ec15dbbb58abdf89f835d3f3f4081343a6c0c73251ad088805108",
        "a9d61242995347f4595d95449b59f40a75354a1e443c123a7d2203d9a606eba8",
        "ac9781a4705514bd58a4e2924d3f56c65266718e1def3fbc4c2f29d22c4c74fe",
        "b91b31e4c806a9aa05d65a529d8d2eae10a3ff6a2b2bfac04e6e65da2b4122af",
        "baba267e1daa25af0707765e55c00e6ef73f696f14dcf7ea1c6b25be828eb55a",
        "c98f8237da2311fd8dd25bd043a385eb6cb0b487e82907501ea60941a6bc803b",
        "cb46ef0030447752e5fca8c8f1a9c418014c6fb14dc1865196f1d4b796770b17",
        "db5fb83636233842ccdab63394f2ace3173cdcfcb32228166b25651bbd56c582",
        "de5b1e4db9dddace0ffc1ec33c00b33587a6f1b8525b6c3cf688cee972ac7a0f",
        "eab16c399edac56bf63aa886892b6518c6dff5fbdd01d52357281e298e9af57d",
        "fce5f51efcf6ad6dab148a70ec2a80509e68c3af7b29c3f6c72669f76a9ec83f",
    )
)


def fingerprint(text: str) -> str:
    """The fingerprint of an ontology's stored JSON (key order and spacing do not count)."""
    canonical = json.dumps(
        json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def refresh(conn: sqlite3.Connection) -> list[str]:
    """Moves every library on an earlier starter to the current one; returns their ids."""
    current = starter().model_dump_json(by_alias=True)
    latest = fingerprint(current)
    moved: list[tuple[str, bool]] = []
    rows = conn.execute("SELECT library_id, ontology, settings FROM graph_settings").fetchall()
    for library_id, ontology, settings in rows:
        try:
            known = fingerprint(ontology)
            on = json.loads(settings).get("strategy", "off") != "off"
        except (ValueError, AttributeError):
            continue  # not ours to judge: left as it is
        if known in STARTERS and known != latest:
            moved.append((library_id, on))
    if moved:
        with transaction(conn):
            conn.executemany(
                "UPDATE graph_settings SET ontology = ?,"
                " needs_rebuild = CASE WHEN ? THEN 1 ELSE needs_rebuild END WHERE library_id = ?",
                [(current, on, library_id) for library_id, on in moved],
            )
    return [library_id for library_id, _on in moved]
