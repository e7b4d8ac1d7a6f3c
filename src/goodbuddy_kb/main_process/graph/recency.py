"""Which of a thing's conflicting relations a newer document superseded.

A system has one owner, a unit one head, a person one manager at a time. When the graph
holds two of them (the 2022 guide says 市场部 owns the CRM, the 2024 notice hands it to 销售运营组),
both are true of some time: the question asks about now ("CRM现在归谁管", "who owns it these
days"), and the document that states a relation says when. A document's date is the latest
date it writes (a notice's "2024年8月20日", a guide's "（2023版）", "1 July 2024") — dates are
what such documents carry, and the file's time on disk says when it was copied, not written.

A relation is superseded when another relation of the same type gives the same thing a
different other end of the same entity type and its newest evidence comes from a later-dated
document. Places, parents and parts are left alone: a unit is in its building and in its city,
part of its centre and of the company, all at once. A relation
whose documents state no date is never superseded, and supersedes nothing: without dates the
graph cannot tell old from new, and keeps both.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

#: The relation types a thing holds one of at a time, with the side (the index in a relation
#: row) that holds it: a thing's owner (the tail of ``owns``), a unit's head, a person's manager.
FUNCTIONAL = {"owns": 3, "led_by": 2, "reports_to": 2}
#: The chunks of a document read for its dates (its first and last: where a notice, a guide or
#: a set of minutes states when it was written).
EDGE_CHUNKS = 4
#: The months by their first three letters.
_MONTH_OF = {
    m: n
    for n, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
_CJK_DATE = re.compile(r"((?:19|20)\d{2})\s*年(?:\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?)?")
_EDITION = re.compile(r"((?:19|20)\d{2})\s*(?:版|年版|edition)", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b((?:19|20)\d{2})[-/.](\d{1,2})[-/.](\d{1,2})\b")
_LATIN_DATE = re.compile(
    r"\b(?:(\d{1,2})\s+)?(" + "|".join(_MONTH_OF) + r")[a-z]*\.?\s+"
    r"(?:(\d{1,2}),?\s+)?((?:19|20)\d{2})\b",
    re.IGNORECASE,
)
_TITLE_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")

Date = tuple[int, int, int]


def _date(year: int, month: int, day: int) -> Date:
    """(year, month, day) with a month or day out of range read as not written (0)."""
    if not 1 <= month <= 12:
        month, day = 0, 0
    return (year, month, day if 1 <= day <= 31 else 0)


def dates_in(text: str) -> list[Date]:
    """The dates ``text`` writes, as (year, month, day); 0 for a month or day not written."""
    found = [
        _date(int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0))
        for m in _CJK_DATE.finditer(text)
    ]
    found += [(int(m.group(1)), 0, 0) for m in _EDITION.finditer(text)]
    found += [
        _date(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in _ISO_DATE.finditer(text)
    ]
    for m in _LATIN_DATE.finditer(text):
        month = _MONTH_OF[m.group(2)[:3].lower()]
        found.append(_date(int(m.group(4)), month, int(m.group(1) or m.group(3) or 0)))
    return found


def document_dates(conn: sqlite3.Connection, document_ids: Sequence[str]) -> dict[str, Date]:
    """Each document's latest written date (its title's year counts): absent when it writes
    none."""
    out: dict[str, Date] = {}
    for document_id in dict.fromkeys(document_ids):
        row = conn.execute(
            "SELECT title, relative_path FROM documents WHERE id = ?", (document_id,)
        ).fetchone()
        if row is None:
            continue
        texts = [
            r[0]
            for r in conn.execute(
                "SELECT content FROM (SELECT content, seq FROM chunks WHERE document_id = ?"
                " AND role != 'parent' ORDER BY seq LIMIT ?)"
                " UNION SELECT content FROM (SELECT content, seq FROM chunks"
                " WHERE document_id = ? AND role != 'parent' ORDER BY seq DESC LIMIT ?)",
                (document_id, EDGE_CHUNKS, document_id, EDGE_CHUNKS),
            )
        ]
        dates = [d for text in texts for d in dates_in(text)]
        title = f"{row[0]} {row[1]}"
        dates += dates_in(title) or [(int(y), 0, 0) for y in _TITLE_YEAR.findall(title)]
        if dates:
            out[document_id] = max(dates)
    return out


def superseded(conn: sqlite3.Connection, relations: Sequence[tuple[str, ...]]) -> set[str]:
    """The ids of the ``relations`` (rows: id, type key, head id, tail id, …) that a relation
    of the same type, giving the same thing another other end, from a later-dated document
    replaced."""
    holders: dict[tuple[str, str], list[tuple[str, ...]]] = {}
    for row in relations:
        if row[1] in FUNCTIONAL:
            holders.setdefault((row[1], row[FUNCTIONAL[row[1]]]), []).append(row)
    shared = [rows for rows in holders.values() if len(rows) > 1]
    if not shared:
        return set()  # (the common case, read without a query)
    ends = {row[5 - FUNCTIONAL[row[1]]] for rows in shared for row in rows}  # (the other end)
    types = dict(
        conn.execute(
            f"SELECT id, type_key FROM graph_entities WHERE id IN ({','.join('?' * len(ends))})",
            sorted(ends),
        ).fetchall()
    )
    conflicts: list[list[tuple[str, ...]]] = []
    for rows in shared:  # (one holder's relations, by the type of their other end)
        by_type: dict[str, list[tuple[str, ...]]] = {}
        for row in rows:
            by_type.setdefault(types.get(row[5 - FUNCTIONAL[row[1]]], ""), []).append(row)
        conflicts += [same for same in by_type.values() if len(same) > 1]
    if not conflicts:
        return set()
    ids = [r[0] for rows in conflicts for r in rows]
    marks = ",".join("?" for _ in ids)
    documents: dict[str, set[str]] = {}
    for relation_id, document_id in conn.execute(
        "SELECT DISTINCT e.relation_id, c.document_id FROM graph_evidence e"
        f" JOIN chunks c ON c.seq = e.chunk_seq WHERE e.relation_id IN ({marks})",
        ids,
    ):
        documents.setdefault(relation_id, set()).add(document_id)
    dated = document_dates(conn, sorted({d for ds in documents.values() for d in ds}))
    out: set[str] = set()
    for rows in conflicts:
        newest = {
            r[0]: max((dated[d] for d in documents.get(r[0], ()) if d in dated), default=None)
            for r in rows
        }
        known = [d for d in newest.values() if d is not None]
        if len(set(known)) < 2:
            continue
        latest = max(known)
        out.update(r for r, d in newest.items() if d is not None and d < latest)
    return out
