"""The local extractor: no model, offline, deterministic.

Discovery — candidate entity names from the cues each entity type declares (name suffixes and
prefixes such as 部、中心、System), defined-term patterns ("X（简称 Y）", "所谓 X", "X means")
and headings that carry a cue. Matching — every known name and alias, folded, longest match
wins (`matching.Matcher`). Relations — the explicit patterns each relation type declares
("{tail}由{head}审批"), and sentence-level co-occurrence of two entities whose types exactly one
relation type allows, at a lower confidence. Offsets are always into the chunk's content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import ahocorasick

from goodbuddy_kb.contracts.graph import Ontology, RelationType
from goodbuddy_kb.main_process.graph.matching import Match, fold, normalise_name

PATTERN_CONFIDENCE = 0.9
COOCCURRENCE_CONFIDENCE = 0.45
DISCOVERY_CONFIDENCE = 0.7
MAX_CJK_NAME = 10
#: Characters that end a Chinese name when scanning away from a cue (function words, verbs
#: that introduce a name, punctuation is handled separately).
_CJK_STOPS = set("由的和与及在对向将把被为是了从至到或并给跟每各该本其此请已未不也都而且则如若当")
#: 按、据、归、须、需、应、等、同 are left out: they sit inside names as often as between them
#: (供应链管理部、数据智能部、合同管理规定); the relation patterns' words (须经、需经 …) still
#: end a name.
_SENTENCE_END = re.compile(r"[。！？；;!?\n]|\.(?:\s|$)")
_DEFINED = [
    re.compile(
        r"([\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9 ]{1,30})[（(]\s*(?:简称|以下简称)[“\"]?([^）)”\"]{1,20})[”\"]?\s*[）)]"
    ),
    re.compile(r"所谓[“\"]?([\u4e00-\u9fffA-Za-z0-9]{2,20})[”\"]?"),
    re.compile(r"[“\"]([^”\"]{2,30})[”\"]\s*(?:是指|指的是|means|refers to)"),
    re.compile(r"\b([A-Z][A-Za-z0-9-]*(?:\s+[A-Z][A-Za-z0-9-]*){0,4})\s+(?:means|refers to)\b"),
]


@dataclass(frozen=True)
class Mention:
    type_key: str
    name: str
    start: int
    end: int
    confidence: float
    aliases: tuple[str, ...] = ()


@dataclass
class FoundRelation:
    type_key: str
    head: Match
    tail: Match
    confidence: float
    start: int
    end: int
    pattern: str


@dataclass
class ChunkExtraction:
    mentions: list[Match] = field(default_factory=list)
    relations: list[FoundRelation] = field(default_factory=list)


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or "\uf900" <= ch <= "\ufaff"


def boundaries(ontology: Ontology) -> frozenset[str]:
    """Words a Chinese name never runs across: the literal parts of every relation pattern
    (由、审批、隶属于、依赖 …)."""
    words: set[str] = set()
    for relation in ontology.relation_types:
        for pattern in relation.patterns:
            for piece in re.split(r"\{head\}|\{tail\}", pattern):
                words.update(run for run in re.findall(r"[\u4e00-\u9fff]+", fold(piece)))
    return frozenset(words)


def _stop_ends(folded: str, stops: frozenset[str]) -> set[int]:
    """Every position where a boundary word ends in ``folded``."""
    if not stops:
        return set()
    pattern = _stop_pattern(stops)
    return {m.start() + len(m.group(1)) for m in pattern.finditer(folded)}


_patterns: dict[frozenset[str], re.Pattern[str]] = {}


def _stop_pattern(stops: frozenset[str]) -> re.Pattern[str]:
    compiled = _patterns.get(stops)
    if compiled is None:
        words = sorted(stops, key=len, reverse=True)
        # a lookahead finds overlapping occurrences too
        compiled = re.compile("(?=(" + "|".join(re.escape(w) for w in words) + "))")
        _patterns[stops] = compiled
    return compiled


def _cjk_before(text: str, end: int, cue: str, stop_ends: set[int]) -> int | None:
    """Start of the Chinese name that ends with ``cue`` at ``end`` (exclusive), or None."""
    start = end - len(cue)
    i = start
    while i > 0 and start - i < MAX_CJK_NAME - len(cue):
        ch = text[i - 1]
        # a pattern word right before the cue is part of the name (采购审批平台), not a boundary
        if not _is_cjk(ch) or ch in _CJK_STOPS or (i in stop_ends and i < start):
            break
        i -= 1
    return i if i < start else None


_LATIN_STOPS = {
    "The",
    "A",
    "An",
    "Our",
    "This",
    "That",
    "Each",
    "Every",
    "Any",
    "All",
    "If",
    "When",
}


def _latin_words_before(text: str, start: int, limit: int = 4) -> int | None:
    """Start of up to ``limit`` capitalised words right before ``start`` (no leading article)."""
    words = list(re.finditer(r"[A-Z][A-Za-z0-9&-]*\s+", text[max(0, start - 120) : start]))
    base = max(0, start - 120)
    first = None
    expected_end = start
    for m in reversed(words):
        if base + m.end() != expected_end or m.group().strip() in _LATIN_STOPS:
            break
        first = base + m.start()
        expected_end = first
        limit -= 1
        if limit == 0:
            break
    return first


@dataclass(frozen=True)
class Cues:
    """An ontology's discovery cues, folded and in two automata (suffixes, prefixes), built once
    per extraction run and reused for every chunk."""

    suffixes: Any
    prefixes: Any
    heading_suffixes: tuple[tuple[str, tuple[str, ...]], ...]
    stops: frozenset[str]
    terms: bool


def _automaton(cues: dict[str, list[str]]) -> Any:
    if not cues:
        return None
    automaton = ahocorasick.Automaton()
    for key, types in cues.items():
        automaton.add_word(key, (key, tuple(dict.fromkeys(types))))
    automaton.make_automaton()
    return automaton


def prepare(ontology: Ontology) -> Cues:
    suffixes: dict[str, list[str]] = {}
    prefixes: dict[str, list[str]] = {}
    for etype in ontology.entity_types:
        for cue in etype.suffixes:
            if fold(cue):
                suffixes.setdefault(fold(cue), []).append(etype.key)
        for cue in etype.prefixes:
            if fold(cue):
                prefixes.setdefault(fold(cue), []).append(etype.key)
    return Cues(
        _automaton(suffixes),
        _automaton(prefixes),
        tuple((t.key, tuple(fold(c) for c in t.suffixes if c)) for t in ontology.entity_types),
        boundaries(ontology),
        any(t.key == "term" for t in ontology.entity_types),
    )


def discover(
    text: str,
    ontology: Ontology,
    heading: str | None = None,
    stops: frozenset[str] | None = None,
    cues: Cues | None = None,
    folded: str | None = None,
) -> list[Mention]:
    """Candidate entity names in ``text`` from the ontology's cues and defined-term patterns
    (``cues``: `prepare(ontology)` and ``folded``: `fold(text)`, computed once by a caller that
    runs many chunks; ``stops`` is kept for callers that pass `boundaries(ontology)`)."""
    found: list[Mention] = []
    cues = prepare(ontology) if cues is None else cues
    folded = fold(text) if folded is None else folded
    stop_ends: set[int] | None = None
    if cues.suffixes is not None:
        for end_index, (key, types) in cues.suffixes.iter(folded):
            end = end_index + 1
            position = end - len(key)
            if len(key) == 1 and folded[position : end + 1] in _NOT_A_NAME_END:
                continue
            if _is_cjk(key[0]):
                if stop_ends is None:
                    stop_ends = _stop_ends(folded, cues.stops)
                start = _cjk_before(text, end, key, stop_ends)
            else:
                boundary_ok = end >= len(text) or not text[end].isalnum()
                start = _latin_words_before(text, position) if boundary_ok else None
            if start is not None:
                for type_key in types:
                    found.append(
                        Mention(type_key, text[start:end], start, end, DISCOVERY_CONFIDENCE)
                    )
    if cues.prefixes is not None:
        for end_index, (key, types) in cues.prefixes.iter(folded):
            found.extend(_by_prefix(text, end_index + 1 - len(key), key, types))
    if cues.terms:
        for pattern in _DEFINED:
            for m in pattern.finditer(text):
                name = m.group(1).strip()
                aliases = (m.group(2).strip(),) if m.lastindex and m.lastindex >= 2 else ()
                start = m.start(1) + (len(m.group(1)) - len(m.group(1).lstrip()))
                found.append(
                    Mention("term", name, start, start + len(name), DISCOVERY_CONFIDENCE, aliases)
                )
    if heading and 2 <= len(heading) <= 30:
        folded_heading = fold(heading)
        for type_key, endings in cues.heading_suffixes:
            if any(folded_heading.endswith(e) for e in endings):
                position = text.find(heading)
                if position >= 0:
                    found.append(
                        Mention(
                            type_key,
                            heading,
                            position,
                            position + len(heading),
                            DISCOVERY_CONFIDENCE,
                        )
                    )
    return found


#: A one-character cue followed by these characters is the start of another word (部门, 处理,
#: 市场), not the end of a name.
_NOT_A_NAME_END = frozenset(
    [
        "部门",
        "部分",
        "部署",
        "部件",
        "处理",
        "处于",
        "处置",
        "处罚",
        "科技",
        "科学",
        "科目",
        "市场",
        "市值",
        "省份",
        "省级",
        "组织",
        "组长",
        "组成",
    ]
)


def _by_prefix(text: str, position: int, key: str, types: tuple[str, ...]) -> Iterable[Mention]:
    end = position + len(key)
    if _is_cjk(key[-1]):
        stop = end
        while (
            stop < len(text)
            and stop - end < MAX_CJK_NAME
            and _is_cjk(text[stop])
            and text[stop] not in _CJK_STOPS
        ):
            stop += 1
    else:
        tail = re.match(r"(?:\s+(?:of\s+)?[A-Z][A-Za-z0-9&-]*){1,4}", text[end:])
        stop = end + tail.end() if tail else end
    if stop > end:
        for type_key in types:
            yield Mention(type_key, text[position:stop], position, stop, DISCOVERY_CONFIDENCE)


# -- relations -------------------------------------------------------------------------------
@dataclass(frozen=True)
class CompiledPattern:
    relation: RelationType
    head_first: bool
    before: str  # literal before the first slot
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
                    normalise_name(before),
                    normalise_name(between),
                    normalise_name(after),
                    pattern,
                )
            )
    return compiled


def _allowed(relation: RelationType, head_type: str, tail_type: str) -> bool:
    return (not relation.head_types or head_type in relation.head_types) and (
        not relation.tail_types or tail_type in relation.tail_types
    )


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
    """Patterns grouped by the text between their slots, and the relation types each pair of
    entity types allows, computed once per ontology."""

    by_between: dict[str, list[CompiledPattern]]
    longest_between: int
    options: dict[tuple[str, str], list[tuple[RelationType, bool]]] = field(default_factory=dict)


_plans: dict[int, tuple[list[CompiledPattern], Ontology, _RelationPlan]] = {}


def _plan(patterns: list[CompiledPattern], ontology: Ontology) -> _RelationPlan:
    cached = _plans.get(id(patterns))
    if cached is not None and cached[0] is patterns and cached[1] is ontology:
        return cached[2]
    by_between: dict[str, list[CompiledPattern]] = {}
    for p in patterns:
        by_between.setdefault(p.between, []).append(p)
    plan = _RelationPlan(by_between, max((len(b) for b in by_between), default=0))
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
            if r.head_types and r.tail_types and _allowed(r, head, tail)
        ]
        plan.options[key] = found
    return found


def relations_in(
    text: str,
    mentions: list[Match],
    type_of: dict[str, str],
    patterns: list[CompiledPattern],
    ontology: Ontology,
    folded: str | None = None,
) -> list[FoundRelation]:
    """Pattern relations between mentions of one sentence, then co-occurrence for pairs that no
    pattern linked and whose types exactly one relation type allows (``folded``: `fold(text)`
    when the caller has it)."""
    found: list[FoundRelation] = []
    if len(mentions) < 2:
        return found
    plan = _plan(patterns, ontology)
    folded = fold(text) if folded is None else folded
    # whitespace may stretch the raw text between two names beyond the folded pattern text
    reach = 3 * plan.longest_between + 8
    linked: set[tuple[int, int]] = set()
    for s_start, s_end in sentences(text):
        inside = [m for m in mentions if m.start >= s_start and m.end <= s_end]
        if len(inside) < 2:
            continue
        for i, a in enumerate(inside):
            for b in inside[i + 1 :]:
                if b.start - a.end > reach:
                    break
                # the folded text's slices, normalised like a name (same offsets as ``text``)
                candidates = plan.by_between.get(" ".join(folded[a.end : b.start].split()))
                if not candidates:
                    continue
                before = " ".join(folded[s_start : a.start].split())
                after = " ".join(folded[b.end : s_end].split())
                for p in candidates:
                    if not before.endswith(p.before) or not after.startswith(p.after):
                        continue
                    head, tail = (a, b) if p.head_first else (b, a)
                    if not _allowed(p.relation, type_of[head.payload[0]], type_of[tail.payload[0]]):
                        continue
                    found.append(
                        FoundRelation(
                            p.relation.key, head, tail, PATTERN_CONFIDENCE, a.start, b.end, p.source
                        )
                    )
                    linked.add((a.start, b.start))
                    break
        for i, a in enumerate(inside):
            ta = type_of[a.payload[0]]
            for b in inside[i + 1 :]:
                if (a.start, b.start) in linked or a.payload[0] == b.payload[0]:
                    continue
                tb = type_of[b.payload[0]]
                if ta == tb:
                    continue
                options = _options(plan, ontology, ta, tb)
                if len(options) == 1:
                    r, a_is_head = options[0]
                    head, tail = (a, b) if a_is_head else (b, a)
                    found.append(
                        FoundRelation(
                            r.key,
                            head,
                            tail,
                            COOCCURRENCE_CONFIDENCE,
                            a.start,
                            b.end,
                            "co-occurrence",
                        )
                    )
    return found
