"""What a clause without a side of its own is about: the reference a sentence opens with (本制度,
it, 该部门, the project), the business a rule document governs (还须经财务总监审批 approves
the 报销申请 named before, not the rule), and the relation words before a person's title
(请联系工厂IT驻场工程师严可). Used by `sentences`."""

from __future__ import annotations

import re

from goodbuddy_kb.main_process.graph.local import (
    CompiledPattern,
    RelationPlan,
    gap_candidates,
    typed_pair,
)
from goodbuddy_kb.main_process.graph.matching import Match
from goodbuddy_kb.main_process.graph.names import ROLES_ZH

_NUMBERING = re.compile(
    r"^[\s*#>\-]*(?:第[一二三四五六七八九十百\d]+[条章节款]|\d+[.、)）]|[-*])?\s*"
)
_NUMBERING_STARTS = frozenset(" \t*#>-第0123456789")


def unnumbered(words: str) -> str:
    """``words`` without the list mark or article number it opens with (- , 1. , 第三条)."""
    return _NUMBERING.sub("", words, count=1)


#: First characters of the short references below.
_REFERENCE_STARTS = frozenset("itswhb本该部委小项")
#: A sentence's opening reference to the document itself (本制度由…负责解释).
_TITLE_REFERENCE = re.compile(
    r"^(?:本(?:制度|规范|办法|规定|细则|流程|手册|通知|部门|中心)|this (?:policy|procedure|document|guide|handbook))"
)
#: Short references at a sentence's start to a person, or to anything else, named before.
_PERSON_REFERENCE = re.compile(r"^(?:she|he)\b")
_THING_REFERENCE = re.compile(
    r"^(?:(?:it|they|we)(?=\s)|the (department|team|group|project|board|committee|unit|system"
    r"|subsidiary|company|division|section|office)\b"
    r"|该|本部门|本组|部门|委员会|小组|项目组)"
)
#: The type a short reference's noun names (the project → a project).
_REFERENCE_TYPES = {
    "department": "organization",
    "team": "organization",
    "group": "organization",
    "board": "organization",
    "committee": "organization",
    "unit": "organization",
    "subsidiary": "organization",
    "company": "organization",
    "division": "organization",
    "section": "organization",
    "office": "organization",
    "project": "project",
    "system": "system",
}


def referent(
    folded: str,
    span: tuple[int, int],
    earlier: list[Match],
    type_of: dict[str, str],
    title: Match | None,
) -> tuple[Match | None, bool]:
    """What a sentence's opening short reference stands for — 本制度, this policy: the
    document's title; it, she, the project, 该部门, 委员会: the previous sentence's subject,
    else its last name of the right kind, else the title — and whether only a clause without
    a subject of its own may take it (the title, when nothing refers to it)."""
    opening = folded[span[0] : span[0] + 24]
    if opening[:1] in _NUMBERING_STARTS:
        opening = _NUMBERING.sub("", opening)
    if opening[:1] not in _REFERENCE_STARTS:
        return title, True  # (the common case, without a regular expression)
    if _TITLE_REFERENCE.match(opening):
        return title, False
    person = bool(_PERSON_REFERENCE.match(opening))
    thing = _THING_REFERENCE.match(opening)
    if not (person or thing):
        return title, True
    kind = _REFERENCE_TYPES.get(thing.group(1) or "", "") if thing else "person"
    candidates = [*earlier, title] if title is not None else earlier
    if kind:  # the project, the department, 该部门: the last name of that type
        fits = [m for m in candidates if type_of.get(m.payload[0]) == kind]
        return (fits[-1] if fits else None), False
    fits = [m for m in earlier if type_of.get(m.payload[0]) != "person"]
    if not fits:
        return title, False
    return (fits[0] if fits[0] is earlier[0] else fits[-1]), False


#: A person's title right before their name, with what qualifies it (工厂IT驻场工程师).
_PERSON_TITLE = re.compile(r"[^，,。；;：:、\s]{0,10}?(?:" + "|".join(ROLES_ZH) + r")$")


def before_title(plan: RelationPlan, gap: str) -> list[tuple[CompiledPattern, float]]:
    """The patterns of the words before a person's title that ends ``gap``, the title as
    short as a pattern allows."""
    if _PERSON_TITLE.search(gap) is None:
        return []
    for cut in range(len(gap) - 1, 0, -1):
        if _PERSON_TITLE.fullmatch(gap, cut):
            found = gap_candidates(plan, gap[:cut].strip(), adjacent=True)
            if found:
                return found
    return []


def business_of(earlier: list[Match], type_of: dict[str, str]) -> Match | None:
    """The piece of business (a process) the document's earlier sentences last named: what a
    rule's clause without a subject is about (报销申请… / 还须经财务总监审批: the claim is
    approved, not the policy)."""
    return next((m for m in reversed(earlier) if type_of.get(m.payload[0]) == "process"), None)


def for_business(
    p: CompiledPattern,
    typed: tuple[Match, Match],
    virtual: Match,
    business: Match,
    type_of: dict[str, str],
) -> tuple[Match, Match] | None:
    """``typed`` with the business in place of a rule document that stands in for the clause's
    missing side, where the relation allows the business there."""
    head, tail = typed
    if type_of.get(virtual.payload[0]) != "policy":
        return None
    moved = Match(virtual.start, virtual.end, business.key, business.payload)
    pair = (moved, tail) if head.key == virtual.key else (head, moved)
    return typed_pair(p, *pair, type_of) if p.head_first else typed_pair(p, *pair[::-1], type_of)
