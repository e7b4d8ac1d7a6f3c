"""What a clause without a side of its own is about: the reference a sentence opens with (本制度,
it, 该部门, the project), the business a rule document governs (还须经财务总监审批 approves
the 报销申请 named before, not the rule), and the relation words before a person's title
(请联系工厂IT驻场工程师严可). Used by `sentences`."""

from __future__ import annotations

import re

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph.local import (
    COOCCURRENCE_CONFIDENCE,
    CompiledPattern,
    FoundRelation,
    RelationPlan,
    gap_candidates,
    negated,
    squash,
)
from goodbuddy_kb.main_process.graph.matching import Match
from goodbuddy_kb.main_process.graph.names import ROLES_ZH

_NUMBERING = re.compile(
    r"^[\s*#>\-]*(?:第[一二三四五六七八九十百\d]+[条章节款]|\d+[.、)）]|[一二三四五六七八九十]+、|[-*])?\s*"
)
_NUMBERING_STARTS = frozenset(" \t*#>-第0123456789一二三四五六七八九十")


def unnumbered(words: str) -> str:
    """``words`` without the list mark or article number it opens with (- , 1. , 第三条)."""
    return _NUMBERING.sub("", words, count=1)


#: First characters of the short references below.
_REFERENCE_STARTS = frozenset("itswhob本该部委小项中")
#: A sentence's opening reference to the document itself (本制度由…负责解释).
_TITLE_REFERENCE = re.compile(
    r"^(?:本(?:制度|规范|办法|规定|细则|流程|手册|通知|部门|中心)|(?:this|the) (?:policy|procedure|process|document|guide|handbook|page)\b)"
)
#: Short references at a sentence's start to a person, or to anything else, named before.
_PERSON_REFERENCE = re.compile(r"^(?:she|he)\b")
_THING_REFERENCE = re.compile(
    r"^(?:(?:it|they|we)(?=\s)|(?:the|our) (department|team|group|project|board|committee|unit|system"
    r"|subsidiary|company|division|section|office)\b"
    r"|该|本部门|本组|部门|委员会|小组|项目组|中心(?=下设|设有|下辖|负责|由))"
)
#: 该 and the kind word of what it refers to (该组 → the last name ending in 组).
_NAMED_KIND = re.compile(r"该(部门|中心|平台|系统|小组|团队|委员会|项目|组|部|科)")
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
    named = _NAMED_KIND.match(opening)  # 该组, 该平台: the last name of that kind
    alike = [m for m in fits if m.key.endswith(named.group(1))] if named else []
    if alike:
        return alike[-1], False
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
    for entity in business.payload:
        moved = Match(virtual.start, virtual.end, business.key, (entity,))
        h, t = (moved, tail) if head.key == virtual.key else (head, moved)
        if h.payload[0] != t.payload[0] and p.relation.allows(
            type_of.get(h.payload[0], ""), type_of.get(t.payload[0], "")
        ):
            return h, t
    return None


#: A question-and-answer label at a line's start (A：, 答：): no word of the sentence.
_ANSWER_LABEL = re.compile(r"\s*(?:[qa]|问|答)\s*[:：]\s*$")


def opens_sentence(before: str) -> bool:
    """Whether a sentence's first name opens it: nothing before it but numbering, list marks
    or an answer's label."""
    words = squash(before).strip(" *#-0123456789.、)")
    return not words or bool(_ANSWER_LABEL.fullmatch(words))


def actor(
    ontology: Ontology,
    folded: str,
    span: tuple[int, int],
    first: Match,
    type_of: dict[str, str],
    title: Match,
) -> list[FoundRelation]:
    """A step of a process's own document whose subject is a unit or a person and that says
    nothing else of it (信息安全组在30分钟内完成初步定级): the subject takes part in the process,
    the weakest reading of all."""
    if type_of.get(title.payload[0]) != "process" or first.key == title.key:
        return []
    if negated(folded[first.end : span[1]]):
        return []
    owns = next((r for r in ontology.relation_types if r.key == "owns"), None)
    if owns is None or not owns.allows(type_of.get(first.payload[0], ""), "process"):
        return []
    virtual = Match(span[1], span[1], title.key, title.payload)
    head = Match(first.start, first.end, first.key, (first.payload[0],))
    return [
        FoundRelation(
            "owns", head, virtual, COOCCURRENCE_CONFIDENCE, first.start, first.end, "actor"
        )
    ]


_LISTED = frozenset(["和", "与", "及", "、", "以及", "或"])


def modified(folded: str, inside: list[Match]) -> dict[int, int]:
    """For each name a list of names modifies (A和B的C), the index of the list's first name."""
    found: dict[int, int] = {}
    for k in range(len(inside) - 1):
        if folded[inside[k].end : inside[k + 1].start] != "的":
            continue
        first = k
        while first > 0 and folded[inside[first - 1].end : inside[first].start] in _LISTED:
            first -= 1
        found[k + 1] = first
    return found


#: A name written in one script with its other form before it, the name in brackets: "HQ Finance
#: (财务部)", "the ticketing system (售后工单系统)". The words before the bracket are the bracketed
#: name's, not the sentence's: capitalised words, or plain ones after an article.
_OTHER_FORM = re.compile(
    r"(?:\b[A-Z][\w&.-]*(?:\s+(?:&\s+|of\s+)?[A-Z][\w&.-]*){0,3}"
    r"|\b(?:[Tt]he|[Oo]ur)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})\s*[（(]\s*$"
)


def with_other_forms(text: str, mentions: list[Match]) -> list[Match]:
    """``mentions`` with each bracketed name that another form of it in the other script opens
    (no name itself) widened over that form and its brackets: "is owned by HQ Finance (财务部)"
    reads as "is owned by 财务部"."""
    out: list[Match] = []
    for i, m in enumerate(mentions):
        closed = text[m.end : m.end + 1] in (")", "）")
        before = _OTHER_FORM.search(text, max(0, m.start - 48), m.start) if closed else None
        if (
            before is not None
            and before.end() == m.start
            and (text[m.start].isascii() != text[before.start()].isascii())
            and not (i and mentions[i - 1].end > before.start())
        ):
            start = before.start() + (
                4 if text[before.start() : before.start() + 4].lower() in ("the ", "our ") else 0
            )
            out.append(Match(start, m.end + 1, m.key, m.payload))
        else:
            out.append(m)
    return out


#: A given name standing alone: capitalised, not followed by another capitalised word (which
#: would make it another person's full name), possibly with a possessive ("Aisyah's team").
_GIVEN = re.compile(r"\b([A-Z][a-z]{1,15})\b(?!\s+[A-Z])")


def by_given_name(
    text: str,
    mentions: list[Match],
    type_of: dict[str, str],
    people: dict[str, tuple[str, ...]],
) -> list[Match]:
    """``mentions`` with each given name alone that a person of the document was named by in full
    before ("The AU Sales team is run by Liam Fraser, and Liam reports to Grace Lin"):
    ``people``, given name → the person, the document's so far, which the people named in full
    here join (a name two people share refers to no one). English notes call people by their
    given name once introduced."""
    for m in mentions:
        first = text[m.start : m.end].split(" ", 1)
        if len(first) == 2 and type_of.get(m.payload[0]) == "person" and first[0].isascii():
            people[first[0]] = tuple(dict.fromkeys((*people.get(first[0], ()), *m.payload)))
    if not people:
        return mentions
    taken = [(m.start, m.end) for m in mentions]
    found = [
        Match(m.start(1), m.end(1), m.group(1).casefold(), people[m.group(1)])
        for m in _GIVEN.finditer(text)
        if m.group(1) in people
        and len(people[m.group(1)]) == 1
        and not any(s < m.end(1) and m.start(1) < e for s, e in taken)
    ]
    return sorted([*mentions, *found], key=lambda m: (m.start, m.end)) if found else mentions
