"""The local extractor: no model, offline, deterministic.

Discovery (`discovery.py`, `names.py`) — candidate entity names from the ontology's cues and
the shapes of names. Matching — every known name and alias, folded, longest match wins
(`matching.Matcher`). Relation patterns (here) — the explicit patterns each relation type
declares ("{tail}由{head}审批", "{tail} is owned by {head}"), compiled once, and how the words
between two names are read against them; `sentences.py` applies them sentence by sentence.
Offsets are always into the chunk's content.

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
from goodbuddy_kb.main_process.graph.matching import Match, normalise_name

__all__ = [
    "DISCOVERY_CONFIDENCE",
    "MAX_CJK_NAME",
    "Cues",
    "Mention",
    "boundaries",
    "compile_patterns",
    "discover",
    "prepare",
]

PATTERN_CONFIDENCE = 0.9
LOOSE_CONFIDENCE = 0.75
COOCCURRENCE_CONFIDENCE = 0.45
_SENTENCE_END = re.compile(r"[。！？；;!?\n]|(?<!\bLtd)(?<!\bInc)(?<!\bCo)(?<!\bNo)\.(?:\s|$)")
#: Words that never change what a pattern says: articles and determiners in English; modal,
#: adverb and filler words in Chinese (须经 = 经, 由X统一审批 = 由X审批).
_LATIN_FILLERS = frozenset(
    (
        *("the", "a", "an", "our", "its", "their", "this", "that", "these", "those", "all"),
        "each",
        # the auxiliaries, modals and adverbs of an English verb group: "are owned by", "must
        # also be signed off by" and "was replaced by" say what "owned by", "signed off by" say
        *("is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "will"),
        *("must", "should", "shall", "may", "can", "also", "directly", "now", "first", "then"),
    )
)
_CJK_FILLERS = re.compile(
    "必须|需要|应当|统一|进行|最终|具体|一律|另行|[须需应均则也还都将会]"
    # a date the change takes effect on (自2024年7月1日起移交…): when, not what
    r"|[自从]?\d{4}年(?:\d{1,2}月(?:\d{1,2}日)?)?起?"
)
#: The free words a loose match allows on the free side of a pattern's literal.
MAX_FREE_CJK = 8
MAX_FREE_LATIN = 32
CLAUSE_BREAK = re.compile(r"[，,、：:（）()]")
#: A bracketed other form right after a name (瞿薇（Vivian Qu）负责): not a word of the pattern.
BRACKET = re.compile(r"^\s*[（(][^（()）]{1,30}[)）]")


_FILLER_CHARS = frozenset("必需应统进最具一另须均则也还都将会")


_ORDINAL = re.compile(r"\d{1,2}(?:st|nd|rd|th)|ground|first|second|third|fourth|fifth|sixth|top")


def squash(text: str) -> str:
    """``text`` (folded) as a pattern compares it: whitespace collapsed, fillers gone."""
    latin = text.isascii()
    if not latin and " " not in text and _FILLER_CHARS.isdisjoint(text) and "年" not in text:
        return text  # the common case between two Chinese names: nothing to squash
    words = [w for w in text.split() if w not in _LATIN_FILLERS]
    if words[-2:] == ["head", "of"]:
        del words[-2:]  # "signed off by the head of QA": QA signs it off
    elif words[-3:-1] == ["head", "of"] and len(words) > 3:
        del words[-3:]  # "is run by Head of Sales Liam Fraser": the post before its holder
    if words[-2:] == ["floor", "of"] and len(words) > 2 and _ORDINAL.fullmatch(words[-3]):
        del words[-3:]  # "sits on the 4th floor of Harbour Tower": in the building
    return " ".join(words) if latin else _CJK_FILLERS.sub("", " ".join(words))


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
class RelationPlan:
    """Patterns grouped by the (squashed) text between their slots, the most specific first,
    and the relation types each pair of entity types allows, computed once per ontology."""

    by_between: dict[str, list[CompiledPattern]]
    lengths: tuple[int, ...]
    longest_between: int
    options: dict[tuple[str, str], list[tuple[RelationType, bool]]] = field(default_factory=dict)
    #: Whether a pattern's relation type allows two names of these types in the pattern's
    #: order (keyed by the pattern's source and the two types).
    allowed: dict[tuple[str, str, str], bool] = field(default_factory=dict)

    def allows(self, p: CompiledPattern, first: str, second: str) -> bool:
        key = (p.source, first, second)
        found = self.allowed.get(key)
        if found is None:
            found = self.allowed[key] = (
                p.relation.allows(first, second)
                if p.head_first
                else p.relation.allows(second, first)
            )
        return found


_plans: dict[int, tuple[list[CompiledPattern], Ontology, RelationPlan]] = {}


def plan_for(patterns: list[CompiledPattern], ontology: Ontology) -> RelationPlan:
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
    plan = RelationPlan(by_between, lengths, max(lengths, default=0))
    if len(_plans) > 8:
        _plans.clear()
    _plans[id(patterns)] = (patterns, ontology, plan)
    return plan


def allowed_options(
    plan: RelationPlan, ontology: Ontology, ta: str, tb: str
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


#: "X and sits on Y": a verb after "and" is its clause's subject's, not the name before's.
_COORDINATED_VERB = re.compile(r"(?:^|\s)(?:and|but|or)\s*$")


def _free(text: str) -> bool:
    """Whether ``text`` may stand on the free side of a loose match: short, one clause."""
    if not text:
        return True
    if CLAUSE_BREAK.search(text):
        return False
    latin = text.isascii()
    return len(text) <= (MAX_FREE_LATIN if latin else MAX_FREE_CJK)


def gap_candidates(
    plan: RelationPlan, gap: str, adjacent: bool
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
            if group and _free(free.strip()) and not _COORDINATED_VERB.search(free):
                found.extend((p, LOOSE_CONFIDENCE) for p in group)
    return found


def typed_pair(
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


class Context:
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
                after = squash(BRACKET.sub("", self._folded[self._b.end : end], count=1))
                # 由基础架构组组长电话批准: the unit's head acts for the unit
                self._after = after[len(head) :] if (head := _head_role(after)) else after
            if not self._after.startswith(p.after) and not _modified_verb(self._after, p.after):
                return False
        return True


#: The words for a unit's head right after the unit's name (采购科科长, 基础架构组组长).
UNIT_HEADS = ("组长", "部长", "科长", "处长", "主任", "经理", "总监", "负责人")


def _head_role(after: str) -> str:
    return next((h for h in UNIT_HEADS if after.startswith(h)), "")


#: Chinese characters an adverb or a verb's modifier may take before a pattern's closing verb
#: (由X归口管理, 由X集中维护): the verb still closes the pattern.
MODIFIER_REACH = 3


def _modified_verb(after: str, literal: str) -> bool:
    """Whether ``after`` opens with a short Chinese modifier and then ``literal`` (a verb)."""
    at = after.find(literal, 1, MODIFIER_REACH + len(literal))
    return not literal.isascii() and at > 0 and all("\u4e00" <= ch <= "\u9fff" for ch in after[:at])


_NEGATION = re.compile(r"不|未|并非|\bnot\b|n't\b|\bno longer\b|\binstead of\b")

_NEGATION_HINTS = ("不", "未", "非", "not", "n't", "no longer", "instead")


def negated(gap: str) -> bool:
    """Whether the words between two names deny or end the link (不归, no longer, instead of)."""
    return any(h in gap for h in _NEGATION_HINTS) and bool(_NEGATION.search(gap))
