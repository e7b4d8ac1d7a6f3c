"""The parts of a question that asks about several things, each searched on its own before a
chat answer ("always retrieve first").

A question naming several things ("the rules on taxis, flights, meals and hotels"; "出差时打车、
机票、餐费和住宿分别怎么规定？"), or several questions in one message, reads as one query: its
best passage is the one that matches most of it, and a passage about one of the things ranks
low with a low relevance, under the floor (the hotels passage read 0.015 beside 0.81 for the one
on transport; a helper's try). Each part is a question of its own, which the calibrated
relevance was fitted on (one thing asked, one passage that answers it).

The parts come from the question's grammar, not from a list of phrases: its sentences, and a
coordinated list in a sentence — items joined by an enumeration comma (、), commas and a final
conjunction ("A, B and C"), or a conjunction alone ("A 和 B", "A and B"; jieba's words and
part-of-speech tags tell a Chinese item from a pronoun, an adverb or a particle, which end a
list) — with the rest of the sentence kept around each item.
A list's first and last items are as long as its middle ones (one word when it has none; a
Chinese one-character word is read with the word before it: jieba cuts 年假 as 年|假). A list
one of whose items is the thing asked ("慈禧太后和哪位权臣") is one question, not several.

An item the passages already handed over name is not searched again (a question about two
people, "慈禧太后和慈安太后聯合哪位權臣", is answered by one passage naming both; searching each
added passages about either). An item is searched in its sentence and alone, and the wording
whose best new passage is the more relevant is handed over: a frame shared by every part
("Summarise the rules on … when travelling", "出差时…分别怎么规定") outweighed the item, and
each part found the transport passage, or the approval one, again.

Two questions in one sentence are two parts ("What is the hotel limit in Chengdu, and what
should I do if I lose my laptop?"; "出差每天餐补多少钱，笔记本电脑丢了怎么办？"): clauses cut at a
comma or a conjunction, when each asks on its own (an English question word or auxiliary
first, a Chinese question word). A part searched alone does without the word that joined it to
the one before ("And how many days …").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from goodbuddy_kb.contracts.retrieval import KnowledgeRetrievalResponse
from goodbuddy_kb.main_process.graph.segment import Segmenter
from goodbuddy_kb.main_process.lexical.tokens import (
    ASKS_LATIN,
    AUXILIARIES,
    DETERMINERS,
    asks_cjk,
    cjk_runs,
    latin_terms,
    normalize,
    stems,
)

#: At most this many parts are searched besides the whole question, and each adds at most
#: this many of its best passages (above the floor) to the whole question's.
MAX_PARTS = 4
PART_TOP_K = 3
#: Sentence end marks (a Latin full stop only before a space: "3.5 days" is one sentence),
#: and the brackets inside which nothing ends (《雷電！》 is a title).
_ENDS = "。！？!?；;"
_OPENERS, _CLOSERS = "《「『“‘（(【〈", "》」』”’）)】〉"
_HAN = re.compile(r"[\u3400-\u9fff]")
#: Latin-script words and separators of a list.
_LATIN_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*|\d[\d.,]*|,|[^\sA-Za-z0-9,]+")
_LATIN_CONJUNCTIONS = frozenset({"and", "or"})
#: Chinese conjunctions that may join the items of a list (jieba tags more words "c": 但是,
#: 因为, 如果 … join clauses, not items).
_HAN_CONJUNCTIONS = frozenset({"和", "与", "與", "及", "以及", "或", "或者", "跟", "同"})
#: Items of a list never hold more words than this (longer runs are clauses).
_MAX_ITEM_WORDS = 4
#: English closed-class words no item of a list is made of ("I lost my laptop and what should
#: I do" joins clauses, not things): pronouns, auxiliaries, question words, prepositions.
_LATIN_FUNCTION = frozenset(
    (  # noqa: SIM905 (a sentence of words reads better than a column)
        "i you he she it we they me him her us them my your his its our their this that "
        "these those what which who whom whose when where why how whether if is are was "
        "were be been being am do does did done have has had can could should would "
        "will shall may might must not no to of in on at by for from with about into "
        "onto over under than then so as "
    ).split()
)
#: jieba's tags of the words a Chinese item is made of: nouns, verbs used as nouns, adjectives,
#: names, Latin words and numbers; a pronoun, adverb, particle or preposition ends a list.
_ITEM_TAGS = ("n", "v", "a", "j", "l", "i", "eng", "m", "q", "guessed")
#: The separators of a Chinese list, the longer conjunctions first (jieba runs only when one is
#: there; `_rough_items` splits at them).
_HAN_SEPARATORS = re.compile("|".join(["、", *sorted(_HAN_CONJUNCTIONS, key=len, reverse=True)]))
#: English words a question starts with: the full-text query's interrogatives and auxiliaries
#: ("How much …, and how many …?" is two questions).
_LATIN_ASKS = ASKS_LATIN | AUXILIARIES
#: Words that join a sentence to the one before it ("… Beijing? And how many …"): a part
#: searched alone does without them.
_LEADING = re.compile(
    r"^(?:(?:and|also|but|or|so|then|plus)\b[\s,]*|(?:而且|还有|還有|另外|以及|并且|並且|那么|那麼)[，,\s]*)",
    re.I,
)
#: Clause boundaries inside a sentence: a comma or semicolon, and an English conjunction.
_CLAUSE_CUT = re.compile(r"[，,；;]\s*(?:(?:and|or|but)\s+)?|\s+(?:and|or|but)\s+", re.I)


@dataclass(frozen=True)
class Part:
    """One thing the question asks: ``text``, a sentence of the message or the sentence with
    one item of its list, and ``item``, that item."""

    text: str
    item: str | None = None


def question_parts(question: str, known: Callable[[str], bool] | None = None) -> list[Part]:
    """The questions inside ``question`` when it asks about several things (in order), else
    []. ``known``: whether the passages found already name a thing (a Chinese list whose every
    item they name is not read word by word: jieba's dictionary costs a second to load)."""
    units = [
        _LEADING.sub("", clause).strip()
        for sentence in _sentences(question)
        if _content(sentence)
        for clause in _clauses(sentence)
    ]
    units = [u for u in units if _content(u)]
    parts: list[Part] = []
    segmenter = Segmenter()
    try:
        for unit in units:
            rough = _rough_items(unit) if known is not None and _HAN.search(unit) else []
            named = known is not None and bool(rough) and all(known(item) for item in rough)
            items = [] if named else _list_parts(unit, segmenter)
            parts.extend(items or ([Part(unit)] if len(units) > 1 else []))
    finally:
        segmenter.close()
    unique = list({p.text: p for p in parts if p.text != question.strip()}.values())
    return unique[:MAX_PARTS] if len(unique) >= 2 else []


@dataclass
class PartSearches:
    """What the parts' searches hand over (``responses``, after the whole question's) and how
    many searches ran (some are not handed over: an item's other wording found less)."""

    responses: list[KnowledgeRetrievalResponse]
    searches: int = 0


def search_parts(
    question: str,
    whole: KnowledgeRetrievalResponse,
    search: Callable[[str], KnowledgeRetrievalResponse | None],
) -> PartSearches:
    """The searches of ``question``'s parts (``search`` returns None for one that failed),
    after the whole question's. An item of a list is searched in its sentence and alone, and
    the wording whose best new passage is more relevant is handed over."""
    seen = {x.chunk_id for x in whole.results}
    handed = [g.text for g in whole.context.groups]
    out = PartSearches([])
    # (the parts are read before any of their searches adds to what was handed over)
    parts = question_parts(question, lambda item: any(mentions(t, item) for t in handed))
    for part in parts:
        # The passages handed over may name the item already (慈禧太后和慈安太后 …), perhaps
        # only in passing: 交通 in "市内交通补助" hid the transport rule (a helper's try). Then
        # its sentence alone is searched, and handed over only when its first passage is new.
        named = part.item is not None and any(mentions(text, part.item) for text in handed)
        alone = part.item if not named and part.item not in (None, part.text) else None
        found = [r for r in (search(t) for t in (part.text, alone) if t) if r is not None]
        out.searches += len(found)
        if named:
            found = [r for r in found if r.results and r.results[0].chunk_id not in seen]
        if not found:
            continue
        response = max(found, key=lambda r: _best_new(r, seen))  # (a tie: the sentence's)
        out.responses.append(response)
        handed += [g.text for g in response.context.groups]
        seen |= {x.chunk_id for x in response.results}
    return out


def _best_new(response: KnowledgeRetrievalResponse, seen: set[str]) -> float:
    """The relevance of the best passage ``response`` found that no search before it did."""
    return max((x.relevance for x in response.results if x.chunk_id not in seen), default=0.0)


def mentions(text: str, item: str) -> bool:
    """Whether ``text`` names ``item``: its Chinese runs, and its English words by their stems
    (the full-text channel's: "hotels" is named by "Hotel")."""
    folded, wanted = normalize(text), normalize(item)
    if any(run not in folded for run in cjk_runs(wanted)):
        return False
    words = set(stems(latin_terms(wanted)))
    return not words or words <= set(stems(latin_terms(folded)))


def _clauses(sentence: str) -> list[str]:
    """The questions a sentence joins ("What is the hotel limit in Chengdu, and what should I
    do if I lose my laptop?"; "出差每天餐补多少钱，笔记本电脑丢了怎么办？"), or the sentence:
    each clause cut at a comma or a conjunction must ask on its own (an English question word
    or auxiliary first, a Chinese question word anywhere); "I lost my laptop and what should I
    do" stays one."""
    pieces: list[tuple[str, str]] = []  # (the joint before it, the clause's text)
    start, joint = 0, ""
    for cut in _CLAUSE_CUT.finditer(sentence):
        pieces.append((joint, sentence[start : cut.start()]))
        start, joint = cut.end(), cut.group()
    pieces.append((joint, sentence[start:]))
    clauses: list[str] = []
    for joint, text in pieces:
        if clauses and not _asks(text):  # not a question of its own: a list, a clause of it
            clauses[-1] += joint + text
        else:
            clauses.append(text)
    if len(clauses) < 2 or not all(_asks(c) for c in clauses):
        return [sentence]
    end = sentence.rstrip()[-1:]
    end = end if end in _ENDS else ""
    return [c.strip() + ("" if c.strip()[-1:] in _ENDS else end) for c in clauses]


def _asks(clause: str) -> bool:
    """Whether ``clause`` is a question of its own."""
    text = _LEADING.sub("", clause.strip())
    if _HAN.search(text):
        return asks_cjk(text)
    first = re.match(r"[A-Za-z]+", text)
    return first is not None and first.group().lower() in _LATIN_ASKS


def _sentences(text: str) -> list[str]:
    """The sentences of ``text``: each ends at an end mark outside brackets."""
    out, start, depth = [], 0, 0
    for i, char in enumerate(text):
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0 and (
            char in _ENDS or (char == "." and i + 1 < len(text) and text[i + 1].isspace())
        ):
            end = i + 1
            while end < len(text) and text[end] in _ENDS:
                end += 1  # "？！" ends once
            if end > start:
                out.append(text[start:end].strip())
                start = end
    out.append(text[start:].strip())
    return [s for s in out if s]


def _content(text: str) -> bool:
    """Whether ``text`` holds words (not only punctuation or a number)."""
    return bool(_HAN.search(text) or re.search(r"[A-Za-z]{2}", text))


def _rough_items(sentence: str) -> list[str]:
    """A Chinese list's items as its separators leave them, the first and the last taken two
    characters long ([] without a separator)."""
    pieces = _HAN_SEPARATORS.split(sentence)
    if len(pieces) < 2:
        return []
    items = [pieces[0][-2:], *pieces[1:-1], pieces[-1][:2]]
    return [item for item in items if item.strip()]


def _list_parts(sentence: str, segmenter: Segmenter) -> list[Part]:
    """The sentence once per item of its coordinated list, or [] without one."""
    words = _words(sentence, segmenter)
    if not words:
        return []
    seps = [i for i, (_s, _e, kind) in enumerate(words) if kind in ("list", "conj")]
    if not seps:
        return []
    # the longest run of items: separators with one to _MAX_ITEM_WORDS words between them
    best: list[int] = []
    run = [seps[0]]
    for prev, cur in pairwise(seps):
        gap = cur - prev - 1
        joined = words[prev][2] == "list" and words[cur][2] == "conj" and gap == 0
        if 1 <= gap <= _MAX_ITEM_WORDS or joined:  # ("A, B, and C": a comma then "and")
            run.append(cur)
        else:
            best = max(best, run, key=len)
            run = [cur]
    best = max(best, run, key=len)
    # a lone Latin comma separates clauses, not items; a list needs an item on either side
    if len(best) == 1 and words[best[0]][2] == "list" and sentence[words[best[0]][0]] == ",":
        return []
    middles = [
        (a + 1, b) for a, b in pairwise(best) if b - a - 1 >= 1
    ]  # (first word, end) of each middle item
    last_start = best[-1] + 1
    first_end = best[0]
    if _HAN.search(sentence):
        # one word, read with the word before it when it is one character (jieba cuts 年假
        # as 年|假)
        last = (last_start, min(len(words), last_start + 1))
        begin = first_end - 1
        if begin > 0 and _chars(words, begin, first_end) < 2:
            begin -= 1
        first = (max(0, begin), first_end)
    elif last_start < len(words) and _word(sentence, words[last_start]) in DETERMINERS:
        # noun phrases: each from its determiner to the end of its run of words
        end = last_start + 1
        while end < len(words) and words[end][2] == "word" and end - last_start <= 5:
            end += 1
        last = (last_start, end)
        begin = next(
            (
                i
                for i in range(first_end - 1, max(-1, first_end - 6), -1)
                if _word(sentence, words[i]) in DETERMINERS
            ),
            max(0, first_end - 1),
        )
        first = (begin, first_end)
    else:  # as many words as the middle ones (one without)
        size = max((b - a for a, b in middles), default=1)
        first = (max(0, first_end - size), first_end)
        last = (last_start, min(len(words), last_start + size))
    items = [first, *middles, last]
    if any(not _is_item(words[a:b]) for a, b in items):
        return []
    texts = [sentence[words[a][0] : words[b - 1][1]] for a, b in items]
    if any(asks_cjk(item) or item.lower() in DETERMINERS for item in texts):
        return []  # one of the items is the thing asked (or a lone "the"): one question
    start, end = words[first[0]][0], words[last[1] - 1][1]
    head, tail = sentence[:start], sentence[end:]
    return [Part(_join(head, item, tail), item) for item in texts]


def _chars(words: list[tuple[int, int, str]], a: int, b: int) -> int:
    return words[b - 1][1] - words[a][0] if b > a else 0


def _word(sentence: str, word: tuple[int, int, str]) -> str:
    return sentence[word[0] : word[1]].lower()


def _is_item(words: list[tuple[int, int, str]]) -> bool:
    return bool(words) and all(kind == "word" for _s, _e, kind in words)


def _join(head: str, item: str, tail: str) -> str:
    text = f"{head}{item}{tail}"
    return re.sub(r"\s+", " ", text).strip()


def _words(sentence: str, segmenter: Segmenter) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the sentence's words: "list" for an enumeration comma (a comma
    in Latin text; a Chinese "，" parts clauses), "conj" for a conjunction, "word" for a word
    an item may be made of, "other" for anything else (it ends a list: "A、B。", "A and what")."""
    out: list[tuple[int, int, str]] = []
    if _HAN.search(sentence):
        if not _HAN_SEPARATORS.search(sentence):
            return []  # no list (and no dictionary to load)
        for start, end, tag in segmenter.words(sentence):
            word = sentence[start:end]
            if word.isspace():
                continue
            if word == "、":
                kind = "list"
            elif word in _HAN_CONJUNCTIONS or word.lower() in _LATIN_CONJUNCTIONS:
                # (whatever jieba's tag: 與 reads "zg"; 跟 as a preposition is followed by no
                # item: 跟谁说)
                kind = "conj"
            elif tag.startswith(_ITEM_TAGS) and word.lower() not in _LATIN_FUNCTION:
                kind = "word"
            else:
                kind = "other"
            out.append((start, end, kind))
        return out
    for m in _LATIN_TOKEN.finditer(sentence):
        word = m.group()
        if word == ",":
            kind = "list"
        elif word.lower() in _LATIN_CONJUNCTIONS:
            kind = "conj"
        elif word[0].isalnum() and word.lower() not in _LATIN_FUNCTION:
            kind = "word"
        else:
            kind = "other"
        out.append((m.start(), m.end(), kind))
    return out
