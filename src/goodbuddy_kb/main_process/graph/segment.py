"""Whether a Chinese name found by its cue is a whole word sequence of the sentence: the
sentence's words as jieba's segmenter sees them, with its dictionary's part-of-speech tags (a
statistical segmenter made for the job), read around each candidate.

A cue grows a name from its last character towards the sentence (`discovery`), and no list of
stop words tells every neighbouring word apart: 部 in 部队, 组 in 组合, 市 in 市委 end no name
(不少纪律部队, 电子音乐组合, 四川省委省政府), and a name does not start inside a word
(同性恋区, 中华人民共和国北京市) or with a word that never starts one — a preposition, an
adverb, a pronoun, a numeral (西接茫崖行政区, 列入第五批黑龙江省, 另一间唱片公司). A name that
is one ordinary word of the language (俱乐部, 调查组, 上市公司), a description of common words
(雷达系统) or that starts with a verb (招聘与入职组, 失恋花园) may still be a unit of the
library's own: such a name stays where the library relates it to something (`provisional`).

The dictionary takes about 140 MB: it is loaded when an extraction run first reads a Chinese
name, shared by the runs that read meanwhile, and let go `IDLE_RELEASE` seconds after the last.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import warnings
from collections.abc import Iterable
from typing import Any

from goodbuddy_kb.main_process.graph.discovery import Mention
from goodbuddy_kb.main_process.graph.lexicon import HEAD_TITLES

#: Tags of particles and interjections.
_PARTICLES = frozenset(["u", "ud", "ug", "uj", "ul", "uv", "uz", "y", "e", "o"])
#: Tags of a word that never starts a name: particles, prepositions, conjunctions, adverbs,
#: pronouns, numerals and measure words, directions and times, affixes, punctuation.
_NEVER_FIRST = _PARTICLES | frozenset(
    [
        "p",
        "c",
        "d",
        "df",
        "dg",
        "r",
        "rg",
        "rr",
        "rz",
        "m",
        "mg",
        "mq",
        "q",
        "f",
        "t",
        "tg",
        "k",
        "x",
    ]
)
#: Tags of a word that never sits inside a name: particles (的、了), interjections, adverbs.
_NEVER_INSIDE = _PARTICLES | {"d", "df", "dg"}
#: Tags of verbs, and of the words a verb takes as its object inside a false name.
_VERBS = frozenset(["v", "vd", "vi", "vg", "zg"])
_PLACES = frozenset(["ns", "nr", "nrt", "nt", "f"])
#: Tags of a proper name or a code: what makes a phrase a name of its own (an abbreviation,
#: 火控 "fire control", does not).
_PROPER = frozenset(["nr", "nrt", "nrfg", "ns", "nt", "nz", "eng", "guessed"])
#: Tags of a noun after a name that makes the name its modifier.
_NAMES_AFTER = frozenset(["n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "ng", "guessed"])
#: Tags of a word that starts a name of its own: a place's, a person's, an organisation's.
_NAMED = frozenset(["nr", "nrt", "nrfg", "ns", "nt", "eng"])
#: Tags of common words.
_COMMON = frozenset(["n", "ng", "vn", "l", "an", "s"])
#: Tags of numerals and measure words.
_COUNTS = frozenset(["m", "mq", "mg", "q"])
#: How often a word must occur in the dictionary's corpus to be an ordinary word, not a given
#: name (分歧 984; 文静 74, 海峰 11).
_FREQUENT = 200
#: Chinese characters (a name with any is read in its sentence; a guessed word of them only).
HAN = re.compile(r"[\u4e00-\u9fff]+")
#: The tag of a Chinese word the dictionary lacks, guessed by the segmenter: most likely a
#: name (茫崖, 摩尔甘比), read as a proper one.
_GUESSED = "guessed"
#: How often a character must occur in the dictionary's corpus for its one-character tag to be
#: trusted: a rarer one (泓 86, 祁 76 — against 在 727,915, 个 125,538, 栋 292) is most likely a
#: character of a name (泓锦大厦, 祁东海), not the measure word or place its tag says.
_RARE_CHARACTER = 100
#: Numerals keep their tag however rare (叁, 捌: the numerals of amounts written out).
_NUMERALS = frozenset(["m", "mq"])
#: Characters of context read on either side of a name.
_BEFORE, _AFTER = 8, 4


def _a_count(
    word: tuple[int, int, str], inside: list[tuple[int, int, str]], text: str, type_key: str
) -> bool:
    """A Chinese numeral or measure word inside a name (曼哈顿一家公关公司, 美国一部): a
    count, not part of a name, unless an ordinal numbers the name's last word (巴黎第四区)."""
    if word[2] in _COUNTS and type_key == "organization":
        return True  # an organisation's name has no number (日本国铁211系电力动车组)
    if word[2] not in _COUNTS or any(ch.isascii() for ch in text[word[0] - 1 : word[1] + 1]):
        return False  # a building's or a floor's number (A栋5楼)
    return not (text[word[0]] == "第" and word is inside[-2])


def _a_time(word: tuple[int, int, str]) -> bool:
    """A time inside a name: a clause glued to it (农历七月底乌石港区)."""
    return word[2] in ("t", "tg")


def _a_verb(word: tuple[int, int, str]) -> bool:
    """A one-character verb inside a name: a clause glued to it (中国大陆属第六区, 长沙地区撤区),
    or a word the dictionary lacks read a character at a time (招聘与入职组: 入|职组)."""
    return word[2] == "v" and word[1] - word[0] == 1


def _bounds(words: list[tuple[int, int, str]], s: int, e: int) -> bool:
    """Whether a word starts at ``s`` and one ends at ``e``."""
    return any(w[0] == s for w in words) and any(w[1] == e for w in words)


#: The dictionary and tagger stay loaded this long after the last extraction run that read with
#: them (seconds), then are let go: an idle backend does not hold 140 MB for a graph it built.
IDLE_RELEASE = 120.0


class _Shared:
    """The one loaded tagger of the process: how many runs read with it, and the timer that
    lets it go."""

    lock = threading.Lock()
    timer: threading.Timer | None = None
    users = 0


def _tagger() -> Any:
    """jieba's tagger with its dictionary loaded (about 0.7 s the first time)."""
    with _Shared.lock:
        _Shared.users += 1
        if _Shared.timer is not None:
            _Shared.timer.cancel()
            _Shared.timer = None
        with warnings.catch_warnings():  # (an old setuptools' pkg_resources warns)
            warnings.simplefilter("ignore")
            import jieba
            import jieba.posseg

        jieba.setLogLevel(60)  # no "Building prefix dict" on the backend's stderr
        tagger = jieba.posseg.dt
        if not tagger.word_tag_tab:  # let go before: read the tags again
            tagger.load_word_tag(tagger.tokenizer.get_dict_file())
        return tagger


def nouns(words: Iterable[str]) -> frozenset[str]:
    """Those of ``words`` that the segmenter's dictionary tags as nouns (流程, not 申请)."""
    tagger = _tagger()
    try:
        return frozenset(w for w in words if tagger.word_tag_tab.get(w, "").startswith("n"))
    finally:
        _release_later()


def _release_later() -> None:
    """A run is done with the tagger: when no other run reads with it, the dictionary goes
    after `IDLE_RELEASE` seconds unless a run starts meanwhile."""
    with _Shared.lock:
        _Shared.users -= 1
        if _Shared.users > 0:
            return
        if _Shared.timer is not None:
            _Shared.timer.cancel()
        _Shared.timer = threading.Timer(IDLE_RELEASE, _release)
        _Shared.timer.daemon = True
        _Shared.timer.start()


def _release() -> None:
    with _Shared.lock:
        _Shared.timer = None
        if _Shared.users > 0:
            return
        import jieba
        import jieba.posseg

        jieba.dt.FREQ, jieba.dt.total, jieba.dt.initialized = {}, 0, False
        jieba.posseg.dt.word_tag_tab = {}


class Segmenter:
    """Reads names in their sentences with jieba's tagger (`_tagger`), words cached per
    window."""

    def __init__(self) -> None:
        self._tagger: Any = None

    def _words(self, window: str, guess: bool = True) -> list[tuple[int, int, str]]:
        """(start, end, tag) of the words of ``window``; ``guess``: words the dictionary lacks
        are guessed (jieba's HMM), which reads names better (入职 is one word) but may glue a
        name's last character to a particle (测试组是 → 测试|组是)."""
        if self._tagger is None:
            self._tagger = _tagger()
            self._cached = functools.lru_cache(maxsize=8192)(self._cut)
        return self._cached(window, guess)

    def words(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, part-of-speech tag) of the words of ``text`` (see `_cut`)."""
        return self._words(text)

    def close(self) -> None:
        """The run is done reading (the dictionary may go; see `IDLE_RELEASE`)."""
        if self._tagger is not None:
            self._tagger = None
            _release_later()

    def _cut(self, window: str, guess: bool) -> list[tuple[int, int, str]]:
        """The words of jieba's segmenter (its four-state model guesses the words the
        dictionary lacks, fast) with the dictionary's tags; a guessed word has none: a run of
        Latin letters or digits reads "eng" or "m", a Chinese one is most likely a name
        ("nz"). (The tagger's own guesses run a model over every tag and cost tens of
        milliseconds a sentence on unknown text.)"""
        out, at = [], 0
        tags = self._tagger.word_tag_tab
        words = list(self._tagger.tokenizer.cut(window, HMM=guess))
        freq = self._tagger.tokenizer.FREQ  # (filled by the first cut)
        for word in words:
            tag = tags.get(word)
            if (
                tag is not None
                and tag not in _NUMERALS
                and len(word) == 1
                and freq.get(word, 0) < _RARE_CHARACTER
                and HAN.fullmatch(word)
            ):
                tag = _GUESSED
            if tag is None:
                if word.isascii() and word.isalnum():
                    tag = "m" if word.isdigit() else "eng"
                else:
                    tag = _GUESSED if len(word) > 1 and HAN.fullmatch(word) else "x"
            out.append((at, at + len(word), tag))
            at += len(word)
        return out

    def _tag(self, char: str) -> str:
        """The dictionary's tag of one character."""
        return str(self._tagger.word_tag_tab.get(char, "x"))

    def _person(self, name: str) -> str:
        """A person's name is not an ordinary word (干部) and does not end in a frequent one
        (常分歧 "often branches"); its surname may read as anything (任 "to serve", 常
        "often") and its given name as a rare word (柏文静, 任海峰)."""
        words = self._words(name)
        if len(words) == 1:  # one word: a name unless the dictionary has it as another word
            return "whole" if words[0][2].startswith(("nr", "nz", _GUESSED)) else "broken"
        last = words[-1]
        common = (
            last[1] - last[0] > 1
            # a given name may read as a person's or a place's (柏文静, 祁东海)
            and not last[2].startswith(("nr", "ns"))
            and self._tagger.tokenizer.FREQ.get(name[last[0] : last[1]], 0) >= _FREQUENT
        )
        return "broken" if common else "whole"

    def _names_next(self, window: str, s: int, e: int, words: list[tuple[int, int, str]]) -> bool:
        """Whether a noun follows the name (a name with a building's or a floor's number in
        it, A栋1楼大厅, is a place of its own still)."""
        if any(ch.isascii() for ch in window[s:e]):
            return False
        after = next((w for w in words if w[0] == e), None)
        if after is None or after[2] in _NAMES_AFTER:
            return after is not None
        if after[1] - after[0] == 1 or e + 1 >= len(window):
            return False
        # the next character alone: the sentence's segmentation may glue it to the word after
        # it (沙市镇为邻 reads 沙市|镇为|邻)
        alone = self._words(window[s : e + 1])[-1]
        return alone[1] - alone[0] == 1 and alone[2] in _NAMES_AFTER

    def verdict(self, text: str, start: int, end: int, type_key: str, cue: int = 0) -> str:
        """How ``text[start:end]`` reads in its sentence: "whole" (a name as it stands),
        "provisional" (a common word or a name that starts with a verb: a name only where the
        library relates it) or "broken" (it starts or ends inside a word, or starts with a
        word that never starts a name)."""
        left = max(0, start - _BEFORE)
        # a head's title after a unit is read apart (采购科|科长, not 采购|科科长)
        window = text[left : end if text.startswith(HEAD_TITLES, end) else end + _AFTER]
        s, e = start - left, end - left
        if type_key == "person":
            return self._person(window[s:e])
        words = self._words(window)
        if not _bounds(words, s, e):
            words = self._words(window, guess=False)
            if not _bounds(words, s, e):
                return "broken"
        inside = [w for w in words if s <= w[0] and w[1] <= e]
        if cue == 1 and inside[-1][2] == _GUESSED:
            # the cue glued to a guessed word is a word of its own (长沙地区撤|区, 入|职组)
            *inside, last = inside
            inside += [(c, c + 1, self._tag(window[c])) for c in range(last[0], last[1] - 1)]
            inside.append((e - 1, e, self._tag(window[e - 1])))
        first = inside[0][2]
        size = inside[0][1] - inside[0][0]
        if window[s : s + size] == window[s + size : s + 2 * size]:
            return "broken"  # a word written twice (台湾台湾电视公司)
        if first in _NEVER_FIRST or any(w[2] in _NEVER_INSIDE for w in inside[1:]):
            return "broken"
        if type_key == "location" and first in ("nt", "j") and inside[1:2] and inside[1][2] == "ns":
            return "broken"  # an organisation's name before a place (中共|天津市委)
        if any(a[2] in _VERBS and b[2] in _PLACES for a, b in itertools.pairwise(inside)):
            return "broken"  # a verb and its object (升上香港甲组, 攻破李灵曜部)
        if any(_a_count(w, inside, window, type_key) for w in inside[1:]) or any(
            _a_time(w) for w in inside[1:-1]
        ):
            return "broken"
        if any(_a_verb(w) for w in inside[1:-1]):
            return "provisional"
        if self._names_next(window, s, e, words) and not text.startswith(HEAD_TITLES, end):
            return "provisional"  # it names what follows (黑龙江省博物馆, 长宗我部信亲)
        if cue == 1 and window[e - 2].isdigit():
            return "whole"  # a numbered floor of a building (泓锦大厦5楼, 研发楼5楼)
        if len(inside) == 1 and not (cue == 1 and first == "nt"):
            # one word of the dictionary (俱乐部, 无人区, 上市公司), unless the dictionary
            # knows it as a unit's name (财务部, 外交部)
            return "provisional"
        if type_key == "system" and not any(ch.isascii() and ch.isalpha() for ch in window[s:e]):
            return "provisional"  # a system named in common words (雷达系统, 门禁系统)
        if window[e - 1] == "科":
            return "provisional"  # a section, a subject or a taxon (采购科, 选修科, 暴龙科)
        if first == "v" or any(w[2] in ("p", "c") for w in inside[1:]):
            return "provisional"  # a verb or a clause (招聘与入职组; 队长曹阳与俱乐部)
        if not any(w[2] in _PROPER for w in inside):
            return "provisional"  # common words only: a description (高档街区, 外籍总经理)
        last = inside[-1]
        if cue == 1 and (first not in _NAMED or (last[1] - last[0] > 1 and last[2] in _COMMON)):
            # one character names it and neither a name starts it (DVD分区) nor does it end
            # in the character alone (尼奥利裆部, 南宁市中心区: a word that has the character)
            return "weak"
        return "whole"


#: How many of a Chinese name's mentions are read in their sentence before its verdict stands.
MAX_READINGS = 3
_RANK = {"broken": 0, "provisional": 1, "weak": 2, "whole": 3}


class Readings:
    """The verdicts of `segment` on the names cues grew, by (type, normalised name): a name is
    whole where one of its mentions reads whole (its other mentions are not read again)."""

    def __init__(self) -> None:
        self._segmenter: Segmenter | None = None
        self.best: dict[tuple[str, str], tuple[str, int]] = {}

    def read(self, text: str, mention: Mention, key: str) -> str:
        """This mention's verdict ("whole" without reading once its name has read whole)."""
        best, readings = self.best.get((mention.type_key, key), ("broken", 0))
        if best == "whole" or readings >= MAX_READINGS:
            return best
        if self._segmenter is None:
            self._segmenter = Segmenter()
        verdict = self._segmenter.verdict(
            text, mention.start, mention.end, mention.type_key, mention.cue
        )
        if _RANK[verdict] > _RANK[best]:
            best = verdict
        self.best[(mention.type_key, key)] = (best, readings + 1)
        return verdict

    def close(self) -> None:
        if self._segmenter is not None:
            self._segmenter.close()

    def provisional(self) -> set[tuple[str, str]]:
        return {k for k, (verdict, _n) in self.best.items() if verdict == "provisional"}
