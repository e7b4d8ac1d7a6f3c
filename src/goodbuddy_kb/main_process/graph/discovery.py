"""Discovery of the local extractor: candidate entity names from the cues each entity type
declares (name suffixes and prefixes such as 部、中心、System), defined terms ("所谓 X", "X
means"; "X（简称 Y）" unless a cue named X: Y is then X's alias) and headings with a cue.

A Chinese name has no spaces around it, so a name is grown from its cue towards the sentence
until a boundary: punctuation, a function word (由、以、按、经、在 …) or a verb that introduces
the next name (通过、使用、告知 …). Function characters that also sit inside names (数据、供应、
合同、经理) stop a name only where they are not part of such a word, and whatever function
character is left at either end is trimmed ("以财务部" → "财务部"). Generic words that end in a
cue (内部、城市) are not names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import ahocorasick

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph.lexicon import (
    ABBREVIATED,
    ABBREVIATED_DOT,
    ANY_STOP,
    CJK_STOPS,
    DEFINED,
    DEFINED_NEEDS,
    GENERIC_ENDS,
    HEAD_TITLES,
    LATIN_STOPS,
    LATIN_TAIL,
    NAME_WORDS,
    NOT_A_NAME_END,
    NUMBERED,
    NUMERALS,
    QUALIFIERS,
    SOFT_STOPS,
    SOFT_WORDS,
    TAXON_AFTER,
    TIME_ADVERBS,
    UNITS,
    VERB_STOPS,
)
from goodbuddy_kb.main_process.graph.matching import fold
from goodbuddy_kb.main_process.graph.slots import slots, term_slots

DISCOVERY_CONFIDENCE = 0.7
#: A name found only by a one-character cue (财务部, 安保组, 南京市): an extraction run keeps
#: it when the library uses the same name more than once or another rule finds it too.
WEAK_CONFIDENCE = 0.6
MAX_CJK_NAME = 10


@dataclass(frozen=True)
class Mention:
    type_key: str
    name: str
    start: int
    end: int
    confidence: float
    aliases: tuple[str, ...] = ()
    #: The length of the Chinese cue the name was grown from (0: none).
    cue: int = 0
    #: Found only by a slot any noun fits (在ROH中, CBMM由…): kept where the library relates it.
    provisional: bool = False


def is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or "\uf900" <= ch <= "\ufaff"


def boundaries(ontology: Ontology) -> frozenset[str]:
    """Words a Chinese name never runs across: the verbs that introduce a name, and the
    literal words of every relation pattern (审批、隶属于、依赖 …) except single characters and
    words that sit inside names as often (管理、平台)."""
    words: set[str] = set(VERB_STOPS)
    for relation in ontology.relation_types:
        for pattern in relation.patterns:
            for piece in re.split(r"\{head\}|\{tail\}", pattern):
                words.update(
                    run
                    for run in re.findall(r"[\u4e00-\u9fff]+", fold(piece))
                    if len(run) >= 2 and run not in NAME_WORDS
                )
    return frozenset(words)


def _stop_automaton(stops: frozenset[str]) -> Any:
    """Boundary words (value False) and verbs (value True) in one automaton."""
    automaton = ahocorasick.Automaton()
    for word in stops:
        automaton.add_word(word, (len(word), False))
    for word in VERB_STOPS:
        automaton.add_word(word, (len(word), True))
    automaton.make_automaton()
    return automaton


def _stop_ends(folded: str, automaton: Any) -> tuple[set[int], set[int]]:
    """Every position where a boundary word ends in ``folded``, and where a verb ends."""
    boundary: set[int] = set()
    verb: set[int] = set()
    for end_index, (_size, is_verb) in automaton.iter(folded):
        (verb if is_verb else boundary).add(end_index + 1)
    return boundary, verb


def _function_at(text: str, i: int) -> bool:
    """Whether ``text[i]`` is a function character here, not part of a word such as 数据."""
    ch = text[i]
    if ch in CJK_STOPS:
        return text[i : i + 2] not in SOFT_WORDS and text[max(0, i - 1) : i + 1] not in SOFT_WORDS
    if ch in SOFT_STOPS:
        return text[i : i + 2] not in SOFT_WORDS and text[max(0, i - 1) : i + 1] not in SOFT_WORDS
    return False


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without function characters at either end ("以财务部" → "财务部")."""
    while start < end and is_cjk(text[start]) and _function_at(text, start):
        start += 1
    while end > start and is_cjk(text[end - 1]) and _function_at(text, end - 1):
        end -= 1
    return start, end


def _cjk_before(
    text: str,
    end: int,
    cue: str,
    stop_ends: set[int],
    verb_ends: set[int],
    names_end: frozenset[int] = frozenset(),
    action: bool = False,
) -> int | None:
    """Start of the Chinese name that ends with ``cue`` at ``end`` (exclusive), or None.
    Capitals and digits inside the name belong to it (A栋5楼); ``names_end``: positions where
    another name's cue ends, where this name starts (A栋1楼 | 安保组, 财务部 | 费用核算组)."""
    start = end - len(cue)
    i = start
    limit = max(0, start - (MAX_CJK_NAME - len(cue)))
    while i > limit:
        ch = text[i - 1]
        if ch.isascii():
            j = i
            while (
                j > limit
                and text[j - 1].isascii()
                and (text[j - 1].isdigit() or "A" <= text[j - 1] <= "Z")
            ):
                j -= 1
            if j == i or (text[i] not in "栋楼层号座区" and not text[j:i].isalpha()):
                break  # 5楼, A栋 are parts of a name; 2月, 18场: a date or a count
            letters = sum(1 for c in text[j:i] if c.isalpha())
            i = j
            if letters >= 2:
                break  # a Latin word starts the name (OA系统, 找IT服务台 → IT服务台)
            continue
        if (
            ch == "与"
            and i - 2 > limit
            and 0 < start - i <= 2
            and i not in names_end
            and is_cjk(text[i - 2])
        ):
            i -= 1  # 招聘与入职组, 考勤与休假制度: one name, not two
            continue
        # (is_cjk inline: this loop runs for every character of every name)
        if not (
            "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or "\uf900" <= ch <= "\ufaff"
        ):
            break
        # a pattern word before the cue is in the name (采购审批平台), a verb not: bar a unit's work (开发组)
        verb = i in verb_ends and (i < start or (len(cue) > 1 and not action))
        if verb or (i < start and (i in stop_ends or i in names_end)):
            break
        if ch in ANY_STOP and _function_at(text, i - 1):
            break
        i -= 1
    # a Latin word glued to the name is part of it (OA系统, IT服务台)
    j = i
    while j > 0 and i - j < 8 and text[j - 1].isascii() and text[j - 1].isalnum():
        j -= 1
    if j < i and text[j].isalpha() and (j == 0 or not text[j - 1].isascii()):
        i = j
    bounded = i > limit or limit == 0
    if not bounded and is_cjk(text[limit - 1]) and not _function_at(text, limit - 1):
        return None  # no start in sight: not a whole name (…距离峇株吧辖市)
    while i < start and text[i].isascii() and not ("A" <= text[i] <= "Z" or "a" <= text[i] <= "z"):
        i += 1  # never starts with a digit
    return i if i < start else None


#: Latin cues that name in lower case after capitalised words ("Infrastructure team", "OTA console").
_LOWER_CUES = frozenset(
    "team group committee headquarters system platform gateway portal console".split()  # noqa: SIM905
)

#: A capitalised word or model number after a Latin cue: the name goes on (Office Manager, p570).
_CAPITALISED_NEXT = re.compile(r" (?:[A-Z][a-z]|[A-Za-z]{0,3}\d)")


def _latin_words_before(text: str, start: int, limit: int = 4) -> int | None:
    """Start of up to ``limit`` capitalised words (Pty. is one) before ``start``, no article."""
    base = max(0, start - 120)
    words = list(re.finditer(r"(?:[A-Z][a-z]{1,2}\.|[A-Z][A-Za-z0-9&-]*|&)\s+", text[base:start]))
    first = None
    expected_end = start
    for m in reversed(words):
        if base + m.end() != expected_end or m.group().strip() in LATIN_STOPS:
            break
        if m.group()[0] != "&":  # "Warehouse & Logistics Section": never a name's start
            first = base + m.start()
        expected_end = base + m.start()
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
    stop_words: Any
    #: English pattern words that name the type of what follows them ("sits in" → a location),
    #: for relation types whose tail can be one type only: one expression for all of them, and
    #: the type of each (words collapsed to single spaces).
    slots: re.Pattern[str] | None = None
    slot_types: dict[str, str] = field(default_factory=dict)
    #: Chinese pattern words between a tail and its head ("{tail}须经{head}审批"), each with
    #: the words the head must be followed by, for relation types whose tail may be a term:
    #: what stands before them is the term ("采购合同须经法务部审核").
    term_slots: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The Chinese cues of a process that are nouns (流程, not 申请; the extraction asks the
    #: segmenter): the verb right before one names the process (发布流程), as a unit (开发组).
    action_nouns: frozenset[str] = frozenset()


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
        _stop_automaton(boundaries(ontology)),
        *slots(ontology),
        term_slots(ontology),
    )


def in_a_work_title(text: str, start: int, end: int) -> bool:
    """Whether the span is a part, not the whole, of a work's title in 《》 (《在世界中心》)."""
    opened = text.rfind("《", max(0, start - 30), start + 1)
    if opened < 0 or "》" in text[opened:start]:
        return False
    closed = text.find("》", end, end + 30)
    return closed >= 0 and (opened != start - 1 or closed != end)


def _a_name(text: str, start: int, end: int, cue: str) -> tuple[int, int] | None:
    """The trimmed span if it is still a name: more than its cue, not a generic word."""
    start, end = trim(text, start, end)
    if text[start : start + 2] in QUALIFIERS:
        start += 2
    ordinal = text[start : start + 1] == "第"
    j = start + ordinal
    while j < end and text[j] in NUMERALS:
        j += 1
    if j > start + ordinal and j < end and (text[j] in UNITS or ordinal):
        start = j + (text[j] in UNITS)  # 三家公司, 五个小组, 第四区: a count, not a name
    elif text[start : start + 1] in "年月日":
        start += 1  # 年初…, 月底…: a date's end
    start, end = trim(text, start, end)  # (4月1日与陈科…: what the date left may be a particle)
    name = text[start:end]
    joined = max(name.rfind(c, 0, len(name) - len(cue)) for c in "与和及")
    if joined > 0 and name[:joined].endswith(cue):
        start += joined + 1  # 接收区与汇整区: two names of the same kind, the later one here
        name = text[start:end]
    if end - start <= len(cue) or name.endswith(GENERIC_ENDS):
        return None
    if in_a_work_title(text, start, end) or (cue == "科" and TAXON_AFTER.match(text, end)):
        return None
    if cue == "栋" and not NUMBERED.match(text, end - 2):
        return None  # 厂长黄国栋: a person's name, not a building (A栋, 3号栋)
    if LATIN_TAIL.search(text, max(0, start - 16), start + 1):
        return None  # Mac OS X平台: the end of a longer Latin name, not a name of its own
    if name.endswith("全部") and not name.endswith("安全部"):
        return None  # …中全部: "all of it", not a unit (信息安全部 is one)
    if is_cjk(cue[0]) and is_cjk(name[0]) and end - start < len(cue) + 2 and cue != "经理":
        return None  # 内部、外部、总部, 邨中心: a word or a fragment, not a name
    return start, end


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
    verb_ends: set[int] = set()
    if cues.suffixes is not None:
        ends = [
            (end_index + 1, key, types)
            for end_index, (key, types) in cues.suffixes.iter(folded)
            if len(key) > 1 or folded[end_index : end_index + 2] not in NOT_A_NAME_END
        ]
        names_end = frozenset(e for e, k, t in ends if is_cjk(k[0]) and "role" not in t)
        places_end = frozenset(e for e, k, t in ends if is_cjk(k[0]) and t == ("location",))
        for end, key, types in ends:
            position = end - len(key)
            if is_cjk(key[0]):
                if stop_ends is None:
                    stop_ends, verb_ends = _stop_ends(folded, cues.stop_words)
                inner = names_end - places_end if types == ("location",) else names_end
                action = key in cues.action_nouns and "process" in types  # (发布流程)
                start = _cjk_before(text, end, key, stop_ends, verb_ends, inner, action)
                span = None if start is None else _a_name(text, start, end, key)
                if span and "policy" in types and text[span[0] : position] in NAME_WORDS:
                    # 费用报销|管理制度: a rule of nothing but 管理 is of the name before it
                    span = next(((m.start, end) for m in found if m.end == span[0]), span)
            else:
                # a Latin cue names only when capitalised: "Security Office", not "the Berlin
                # office" — except the words for a group of people ("Infrastructure team")
                # and for a head office ("the Shanghai headquarters")
                boundary_ok = (
                    end >= len(text)
                    or not (text[end].isalnum() or _CAPITALISED_NEXT.match(text, end))
                ) and (
                    not text[position].isalpha() or text[position].isupper() or key in _LOWER_CUES
                )
                start = _latin_words_before(text, position) if boundary_ok else None
                span = None if start is None else (start, end)
            if span is not None:
                # a one-character cue (部, 组, 区) right after a particle (…的竹根部) is weak
                # evidence (see `WEAK_CONFIDENCE`), unless a head's title follows (采购科科长)
                s0, e0 = span
                weak = (
                    len(key) == 1
                    and is_cjk(key)
                    and s0 > 0
                    and text[s0 - 1] in "的之"
                    and not text.startswith(HEAD_TITLES, e0)
                )
                sure = WEAK_CONFIDENCE if weak else DISCOVERY_CONFIDENCE
                for type_key in types:
                    found.append(
                        Mention(
                            type_key,
                            text[span[0] : span[1]],
                            *span,
                            sure,
                            cue=len(key) if is_cjk(key[0]) else 0,
                        )
                    )
    if cues.prefixes is not None:
        for end_index, (key, types) in cues.prefixes.iter(folded):
            found.extend(_by_prefix(text, end_index + 1 - len(key), key, types))
    if cues.term_slots and found:
        found.extend(_slot_terms(text, found, cues))
    if cues.terms:
        found.extend(t for t in _defined_terms(text) if all(m.end != t.end for m in found))
    if cues.slots is not None:
        for m in cues.slots.finditer(text):
            type_key = cues.slot_types.get(" ".join(m.group(1).split()))
            if type_key is not None and m.group(2) not in LATIN_STOPS:
                found.append(
                    Mention(type_key, m.group(2), m.start(2), m.end(2), DISCOVERY_CONFIDENCE)
                )
    if heading and 2 <= len(heading) <= 30:
        found.extend(_heading(text, heading, cues))
    if found and ABBREVIATED_DOT.search(text):
        return [_with_dot(text, m) if m.name.endswith(ABBREVIATED) else m for m in found]
    return found


def _with_dot(text: str, m: Mention) -> Mention:
    """``m`` with the full stop of its abbreviated company form, if the text writes one."""
    if text[m.end : m.end + 1] != "." or m.name.rsplit(" ", 1)[-1] not in ABBREVIATED:
        return m
    return replace(m, name=m.name + ".", end=m.end + 1)


#: The longest term a relation pattern names before its head.
MAX_SLOT_TERM = 8


def _slot_terms(text: str, found: list[Mention], cues: Cues) -> Iterable[Mention]:
    """ "采购合同须经法务部审核": a head the cues found (法务部), the pattern words before it
    (须经) and after it (审核): the Chinese words before the pattern words name what is
    approved, a term — unless the cues named it already or it ends in a cue (本制度)."""
    heads = {m.start: m for m in found}
    taken = [(m.start, m.end) for m in found]
    for words, after in cues.term_slots:
        at = text.find(words)
        while at > 0:
            head = heads.get(at + len(words))
            if head is not None and any(text.startswith(a, head.end) for a in after):
                start = at
                while start > 0 and at - start < MAX_SLOT_TERM and is_cjk(text[start - 1]):
                    if text[start - 1] in ANY_STOP and _function_at(text, start - 1):
                        break
                    start -= 1
                span = trim(text, start, at)
                while text[span[0] : span[1]].endswith(TIME_ADVERBS):  # 该平台目前归…: not 平台目前
                    span = (span[0], span[1] - 2)
                name = text[span[0] : span[1]]
                owned = span[0] > 0 and text[span[0] - 1] in "的之"
                if (
                    span[1] - span[0] >= 3
                    # 入职流程的整体协调由…负责: what is owned is the named thing's part
                    and not (owned and any(e == span[0] - 1 for _s, e in taken))
                    and not any(s < span[1] and span[0] < e for s, e in taken)
                    and not any(
                        name.endswith(c) for _t, ends in cues.heading_suffixes for c in ends
                    )
                ):
                    yield Mention("term", name, *span, DISCOVERY_CONFIDENCE)
            at = text.find(words, at + 1)


def _defined_terms(text: str) -> Iterable[Mention]:
    for pattern, needs in zip(DEFINED, DEFINED_NEEDS, strict=True):
        if not any(word in text for word in needs):
            continue
        for m in pattern.finditer(text):
            term, at = m.group(1), m.end(1)
            start, end = trim(text, at - len(term.lstrip()), at - len(term) + len(term.rstrip()))
            if end - start < 2:
                continue
            aliases = (m.group(2).strip(),) if m.lastindex and m.lastindex >= 2 else ()
            yield Mention("term", text[start:end], start, end, DISCOVERY_CONFIDENCE, aliases)


def _heading(text: str, heading: str, cues: Cues) -> Iterable[Mention]:
    folded_heading = fold(heading)
    for type_key, endings in cues.heading_suffixes:
        if any(folded_heading.endswith(e) for e in endings):
            position = text.find(heading)
            if position >= 0:
                yield Mention(
                    type_key, heading, position, position + len(heading), DISCOVERY_CONFIDENCE
                )


def _by_prefix(text: str, position: int, key: str, types: tuple[str, ...]) -> Iterable[Mention]:
    end = position + len(key)
    if is_cjk(key[-1]):
        stop = end
        while (
            stop < len(text)
            and stop - end < MAX_CJK_NAME
            and is_cjk(text[stop])
            and not _function_at(text, stop)
        ):
            stop += 1
        position, stop = trim(text, position, stop)
    else:
        tail = re.match(r"(?:\s+(?:of\s+)?[A-Z][A-Za-z0-9&-]*){1,4}", text[end:])
        stop = end + tail.end() if tail else end
    if stop > end:
        for type_key in types:
            yield Mention(type_key, text[position:stop], position, stop, DISCOVERY_CONFIDENCE)
