"""Relations stated by a Markdown table row: the first cell is the row's subject, and each other
cell under a header that names a relation type (负责部门 → the type whose words include it,
联系人, Owner) is related to it by that type."""

from __future__ import annotations

import re
from collections.abc import Iterable

from goodbuddy_kb.contracts.graph import Ontology, RelationType
from goodbuddy_kb.main_process.graph.matching import Match

_ROW = re.compile(r"^\|(.+)\|[ \t]*$", re.MULTILINE)


#: A unit's kind word ending a header: "负责团队" is the relation 负责 (owns) with a team at its end.
_KIND_AT_END = re.compile(r"\s*(?:团队|部门|小组|单位|组|teams?|departments?|groups?|units?)$")


def _relation_of(header: str, ontology: Ontology) -> list[RelationType]:
    folded = header.strip().casefold()
    if not folded:
        return []
    found = [
        r
        for r in ontology.relation_types
        if any(
            a.casefold() == folded or (len(a) >= 3 and a.casefold() in folded) for a in r.aliases
        )
    ]
    bare = _KIND_AT_END.sub("", folded)
    if found or not bare or bare == folded:
        return found
    return [
        r
        for r in ontology.relation_types
        if bare in {w.casefold() for w in (r.name_zh, r.name_en, *r.aliases)}
    ]


def row_relations(
    text: str, mentions: list[Match], type_of: dict[str, str], ontology: Ontology
) -> Iterable[tuple[RelationType, Match, Match, int, int]]:
    """(relation type, head, tail, start, end of the row) for the rows of each table in
    ``text``."""
    rows = list(_ROW.finditer(text))
    header: list[list[RelationType]] | None = None
    last_end = -2
    for row in rows:
        if row.start() > last_end + 1:  # a new table starts: this row is its header
            header = [_relation_of(h, ontology) for h in row.group(1).split("|")]
            last_end = row.end()
            continue
        last_end = row.end()
        if header is None:
            continue
        cells: list[tuple[int, int]] = []
        offset = row.start(1)
        for cell in row.group(1).split("|"):
            cells.append((offset, offset + len(cell)))
            offset += len(cell) + 1
        inside = [[m for m in mentions if s <= m.start and m.end <= e] for s, e in cells]
        if not inside or not inside[0]:
            continue
        subject = inside[0][0]
        for column, found in enumerate(inside[1:], 1):
            options = header[column] if column < len(header) else []
            for other in found[:1]:
                for relation in options:
                    pair = _typed(relation, subject, other, type_of)
                    if pair is not None:
                        yield relation, pair[0], pair[1], row.start(), row.end()
                        break


def _typed(
    relation: RelationType, a: Match, b: Match, type_of: dict[str, str]
) -> tuple[Match, Match] | None:
    for head, tail in ((a, b), (b, a)):
        for h in head.payload:
            for t in tail.payload:
                if h != t and relation.allows(type_of.get(h, ""), type_of.get(t, "")):
                    return (
                        Match(head.start, head.end, head.key, (h,)),
                        Match(tail.start, tail.end, tail.key, (t,)),
                    )
    return None
