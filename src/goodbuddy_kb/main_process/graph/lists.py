"""Names listed with one side of a relation share it: after the later side (营销中心下设市场部和
销售运营组; members are X and Y) and before the earlier one ("A and B, which are owned by C")."""

from __future__ import annotations

import re

from goodbuddy_kb.main_process.graph.local import FoundRelation
from goodbuddy_kb.main_process.graph.matching import Match

_CONJUNCTION = re.compile(r"\s*(?:、|和|及|与|以及|或|,|，|;|and|or|, and|as well as)\s*")
_BRACKETED = re.compile(r"[（(][^（）()]*[)）]")


def lists(
    folded: str, inside: list[Match], here: list[FoundRelation], type_of: dict[str, str]
) -> list[FoundRelation]:
    """Names listed after one that a relation reached share its relation (营销中心下设市场部和
    销售运营组; 下设四个团队：A（组长…）、B和C; members are X and Y)."""
    out = _lists_before(folded, inside, here, type_of) + _places_within(
        folded, inside, here, type_of
    )
    for rel in here:
        listed_head = rel.head.start > rel.tail.start  # the list continues the later side
        last = rel.head if listed_head else rel.tail
        kind = type_of.get(last.payload[0])
        for z in inside:
            if z.start < last.end:
                continue
            raw = folded[last.end : z.start]
            gap = _BRACKETED.sub("", raw)
            if gap.strip() in (",", ";") and not z.key.isascii():
                break  # a Chinese comma ends a clause; its list words are 、和及与
            if _CONJUNCTION.fullmatch(gap) and type_of.get(z.payload[0]) == kind:
                swapped = Match(z.start, z.end, z.key, (z.payload[0],))
                head, tail = (swapped, rel.tail) if listed_head else (rel.head, swapped)
                if head.payload[0] != tail.payload[0]:
                    out.append(
                        FoundRelation(
                            rel.type_key, head, tail, rel.confidence, rel.start, z.end, rel.pattern
                        )
                    )
                last = z
            elif raw.count("（") + raw.count("(") <= raw.count("）") + raw.count(")"):
                break  # not a list item, nor inside a bracket after one
    return out


#: The conjunctions of a list before a relation's first side (a bare comma ends a clause).
_AND = re.compile(r"\s*(?:、|和|及|与|以及|或|and|or|, and|,? as well as)\s*")


def _lists_before(
    folded: str, inside: list[Match], here: list[FoundRelation], type_of: dict[str, str]
) -> list[FoundRelation]:
    """Names listed before the earlier side of a relation share it ("A and B, which are owned
    by C": A is owned by C too)."""
    out: list[FoundRelation] = []
    for rel in here:
        head_first = rel.head.start < rel.tail.start
        first = rel.head if head_first else rel.tail
        kind = type_of.get(first.payload[0])
        for z in reversed(inside):
            if z.end > first.start:
                continue
            gap = _BRACKETED.sub("", folded[z.end : first.start])
            if not _AND.fullmatch(gap) or type_of.get(z.payload[0]) != kind:
                break
            listed = Match(z.start, z.end, z.key, (z.payload[0],))
            head, tail = (listed, rel.tail) if head_first else (rel.head, listed)
            if head.payload[0] != tail.payload[0]:
                out.append(
                    FoundRelation(
                        rel.type_key, head, tail, rel.confidence, z.start, rel.end, rel.pattern
                    )
                )
            first = z
    return out


#: Words between a place and a place it is in: "Leeds, on the third floor of Mill House",
#: "Building C at the Porto headquarters", 上海市闵行区.
_WITHIN = re.compile(r"(?:\s*,)?\s*(?:on|in|at|of|inside)\b[^,;.()]{0,30}?\s*|")


def _places_within(
    folded: str, inside: list[Match], here: list[FoundRelation], type_of: dict[str, str]
) -> list[FoundRelation]:
    """Where something is located, the places the sentence nests that place in (or names inside
    it) right after it locate it too."""
    out: list[FoundRelation] = []
    for rel in here:
        if rel.type_key != "located_in" or rel.tail.start < rel.head.end:
            continue
        last = rel.tail
        for z in inside:
            if z.start < last.end:
                continue
            if type_of.get(z.payload[0]) != "location" or not _WITHIN.fullmatch(
                folded[last.end : z.start]
            ):
                break
            if z.payload[0] not in (rel.head.payload[0], last.payload[0]):
                place = Match(z.start, z.end, z.key, (z.payload[0],))
                out.append(
                    FoundRelation(
                        rel.type_key, rel.head, place, rel.confidence, rel.start, z.end, rel.pattern
                    )
                )
            last = z
    return out
