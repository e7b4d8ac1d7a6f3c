"""Discovery of the local extractor: candidate entity names from the cues each entity type
declares (name suffixes and prefixes such as 部、中心、System), defined-term patterns
("X（简称 Y）", "所谓 X", "X means") and headings that carry a cue.

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
from dataclasses import dataclass, field
from typing import Any

import ahocorasick

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph.matching import fold

DISCOVERY_CONFIDENCE = 0.7
MAX_CJK_NAME = 10


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Characters that always end a Chinese name when scanning away from a cue.
_CJK_STOPS = frozenset(
    "由的和与及在对向将把被为是了从至到或并给跟每各该本其此请已未不也都而且则如若当以再"
)
#: Function characters that end a name unless they form a word with a neighbour (the words
#: below): 数据智能部 and 供应链管理部 keep their 据 and 应, 以财务部 loses its 以.
_SOFT_STOPS = frozenset("按经须需应据归同等于有报交个种位名条项件次")
_ANY_STOP = _CJK_STOPS | _SOFT_STOPS
_SOFT_WORDS = _words(
    "以太 按摩 经理 经营 经济 经销 经贸 经纪 财经 神经 须知 需求 供应 应用 响应"
    " 应急 对应 适应 反应 应收 应付 数据 依据 证据 票据 单据 据点 归档 回归 合同"
    " 协同 同步 共同 同业 等级 平等 对外 对公 在线 参与 方向 面向 自由 理由 及时"
    " 被保险 申请 邀请 请假 聘请 请示 成都 首都 京都 当地 从业 将军 有限 报销 报表 报告"
    " 情报 报价 简报 周报 月报 日报 报名 交通 交易 交付 外交 提交 递交 交换 个人 个体 各种"
    " 品种 种类 种子 单位 岗位 部位 地位 职位 名称 名单 条例 条款 项目 事项 款项 文件 条件"
    " 软件 硬件 邮件 次数 报警 警报"
)
#: Verbs and modal words that introduce the name after them: a name never runs across one
#: (…必须使用公司邮箱, …内报告信息安全部, …前告知直属主管).
_VERB_STOPS = _words(
    "通过 使用 告知 报告 签署 需要 必须 按照 根据 经过 提交 联系 前往 参加 担任"
    " 超过 达到 低于 高于 不得 可以 应当 须经 需经 交给 交由 发给 抄送 通知 咨询"
    " 致电 登录 访问 申请 完成 负责 简称 移交 发往 拨打 进出 共有 设有"
)
#: Words of a relation pattern that commonly sit inside names, never a name boundary.
_NAME_WORDS = _words("管理 主管 模块 子系统 服务 平台 规定 标准 办公 部门 下属 下属部门 组成 基于")
#: Qualifiers in front of a name that are not part of it (新版费用报销流程, 当地规定).
_QUALIFIERS = _words(
    "当地 有关 相关 上述 其他 其它 各项 各类 新版 旧版 现行 最新 部门 任何 所有 下属 直属"
)
#: A name that ends in these is a generic noun (一线城市、其他城市), not a name.
_GENERIC_ENDS = ("城市", "超市", "都市")
#: A one-character cue followed by these characters is the start of another word (部门, 处理,
#: 市场), not the end of a name.
_NOT_A_NAME_END = _words(
    "部门 部分 部署 部件 处理 处于 处置 处罚 科技 科学 科目 市场 市值 省份 省级 组织 组长 组成"
    " 科长 部长 处长 组员 组建 区域 区分 区别 楼层 楼梯 栋楼 总部门 工厂区"
)
_DEFINED = [
    re.compile(
        r"([\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9 ]{1,30})[（(]\s*(?:简称|以下简称)[“\"]?([^）)”\"]{1,20})[”\"]?\s*[）)]"
    ),
    re.compile(r"所谓[“\"]?([\u4e00-\u9fffA-Za-z0-9]{2,20})[”\"]?"),
    re.compile(r"[“\"]([^”\"]{2,30})[”\"]\s*(?:是指|指的是|means|refers to)"),
    re.compile(r"\b([A-Z][A-Za-z0-9-]*(?:\s+[A-Z][A-Za-z0-9-]*){0,4})\s+(?:means|refers to)\b"),
]
_LATIN_STOPS = _words(
    "The A An Our This That These Those Each Every Any All If When Its Their Your"
)


@dataclass(frozen=True)
class Mention:
    type_key: str
    name: str
    start: int
    end: int
    confidence: float
    aliases: tuple[str, ...] = ()


def is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or "\uf900" <= ch <= "\ufaff"


def boundaries(ontology: Ontology) -> frozenset[str]:
    """Words a Chinese name never runs across: the verbs that introduce a name, and the
    literal words of every relation pattern (审批、隶属于、依赖 …) except single characters and
    words that sit inside names as often (管理、平台)."""
    words: set[str] = set(_VERB_STOPS)
    for relation in ontology.relation_types:
        for pattern in relation.patterns:
            for piece in re.split(r"\{head\}|\{tail\}", pattern):
                words.update(
                    run
                    for run in re.findall(r"[\u4e00-\u9fff]+", fold(piece))
                    if len(run) >= 2 and run not in _NAME_WORDS
                )
    return frozenset(words)


def _stop_automaton(stops: frozenset[str]) -> Any:
    """Boundary words (value False) and verbs (value True) in one automaton."""
    automaton = ahocorasick.Automaton()
    for word in stops:
        automaton.add_word(word, (len(word), False))
    for word in _VERB_STOPS:
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
    if ch in _CJK_STOPS:
        return text[i : i + 2] not in _SOFT_WORDS and text[max(0, i - 1) : i + 1] not in _SOFT_WORDS
    if ch in _SOFT_STOPS:
        return text[i : i + 2] not in _SOFT_WORDS and text[max(0, i - 1) : i + 1] not in _SOFT_WORDS
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
            if j == i:
                break
            letters = sum(1 for c in text[j:i] if c.isalpha())
            i = j
            if letters >= 2:
                break  # a Latin word starts the name (OA系统, 找IT服务台 → IT服务台)
            continue
        if (
            ch == "与"
            and i - 1 > limit
            and i < start
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
        # a pattern word right before the cue is part of the name (采购审批平台), a verb never
        if i in verb_ends or (i < start and (i in stop_ends or i in names_end)):
            break
        if ch in _ANY_STOP and _function_at(text, i - 1):
            break
        i -= 1
    # a Latin word glued to the name is part of it (OA系统, IT服务台)
    j = i
    while j > 0 and i - j < 8 and text[j - 1].isascii() and text[j - 1].isalnum():
        j -= 1
    if j < i and text[j].isalpha() and (j == 0 or not text[j - 1].isascii()):
        i = j
    while i < start and text[i].isascii() and not ("A" <= text[i] <= "Z" or "a" <= text[i] <= "z"):
        i += 1  # never starts with a digit
    return i if i < start else None


def _latin_words_before(text: str, start: int, limit: int = 4) -> int | None:
    """Start of up to ``limit`` capitalised words right before ``start`` (no leading article)."""
    base = max(0, start - 120)
    words = list(re.finditer(r"[A-Z][A-Za-z0-9&-]*\s+", text[base:start]))
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
        *_slots(ontology),
        _term_slots(ontology),
    )


def _term_slots(ontology: Ontology) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not any(t.key == "term" for t in ontology.entity_types):
        return ()
    found: dict[str, set[str]] = {}
    for relation in ontology.relation_types:
        if "term" not in relation.tail_types:
            continue
        for pattern in relation.patterns:
            m = re.fullmatch(r"\{tail\}([\u4e00-\u9fff]+)\{head\}([\u4e00-\u9fff]*)", pattern)
            if m and m.group(2):
                found.setdefault(m.group(1), set()).add(m.group(2))
    return tuple(
        (words, tuple(sorted(after)))
        for words, after in sorted(found.items(), key=lambda x: -len(x[0]))
    )


def _slots(ontology: Ontology) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """ "{head} sits in {tail}" with one possible tail type: the capitalised words after "sits
    in" are a name of that type (Singapore, Berlin) even without a cue."""
    found: dict[str, str] = {}
    for relation in ontology.relation_types:
        if len(relation.tail_types) != 1:
            continue
        for pattern in relation.patterns:
            head, tail = pattern.find("{head}"), pattern.find("{tail}")
            between = pattern[head + len("{head}") : tail].strip() if head < tail else ""
            if between.isascii() and re.fullmatch(r"[a-z][a-z ]*", between or "0"):
                found.setdefault(" ".join(between.split()), relation.tail_types[0])
    if not found:
        return None, {}
    words = "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(found, key=len, reverse=True)
    )
    expression = re.compile(
        r"\b(" + words + r")\s+(?:the\s+)?([A-Z][A-Za-z0-9&-]*(?:\s+[A-Z][A-Za-z0-9&-]*){0,3})"
    )
    return expression, found


def _a_name(text: str, start: int, end: int, cue: str) -> tuple[int, int] | None:
    """The trimmed span if it is still a name: more than its cue, not a generic word."""
    start, end = trim(text, start, end)
    if text[start : start + 2] in _QUALIFIERS:
        start += 2
    name = text[start:end]
    if end - start <= len(cue) or name.endswith(_GENERIC_ENDS):
        return None
    if len(cue) == 1 and is_cjk(cue) and end - start < 3:
        return None  # 内部、外部、总部: a word, not a name
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
            if len(key) > 1 or folded[end_index : end_index + 2] not in _NOT_A_NAME_END
        ]
        names_end = frozenset(e for e, k, t in ends if is_cjk(k[0]) and "role" not in t)
        places_end = frozenset(e for e, k, t in ends if is_cjk(k[0]) and t == ("location",))
        for end, key, types in ends:
            position = end - len(key)
            if is_cjk(key[0]):
                if stop_ends is None:
                    stop_ends, verb_ends = _stop_ends(folded, cues.stop_words)
                inner = names_end - places_end if types == ("location",) else names_end
                start = _cjk_before(text, end, key, stop_ends, verb_ends, inner)
                span = None if start is None else _a_name(text, start, end, key)
            else:
                # a Latin cue names only when capitalised: "Security Office", not "the Berlin office"
                boundary_ok = (end >= len(text) or not text[end].isalnum()) and (
                    not text[position].isalpha() or text[position].isupper()
                )
                start = _latin_words_before(text, position) if boundary_ok else None
                span = None if start is None else (start, end)
            if span is not None:
                for type_key in types:
                    found.append(
                        Mention(type_key, text[span[0] : span[1]], *span, DISCOVERY_CONFIDENCE)
                    )
    if cues.prefixes is not None:
        for end_index, (key, types) in cues.prefixes.iter(folded):
            found.extend(_by_prefix(text, end_index + 1 - len(key), key, types))
    if cues.term_slots and found:
        found.extend(_slot_terms(text, found, cues))
    if cues.terms:
        found.extend(_defined_terms(text))
    if cues.slots is not None:
        for m in cues.slots.finditer(text):
            type_key = cues.slot_types.get(" ".join(m.group(1).split()))
            if type_key is not None and m.group(2) not in _LATIN_STOPS:
                found.append(
                    Mention(type_key, m.group(2), m.start(2), m.end(2), DISCOVERY_CONFIDENCE)
                )
    if heading and 2 <= len(heading) <= 30:
        found.extend(_heading(text, heading, cues))
    return found


#: A word each defined-term pattern needs: the regular expression runs only where it occurs.
_DEFINED_NEEDS = (
    ("简称",),
    ("所谓",),
    ("是指", "指的是", "means", "refers to"),
    ("means", "refers to"),
)


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
                    if text[start - 1] in _ANY_STOP and _function_at(text, start - 1):
                        break
                    start -= 1
                span = trim(text, start, at)
                name = text[span[0] : span[1]]
                if (
                    span[1] - span[0] >= 3
                    and not any(s < span[1] and span[0] < e for s, e in taken)
                    and not any(
                        name.endswith(c) for _t, ends in cues.heading_suffixes for c in ends
                    )
                ):
                    yield Mention("term", name, *span, DISCOVERY_CONFIDENCE)
            at = text.find(words, at + 1)


def _defined_terms(text: str) -> Iterable[Mention]:
    for pattern, needs in zip(_DEFINED, _DEFINED_NEEDS, strict=True):
        if not any(word in text for word in needs):
            continue
        for m in pattern.finditer(text):
            start, end = m.start(1), m.end(1)
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            start, end = trim(text, start, end)
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
