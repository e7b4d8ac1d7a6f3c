"""Pure text functions of the lexical channels: normalisation, CJK bigrams, Latin terms, queries.

Index and query go through the same functions, so they always agree. Nothing a user types can
become FTS5 syntax: every term is emitted as a double-quoted FTS5 string of word characters.

The full-text table holds Snowball English stems (PyStemmer) of the folded Latin words, so
"policies" finds "policy"; rescoring still credits an exact token above a stem-only match.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import Stemmer  # type: ignore[import-not-found]

#: Most terms one query expands to (recall-first OR), to bound query cost on 4,000 characters.
MAX_QUERY_TERMS = 96
#: Characters of a query used for phrase matching during rescoring.
MAX_PHRASE_QUERY = 512

_CJK_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x3134F),  # Extensions B–G
)
_CJK_CLASS = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _CJK_RANGES)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
#: Latin words and numbers: word characters that are not CJK (underscore splits, like unicode61).
_LATIN_WORD = re.compile(f"[^\\W_{_CJK_CLASS}]+")
#: Compound identifiers worth an exact-token boost: GB-2000, v2.3.1, src/app/main.py, ERR_42.
_COMPOUND = re.compile(r"[^\W_]+(?:[-_./:\\][^\W_]+)+|[a-z]+\d+[a-z\d]*|\d+[a-z]+[a-z\d]*")


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(a <= code <= b for a, b in _CJK_RANGES)


def _ranges(codes: list[int]) -> str:
    spans: list[tuple[int, int]] = []
    for code in codes:
        if spans and spans[-1][1] == code - 1:
            spans[-1] = (spans[-1][0], code)
        else:
            spans.append((code, code))
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in spans
    )


#: Every nonspacing mark (category Mn): a text without one after NFD has no diacritic to drop.
#: Built once at import (planes 0-3 and 14 hold every assigned mark), so that no request or
#: sync pays for it; a set, because testing a string against it runs in C per character
#: (a regular-expression class this large is searched range by range).
_MARKS = frozenset(
    chr(c)
    for c in (*range(0x40000), *range(0xE0000, 0xE1000))
    if unicodedata.category(chr(c)) == "Mn"
)


def normalize(text: str) -> str:
    """NFKC, case folding, and Latin diacritics removed (é → e); CJK left as it is."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if text.isascii() or _MARKS.isdisjoint(unicodedata.normalize("NFD", text)):
        # Nothing to drop, and NFKC output is already composed: the loop below would give
        # the text back unchanged (CJK chunks take this path at C speed).
        return text
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) == "Mn" and out and ord(out[-1]) < 0x250:
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def cjk_runs(normalized: str) -> list[str]:
    return _CJK_RUN.findall(normalized)


_LATIN_LETTERS = re.compile(r"[A-Za-z]+")


def script_counts(text: str) -> tuple[int, int]:
    """(CJK characters, Latin words) of ``text``: what each script's words number in it."""
    return sum(len(run) for run in _CJK_RUN.findall(text)), len(_LATIN_LETTERS.findall(text))


def bigrams(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_index_text(text: str) -> str:
    """Each CJK run → its overlapping bigrams plus its last character, so any single character
    is reachable as a bigram prefix or a run's final unigram."""
    tokens: list[str] = []
    for run in cjk_runs(normalize(text)):
        tokens.extend(bigrams(run))
        tokens.append(run[-1])
    return " ".join(tokens)


def term_set(normalized: str) -> set[str]:
    """Every query term this (normalised) text contains: CJK bigrams, lone CJK characters and
    Latin words — what coverage and title features count against."""
    runs = cjk_runs(normalized)
    return (
        {g for run in runs for g in bigrams(run)}
        | {run for run in runs if len(run) == 1}
        | set(latin_terms(normalized))
    )


@functools.lru_cache(maxsize=4096)
def _term_kind(term: str) -> str:
    if len(term) == 2 and is_cjk(term[0]) and is_cjk(term[1]):
        return "bigram"
    return "char" if len(term) == 1 and is_cjk(term) else "word"


def terms_in(normalized: str, terms: Iterable[str]) -> set[str]:
    """The members of ``terms`` that ``term_set(normalized)`` holds, without building that set:
    a CJK bigram is in it exactly when it occurs in the text (both characters are CJK, so they
    sit in one run); a lone character and a Latin word need the runs or the words."""
    found: set[str] = set()
    runs: set[str] | None = None
    words: set[str] | None = None
    for term in terms:
        kind = _term_kind(term)
        if kind == "bigram":
            if term in normalized:
                found.add(term)
        elif kind == "char":
            if runs is None:
                runs = {run for run in cjk_runs(normalized) if len(run) == 1}
            if term in runs:
                found.add(term)
        else:
            if words is None:
                words = set(latin_terms(normalized))
            if term in words:
                found.add(term)
    return found


_STEMMERS = threading.local()  # a PyStemmer object must not be shared between threads


def stems(words: Iterable[str]) -> list[str]:
    """The Snowball English stem of each (folded) word, in order."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = Stemmer.Stemmer("english")
    return list(stemmer.stemWords(list(words)))


def fts_index_text(text: str) -> str:
    """The stems of the Latin words and numbers, in order (CJK runs are left to the CJK table)."""
    return " ".join(stems(latin_terms(normalize(text))))


def heading_text(title: str, heading_path: Iterable[str]) -> str:
    """What a chunk's title and heading path contribute to matching (never to its content)."""
    return " ".join([title, *heading_path])


def latin_terms(normalized: str) -> list[str]:
    return _LATIN_WORD.findall(normalized)


def compounds(normalized: str) -> list[str]:
    return [m for m in _COMPOUND.findall(normalized) if not m.isdigit()]


def quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


@dataclass(frozen=True)
class LexicalQuery:
    """A user query turned into recall-first OR expressions for both tables, plus what the
    rescoring needs (terms, compounds, a bounded phrase text)."""

    normalized: str
    cjk_terms: tuple[str, ...]
    latin_terms: tuple[str, ...]
    compounds: tuple[str, ...]
    single_chars: tuple[str, ...]
    #: The stem of each Latin term (same order).
    latin_stems: tuple[str, ...] = ()
    #: One query per question when the text asks several ("住宿标准是多少？报销要多久内提交？",
    #: "what is the meal allowance, and who approves…"), each with the text's other clauses
    #: as its context; empty for a single question. A passage answering one of them fully is
    #: as relevant as one answering a single question (``rerank.features``).
    clauses: tuple[LexicalQuery, ...] = ()

    @property
    def cjk_match(self) -> str | None:
        if self.cjk_terms:
            return " OR ".join(quote(t) for t in self.cjk_terms)
        if self.single_chars:
            return " OR ".join(f"{quote(c)} * OR {quote(c)}" for c in self.single_chars)
        return None

    @property
    def fts_match(self) -> str | None:
        parts = [quote(t) for t in _unique(list(self.latin_stems))]
        for compound in self.compounds:
            words = latin_terms(compound)
            if len(words) > 1:
                parts.append(quote(" ".join(stems(words))))  # FTS5 phrase of the compound
        return " OR ".join(parts) if parts else None

    @property
    def phrase_text(self) -> str:
        return self.normalized[:MAX_PHRASE_QUERY]

    @functools.cached_property
    def phrase_words(self) -> tuple[tuple[str, ...], tuple[bool, ...]]:
        """For a question all in Latin letters, its phrase counted in words: the stem of each
        word in order (function words too, as the index keeps them), and whether each is a
        content word. Empty for a question with Chinese in it (its phrase is counted in
        characters, ``scoring.phrase_score``). Stemmed once per query, not per passage."""
        if self.cjk_terms or self.single_chars:
            return (), ()
        words = latin_terms(self.phrase_text)
        return tuple(stems(words)), tuple(w not in FUNCTION_WORDS for w in words)

    def channel_weights(self, lexical_weight: float) -> dict[str, float]:
        """Split the one full-text weight between the fts and cjk channels by the share of the
        query's terms each can match, so a number in a Chinese question (or a Chinese word in
        an English one) does not rank like the whole question."""
        cjk = len(self.cjk_terms) or len(self.single_chars)
        latin = len(self.latin_terms)
        if cjk + latin == 0:
            return {"fts": 0.0, "cjk": 0.0}
        return {
            "fts": lexical_weight * latin / (cjk + latin),
            "cjk": lexical_weight * cjk / (cjk + latin),
        }


#: Where a text's clauses part: sentence ends and semicolons, and commas (a coordinating
#: "and" / 以及 / 还有 / 另外 / 并且 after one goes with it).
_CLAUSE_BREAK = re.compile(r"[?;!。]+|[,，、]\s*(?:(?:and|also)\s+|以及|还有|另外|并且)?")
#: The interrogatives, a closed word class, in simplified and traditional characters. 何 asks in
#: 何时, 何处, 何种, 为何, but not in 任何, 几何, 何况.
_INTERROGATIVE = re.compile(
    "什[么麼]|甚麼|多少|多久|多[长長]|多大|[几幾](?![乎何])|哪|[谁誰]|怎|如何|(?<![任几幾])何(?![况況])"
    "|是否|[吗嗎]|呢|能否|可否|有[没沒]有|是不是"
)
#: 几 counts, not asks, beside a numeral: 二十几所, 几千年, 几百人.
_NUMERAL = frozenset("0123456789零一二三四五六七八九十百千万萬")
_MAGNITUDES = frozenset("十百千万萬")
#: An interrogative after these asks nothing: 无论何种 "whichever", 没什么 "nothing".
_FREE_CHOICE = re.compile("无论|無論|不论|不論|不管")
_NOTHING = re.compile("[没沒]什[么麼]")


def asks_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese interrogative that asks (a clause holding one is a
    question): not 几 as "some" beside a numeral, not 没什么 "nothing", and not the first one
    after 无论 / 不管, which means "whichever" ("不管怎样，报销要多久" still asks 多久)."""
    free = [m.end() for m in _FREE_CHOICE.finditer(text)]
    for m in _INTERROGATIVE.finditer(text):
        if free and free[0] <= m.start():
            free = [f for f in free if f > m.start()]
            continue
        word, before, after = (
            m.group(),
            text[m.start() - 1 : m.start()],
            text[m.end() : m.end() + 1],
        )
        if word in ("几", "幾") and (before in _NUMERAL or after in _MAGNITUDES):
            continue
        if word.startswith(("什", "甚")) and _NOTHING.match(text, m.start() - 1):
            continue
        return True
    return False


ASKS_LATIN = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})
#: A Latin clause opening with an auxiliary is a yes/no question ("is travel by taxi allowed").
AUXILIARIES = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "do",
        "does",
        "did",
        "should",
        "will",
        "would",
        "may",
        "must",
        "has",
        "have",
    }
)
MAX_CLAUSES = 4
#: English determiners (a list whose second item starts with one joins noun phrases, each from
#: its determiner on: "the flight booking rules and the laptop replacement cycle").
DETERMINERS = frozenset(
    "a an the this that these those my your our their his her its".split()  # noqa: SIM905
)
#: English function words, a closed class (interrogatives, auxiliaries, articles and
#: determiners, pronouns, prepositions, conjunctions): they build a question, they do not say
#: what it is about, so a passage holding them is no evidence ("what is the capital of France"
#: matched a code of conduct on "what", "is", "the", "of"). A question made of nothing else
#: keeps them. Left in, as words that also name things: "it" (IT), "us" (US), "may" (May),
#: "will", "can", "am".
FUNCTION_WORDS = (
    ASKS_LATIN
    | AUXILIARIES
    | DETERMINERS
    | frozenset(
        "i you he she we they me him them "  # noqa: SIM905
        "of in on at to for from by with about into onto than as "
        "and or but if so nor "
        "be been being had not no".split()
    )
) - frozenset({"may", "will", "can"})


def _asks(clause: str) -> bool:
    words = _LATIN_WORD.findall(_CJK_RUN.sub(" ", clause))
    return bool(
        asks_cjk(clause)
        or ASKS_LATIN.intersection(words)
        or (words and clause.lstrip().startswith(words[0]) and words[0] in AUXILIARIES)
    )


def question_clauses(normalized: str) -> list[str]:
    """The questions of a text that asks more than one, each with the text's clauses that ask
    nothing (their shared context: "去上海出差，住宿标准是多少？报销要多久？" → "去上海出差 住宿标准是多少",
    "去上海出差 报销要多久"); [] when it asks one question or none."""
    parts = [p.strip() for p in _CLAUSE_BREAK.split(normalized) if p and p.strip()]
    if len(parts) < 2:
        return []
    asking = [p for p in parts if _asks(p)]
    if len(asking) < 2:
        return []
    context = " ".join(p for p in parts if not _asks(p))
    return [f"{context} {p}".strip() for p in asking[:MAX_CLAUSES]]


def build_query(text: str) -> LexicalQuery:
    query = _query(normalize(text))
    clauses = question_clauses(query.normalized)
    if not clauses:
        return query
    return dataclasses.replace(query, clauses=tuple(_query(c) for c in clauses))


def _query(normalized: str) -> LexicalQuery:
    runs = cjk_runs(normalized)
    grams = _unique([g for run in runs for g in bigrams(run)])
    singles = _unique([run for run in runs if len(run) == 1])
    latin_text = _CJK_RUN.sub(" ", normalized)
    latin = _unique(latin_terms(latin_text))
    # a question of nothing but function words keeps them (its Chinese words are its content)
    latin = [t for t in latin if t not in FUNCTION_WORDS] or ([] if runs else latin)
    comps = _unique(compounds(latin_text))
    budget = MAX_QUERY_TERMS
    latin = latin[: budget // 3] if grams else latin[:budget]
    grams = grams[: budget - len(latin)]
    return LexicalQuery(
        normalized,
        tuple(grams),
        tuple(latin),
        tuple(comps[:16]),
        tuple(singles[:8]),
        tuple(stems(latin)),
    )
