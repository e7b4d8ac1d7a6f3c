"""The local extractor: no model, offline, deterministic.

Discovery (`discovery.py`) — candidate entity names from the ontology's cues. Matching — every
known name and alias, folded, longest match wins (`matching.Matcher`). Relations (here) — the
explicit patterns each relation type declares ("{tail}由{head}审批", "{tail} is owned by
{head}"), and sentence-level co-occurrence of two entities whose types exactly one relation type
allows, at a lower confidence. Offsets are always into the chunk's content.

A pattern matches the words between two names after both are squashed alike: articles
("the Payments Team") and modal or filler words (须、统一、进行) do not count. Exactly, it is
worth `PATTERN_CONFIDENCE`; with a few more words on the free side of its literal ("由财务部
统一审批" reads the same as "由财务部审批", "负责维护" as "负责", "的登录依赖" as "依赖") and no
clause break, `LOOSE_CONFIDENCE` — still well above co-occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from goodbuddy_kb.contracts.graph import Ontology, RelationType
from goodbuddy_kb.main_process.graph.discovery import (
    DISCOVERY_CONFIDENCE,
    MAX_CJK_NAME,
    Cues,
    Mention,
    boundaries,
    discover,
    prepare,
)
from goodbuddy_kb.main_process.graph.matching import Match, fold, normalise_name
from goodbuddy_kb.main_process.graph.names import HEAD_ROLES
from goodbuddy_kb.main_process.graph.tables import row_relations

__all__ = [
    "DISCOVERY_CONFIDENCE",
    "MAX_CJK_NAME",
    "Cues",
    "Mention",
    "boundaries",
    "compile_patterns",
    "discover",
    "prepare",
    "relations_in",
]

PATTERN_CONFIDENCE = 0.9
LOOSE_CONFIDENCE = 0.75
COOCCURRENCE_CONFIDENCE = 0.45
_SENTENCE_END = re.compile(r"[。！？；;!?\n]|\.(?:\s|$)")
#: Words that never change what a pattern says: articles and determiners in English; modal,
#: adverb and filler words in Chinese (须经 = 经, 由X统一审批 = 由X审批).
_LATIN_FILLERS = frozenset(
    ["the", "a", "an", "our", "its", "their", "this", "that", "these", "those", "all", "each"]
)
_CJK_FILLERS = re.compile("必须|需要|应当|统一|进行|最终|具体|一律|另行|[须需应均则也还都将会]")
#: The free words a loose match allows on the free side of a pattern's literal.
MAX_FREE_CJK = 8
MAX_FREE_LATIN = 32
_CLAUSE_BREAK = re.compile(r"[，,、：:（）()]")
#: A bracketed other form right after a name (瞿薇（Vivian Qu）负责): not a word of the pattern.
_BRACKET = re.compile(r"^\s*[（(][^（()）]{1,30}[)）]")


_FILLER_CHARS = frozenset("必需应统进最具一另须均则也还都将会")


def squash(text: str) -> str:
    """``text`` (folded) as a pattern compares it: whitespace collapsed, fillers gone."""
    if text.isascii():
        return " ".join(w for w in text.split() if w not in _LATIN_FILLERS)
    if " " not in text and _FILLER_CHARS.isdisjoint(text):
        return text  # the common case between two Chinese names: nothing to squash
    words = [w for w in text.split() if w not in _LATIN_FILLERS]
    return _CJK_FILLERS.sub("", " ".join(words))


@dataclass
class FoundRelation:
    type_key: str
    head: Match
    tail: Match
    confidence: float
    start: int
    end: int
    pattern: str


# -- relations -------------------------------------------------------------------------------
@dataclass(frozen=True)
class CompiledPattern:
    relation: RelationType
    head_first: bool
    before: str  # literal before the first slot, squashed
    between: str
    after: str
    source: str


def compile_patterns(ontology: Ontology) -> list[CompiledPattern]:
    compiled = []
    for relation in ontology.relation_types:
        for pattern in relation.patterns:
            head_first = pattern.index("{head}") < pattern.index("{tail}")
            first, second = ("{head}", "{tail}") if head_first else ("{tail}", "{head}")
            before, rest = pattern.split(first, 1)
            between, after = rest.split(second, 1)
            compiled.append(
                CompiledPattern(
                    relation,
                    head_first,
                    squash(normalise_name(before)),
                    squash(normalise_name(between)),
                    squash(normalise_name(after)),
                    pattern,
                )
            )
    return compiled


def sentences(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


@dataclass
class _RelationPlan:
    """Patterns grouped by the (squashed) text between their slots, the most specific first,
    and the relation types each pair of entity types allows, computed once per ontology."""

    by_between: dict[str, list[CompiledPattern]]
    lengths: tuple[int, ...]
    longest_between: int
    options: dict[tuple[str, str], list[tuple[RelationType, bool]]] = field(default_factory=dict)


_plans: dict[int, tuple[list[CompiledPattern], Ontology, _RelationPlan]] = {}


def _plan(patterns: list[CompiledPattern], ontology: Ontology) -> _RelationPlan:
    cached = _plans.get(id(patterns))
    if cached is not None and cached[0] is patterns and cached[1] is ontology:
        return cached[2]
    by_between: dict[str, list[CompiledPattern]] = {}
    for p in patterns:
        if p.between:
            by_between.setdefault(p.between, []).append(p)
    for group in by_between.values():
        group.sort(key=lambda p: -(len(p.after) + len(p.before)))
    lengths = tuple(sorted({len(b) for b in by_between}, reverse=True))
    plan = _RelationPlan(by_between, lengths, max(lengths, default=0))
    if len(_plans) > 8:
        _plans.clear()
    _plans[id(patterns)] = (patterns, ontology, plan)
    return plan


def _options(
    plan: _RelationPlan, ontology: Ontology, ta: str, tb: str
) -> list[tuple[RelationType, bool]]:
    """(relation type, a is the head) for every typed relation type the two types allow."""
    key = (ta, tb)
    found = plan.options.get(key)
    if found is None:
        found = [
            (r, a_is_head)
            for r in ontology.relation_types
            for a_is_head, (head, tail) in ((True, (ta, tb)), (False, (tb, ta)))
            if r.head_types and r.tail_types and r.allows(head, tail)
        ]
        plan.options[key] = found
    return found


def _free(text: str) -> bool:
    """Whether ``text`` may stand on the free side of a loose match: short, one clause."""
    if not text:
        return True
    if _CLAUSE_BREAK.search(text):
        return False
    latin = text.isascii()
    return len(text) <= (MAX_FREE_LATIN if latin else MAX_FREE_CJK)


def _gap_candidates(
    plan: _RelationPlan, gap: str, adjacent: bool
) -> list[tuple[CompiledPattern, float]]:
    """The patterns whose literal is the gap (exact), or, for two adjacent names, starts or
    ends it with only free words on the other side (loose)."""
    exact = plan.by_between.get(gap)
    if exact:  # the most specific reading there is
        return [(p, PATTERN_CONFIDENCE) for p in exact]
    found: list[tuple[CompiledPattern, float]] = []
    if not adjacent or len(gap) > plan.longest_between + MAX_FREE_LATIN:
        return found
    for k in plan.lengths:
        if k >= len(gap):
            continue
        for literal, free in ((gap[-k:], gap[:-k]), (gap[:k], gap[k:])):
            group = plan.by_between.get(literal)
            if group and _free(free.strip()):
                found.extend((p, LOOSE_CONFIDENCE) for p in group)
    return found


def _typed(
    p: CompiledPattern, a: Match, b: Match, type_of: dict[str, str]
) -> tuple[Match, Match] | None:
    """Head and tail (one entity each) for the pattern, if any entity the two names stand for
    has types the relation allows."""
    first, second = (a, b) if p.head_first else (b, a)
    for h in first.payload:
        for t in second.payload:
            if h != t and p.relation.allows(type_of.get(h, ""), type_of.get(t, "")):
                return (
                    Match(first.start, first.end, first.key, (h,)),
                    Match(second.start, second.end, second.key, (t,)),
                )
    return None


def relations_in(
    text: str,
    mentions: list[Match],
    type_of: dict[str, str],
    patterns: list[CompiledPattern],
    ontology: Ontology,
    folded: str | None = None,
    title: Match | None = None,
) -> list[FoundRelation]:
    """Pattern relations between mentions of one sentence; then, for a clause that names only
    one side, the sentence's topic (its first name, or ``title``, the entity the document's
    title names) as the other side; table rows; then co-occurrence for pairs that nothing
    linked and whose types exactly one relation type allows (``folded``: `fold(text)` when the
    caller has it)."""
    found: list[FoundRelation] = []
    if not mentions or (len(mentions) < 2 and title is None):
        return found
    plan = _plan(patterns, ontology)
    folded = fold(text) if folded is None else folded
    for span, inside in _by_sentence(text, mentions):
        if not inside:
            continue
        linked: set[tuple[int, int]] = set()
        found += _pattern_relations(plan, ontology, folded, span, inside, type_of, linked)
        found += _topic_relations(plan, ontology, folded, span, inside, type_of, linked, title)
        found += _cooccurrences(plan, ontology, inside, type_of, linked, folded)
    if "|" in text:
        for relation, head, tail, start, end in row_relations(text, mentions, type_of, ontology):
            found.append(
                FoundRelation(relation.key, head, tail, LOOSE_CONFIDENCE, start, end, "table row")
            )
    return found


_NEGATION = re.compile(r"不|未|并非|\bnot\b|n't\b|\bno longer\b|\binstead of\b")
_BREAK = re.compile(r"[，,；;：:（）()、]|\s(?:and|but|which|who|while)\s")
_ROLE_GAP = re.compile(
    r"[^，,。；;]{0,8}?(?:" + "|".join(sorted(HEAD_ROLES, key=len, reverse=True)) + r")"
    r"\s*(?:[：:]|是|为|由)?"
)


def negated(gap: str) -> bool:
    """Whether the words between two names deny or end the link (不归, no longer, instead of)."""
    return bool(_NEGATION.search(gap))


def _apposition(
    ontology: Ontology, gap: str, a: Match, b: Match, type_of: dict[str, str]
) -> FoundRelation | None:
    """A unit, a head's role word and a person (财务部经理孙悦, 部长：谭一鸣): led by; a unit
    right before a person (市场部汤磊): member of."""
    if b.payload and type_of.get(b.payload[0]) != "person":
        return None
    role = bool(a.payload) and type_of.get(a.payload[0]) == "role"
    key = (
        "led_by"
        if (gap and _ROLE_GAP.fullmatch(gap)) or (role and not gap)
        else "member_of"
        if not gap
        else None
    )
    relation = next((r for r in ontology.relation_types if r.key == key), None)
    if relation is None or key is None:
        return None
    for h in a.payload:
        if h != b.payload[0] and relation.allows(type_of.get(h, ""), "person"):
            head = Match(a.start, a.end, a.key, (h,))
            tail = Match(b.start, b.end, b.key, (b.payload[0],))
            return FoundRelation(key, head, tail, LOOSE_CONFIDENCE, a.start, b.end, key)
    return None


def _role(a: Match, b: Match, type_of: dict[str, str]) -> bool:
    """A post's name right before a person's (财务总监邵雨桐): read as the role word it is."""
    return (
        a.end == b.start
        and type_of.get(a.payload[0]) == "role"
        and type_of.get(b.payload[0]) == "person"
    )


def _topic_relations(
    plan: _RelationPlan,
    ontology: Ontology,
    folded: str,
    span: tuple[int, int],
    inside: list[Match],
    type_of: dict[str, str],
    linked: set[tuple[int, int]],
    title: Match | None,
) -> list[FoundRelation]:
    """A clause with one name: the other side is the sentence's topic (部长谭一鸣 after
    信息技术部位于B栋3楼; "It is run by …" under the department's title)."""
    found: list[FoundRelation] = []
    first = inside[0]
    opens = not squash(folded[span[0] : first.start]).strip(" *#-0123456789.、)")
    second = {b for _a, b in linked}
    for index, b in enumerate(inside):
        # the sentence's subject, else the last name before (部门下设X组，由Y带领), else the title
        topic = first if opens else inside[index - 1] if index else title
        if topic is None or b is topic or b.start in second or (b.key == topic.key):
            continue
        breaks = [m.end() for m in _BREAK.finditer(folded, span[0], b.start)]
        start = max([span[0], *breaks])
        if topic.end > start:
            continue  # the same clause as the topic: the pairs' patterns read it
        before = inside[index - 1] if index else None
        if before is not None and before.end > start and not _role(before, b, type_of):
            continue  # another name stands between
        gap = squash(folded[start : b.start]).strip()
        if negated(gap):
            continue
        virtual = Match(start, start, topic.key, topic.payload)
        apposed = _apposition(ontology, gap, virtual, b, type_of) if gap else None
        if apposed is not None:
            found.append(apposed)
            linked.add((topic.start, b.start))
            continue
        context = _Context(folded, span, virtual, b)
        for p, confidence in _gap_candidates(plan, gap, adjacent=True) if gap else []:
            typed = _typed(p, virtual, b, type_of) if context.fits(p) else None
            if typed is not None:
                # read across a clause: never surer than a loose match
                sure = min(confidence, LOOSE_CONFIDENCE)
                found.append(FoundRelation(p.relation.key, *typed, sure, start, b.end, p.source))
                linked.add((topic.start, b.start))
                break
    return found


def _by_sentence(text: str, mentions: list[Match]) -> list[tuple[tuple[int, int], list[Match]]]:
    """The mentions of each sentence, in one pass (both lists are in text order)."""
    spans = sentences(text)
    groups: list[list[Match]] = [[] for _ in spans]
    index = 0
    for m in mentions:
        while index < len(spans) and m.start >= spans[index][1]:
            index += 1
        if index < len(spans) and m.end <= spans[index][1]:
            groups[index].append(m)
    return list(zip(spans, groups, strict=True))


def _pattern_relations(
    plan: _RelationPlan,
    ontology: Ontology,
    folded: str,
    span: tuple[int, int],
    inside: list[Match],
    type_of: dict[str, str],
    linked: set[tuple[int, int]],
) -> list[FoundRelation]:
    """Pairs of one sentence that a pattern's literal joins; each linked pair is added to
    ``linked``. Whitespace and articles may stretch the raw text between two names beyond the
    pattern, hence the reach."""
    found: list[FoundRelation] = []
    reach = 3 * plan.longest_between + MAX_FREE_LATIN + 8
    for i, a in enumerate(inside):
        for j in range(i + 1, len(inside)):
            b = inside[j]
            if b.start - a.end > reach:
                break
            gap = squash(folded[a.end : b.start])
            if negated(gap):
                linked.add((a.start, b.start))
                continue
            bare = gap.strip().rstrip("：: ")
            if j == i + 1 and not _CLAUSE_BREAK.search(bare):
                apposed = _apposition(ontology, bare, a, b, type_of)
                if apposed is not None:
                    found.append(apposed)
                    linked.add((a.start, b.start))
                    continue
            candidates = _gap_candidates(plan, gap, adjacent=j == i + 1)
            if not candidates:
                continue
            context = _Context(folded, span, a, b)
            for p, confidence in candidates:
                if not context.fits(p):
                    continue
                typed = _typed(p, a, b, type_of)
                if typed is None:
                    continue
                found.append(
                    FoundRelation(p.relation.key, *typed, confidence, a.start, b.end, p.source)
                )
                linked.add((a.start, b.start))
                break
    return found


class _Context:
    """The words just before the head and just after the tail, read once if a pattern asks."""

    def __init__(self, folded: str, span: tuple[int, int], a: Match, b: Match) -> None:
        self._folded, self._span, self._a, self._b = folded, span, a, b
        self._before: str | None = None
        self._after: str | None = None

    def fits(self, p: CompiledPattern) -> bool:
        if p.before:
            if self._before is None:
                start = max(self._span[0], self._a.start - 24)
                self._before = squash(self._folded[start : self._a.start])
            if not self._before.endswith(p.before):
                return False
        if p.after:
            if self._after is None:
                end = min(self._span[1], self._b.end + 24)
                after = self._folded[self._b.end : end]
                self._after = squash(_BRACKET.sub("", after, count=1))
            if not self._after.startswith(p.after):
                return False
        return True


def _cooccurrences(
    plan: _RelationPlan,
    ontology: Ontology,
    inside: list[Match],
    type_of: dict[str, str],
    linked: set[tuple[int, int]],
    folded: str,
) -> list[FoundRelation]:
    """Pairs of one sentence no pattern linked, whose types exactly one relation type allows,
    unless the words between them deny the link."""
    found: list[FoundRelation] = []
    bound = {start for pair in linked for start in pair}
    for i, a in enumerate(inside):
        ta = type_of[a.payload[0]]
        for b in inside[i + 1 :]:
            if a.key == b.key or set(a.payload) & set(b.payload):
                continue
            if {a.start, b.start} & bound:
                continue  # the sentence's grammar related them already
            tb = type_of[b.payload[0]]
            if ta == tb:
                continue
            options = _options(plan, ontology, ta, tb)
            if len(options) == 1 and not negated(folded[a.end : b.start]):
                r, a_is_head = options[0]
                head, tail = (a, b) if a_is_head else (b, a)
                found.append(
                    FoundRelation(
                        r.key, head, tail, COOCCURRENCE_CONFIDENCE, a.start, b.end, "co-occurrence"
                    )
                )
    return found
