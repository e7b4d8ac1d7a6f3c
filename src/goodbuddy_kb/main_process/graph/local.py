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

from goodbuddy_kb.contracts.graph import EntityType, Ontology, RelationType
from goodbuddy_kb.main_process.graph.matching import Match, fold, normalise_name

PATTERN_CONFIDENCE = 0.9
COOCCURRENCE_CONFIDENCE = 0.45
DISCOVERY_CONFIDENCE = 0.7
MAX_CJK_NAME = 10
#: Characters that end a Chinese name when scanning away from a cue (function words, verbs
#: that introduce a name, punctuation is handled separately).
_CJK_STOPS = set(
    "由的和与及在对向将把被为是了从至到按据归须需应等或并给跟同每各该本其此请已未不也都而且则如若当"
)
_SENTENCE_END = re.compile(r"[。！？；;!?\n]|\.(?:\s|$)")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
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
    return bool(_CJK.match(ch))


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
        if not _is_cjk(ch) or ch in _CJK_STOPS or i in stop_ends:
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


def discover(
    text: str,
    ontology: Ontology,
    heading: str | None = None,
    stops: frozenset[str] | None = None,
) -> list[Mention]:
    """Candidate entity names in ``text`` from the ontology's cues and defined-term patterns
    (``stops``: `boundaries(ontology)`, computed once by a caller that runs many chunks)."""
    found: list[Mention] = []
    folded = fold(text)
    stops = boundaries(ontology) if stops is None else stops
    stop_ends = _stop_ends(folded, stops)
    for etype in ontology.entity_types:
        found.extend(_by_suffix(text, folded, etype, stop_ends))
        found.extend(_by_prefix(text, folded, etype))
    terms = next((t for t in ontology.entity_types if t.key == "term"), None)
    if terms is not None:
        for pattern in _DEFINED:
            for m in pattern.finditer(text):
                name = m.group(1).strip()
                aliases = (m.group(2).strip(),) if m.lastindex and m.lastindex >= 2 else ()
                start = m.start(1) + (len(m.group(1)) - len(m.group(1).lstrip()))
                found.append(
                    Mention("term", name, start, start + len(name), DISCOVERY_CONFIDENCE, aliases)
                )
    if heading:
        for etype in ontology.entity_types:
            if (
                any(fold(heading).endswith(fold(s)) for s in etype.suffixes)
                and 2 <= len(heading) <= 30
            ):
                position = text.find(heading)
                if position >= 0:
                    found.append(
                        Mention(
                            etype.key,
                            heading,
                            position,
                            position + len(heading),
                            DISCOVERY_CONFIDENCE,
                        )
                    )
    return found


def _by_suffix(text: str, folded: str, etype: EntityType, stop_ends: set[int]) -> Iterable[Mention]:
    for cue in sorted(set(etype.suffixes), key=len, reverse=True):
        key = fold(cue)
        position = folded.find(key)
        while position >= 0:
            end = position + len(key)
            if _is_cjk(key[0]):
                start = _cjk_before(text, end, key, stop_ends)
                if start is not None:
                    yield Mention(etype.key, text[start:end], start, end, DISCOVERY_CONFIDENCE)
            else:
                boundary_ok = end >= len(text) or not text[end].isalnum()
                start = _latin_words_before(text, position) if boundary_ok else None
                if start is not None:
                    yield Mention(etype.key, text[start:end], start, end, DISCOVERY_CONFIDENCE)
            position = folded.find(key, position + 1)


def _by_prefix(text: str, folded: str, etype: EntityType) -> Iterable[Mention]:
    for cue in sorted(set(etype.prefixes), key=len, reverse=True):
        key = fold(cue)
        for m in re.finditer(re.escape(key), folded):
            end = m.end()
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
                yield Mention(
                    etype.key, text[m.start() : stop], m.start(), stop, DISCOVERY_CONFIDENCE
                )


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


def relations_in(
    text: str,
    mentions: list[Match],
    type_of: dict[str, str],
    patterns: list[CompiledPattern],
    ontology: Ontology,
) -> list[FoundRelation]:
    """Pattern relations between mentions of one sentence, then co-occurrence for pairs that no
    pattern linked and whose types exactly one relation type allows."""
    found: list[FoundRelation] = []
    linked: set[tuple[int, int]] = set()
    for s_start, s_end in sentences(text):
        inside = [m for m in mentions if m.start >= s_start and m.end <= s_end]
        for i, a in enumerate(inside):
            for b in inside[i + 1 :]:
                between = normalise_name(text[a.end : b.start])
                before = normalise_name(text[s_start : a.start])
                after = normalise_name(text[b.end : s_end])
                for p in patterns:
                    if (
                        between != p.between
                        or not before.endswith(p.before)
                        or not after.startswith(p.after)
                    ):
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
            for b in inside[i + 1 :]:
                if (a.start, b.start) in linked or a.payload[0] == b.payload[0]:
                    continue
                ta, tb = type_of[a.payload[0]], type_of[b.payload[0]]
                options = [
                    (r, head, tail)
                    for r in ontology.relation_types
                    for head, tail in ((a, b), (b, a))
                    if _allowed(r, type_of[head.payload[0]], type_of[tail.payload[0]])
                    and r.head_types
                    and r.tail_types
                ]
                if len(options) == 1 and ta != tb:
                    r, head, tail = options[0]
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
