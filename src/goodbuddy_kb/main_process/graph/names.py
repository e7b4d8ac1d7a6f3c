"""Names the ontology's cues cannot find, each by the shape of a whole name in its place:

- people's names bound to a role: a Chinese name after a role word (部长谭一鸣, 组长：韦佳宁,
  负责人是邵雨桐) or between 由 and a verb of office (由郦佳担任), when it starts with a
  Chinese surname and ends where a word boundary is; an English "First Last" next to words that
  bind a person (led by, reports to, ", our …", " (…)", chairs);
- Latin names of systems inside Chinese text (在Jira中, VPN由…维护) and acronyms before "system";
- cells of a Markdown table under a header that names an entity type (系统, 负责部门, 联系人);
- a name's other form in brackets right after it (信息技术部（IT部）, Fu Jiacheng (符嘉诚)) as
  its alias.

A role word alone (部门负责人, 经理, the team) is never a name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph.aliases import bracket_aliases
from goodbuddy_kb.main_process.graph.discovery import (
    DISCOVERY_CONFIDENCE,
    Cues,
    Mention,
    discover,
    in_a_work_title,
)
from goodbuddy_kb.main_process.graph.english import english_names
from goodbuddy_kb.main_process.graph.lexicon import LATIN_STOPS
from goodbuddy_kb.main_process.graph.people import OFFICE_VERBS, chinese_name

#: Role words of whoever heads a unit (财务部经理孙悦 → the unit is led by 孙悦).
HEAD_ROLES = frozenset(
    [
        "部长",
        "组长",
        "科长",
        "处长",
        "经理",
        "总经理",
        "总监",
        "主任",
        "主任委员",
        "负责人",
        "主管",
        "召集人",
        "主席",
        "董事长",
        "总裁",
        "局长",
        "院长",
        "厂长",
        "队长",
        "所长",
        "行长",
        "会长",
    ]
)
#: Role words a person's name follows (经理欧阳可欣, 组长：韦佳宁), longest first; heads' and others.
ROLES_ZH = sorted(
    HEAD_ROLES | set(["联系人", "工程师", "专员", "秘书", "委员", "班长"]), key=len, reverse=True
)
_ROLE_BEFORE = re.compile(
    "(?:" + "|".join(ROLES_ZH) + r")\s*(?:[：:]\s*|是|为|由)?(?=[\u4e00-\u9fff])"
)
_VERB = "(?:全面|直接|具体|主要)?(?:" + "|".join(OFFICE_VERBS) + ")"  # (由梁静怡全面负责)
_BY_NAME = re.compile(r"由(?=[\u4e00-\u9fff]{2,4}(?:[（(][^（()）]{1,30}[)）])?" + _VERB + ")")


#: A unit's name right before a person's, the person's name closed by punctuation (联系市场部
#: 汤磊（分机…）): the name's end must be punctuation, a stricter test than after a role word.
_UNIT_BEFORE = re.compile(r"(?<=[\u4e00-\u9fff]{2})(?:部|组|科|中心|办公室)的?(?=[\u4e00-\u9fff])")
_CLOSED = frozenset("（(，,。；;、")


#: A copula or a verb of taking office, between a person and the post they hold (是, 担任…).
TAKES_POST = "是|为|担任|兼任|出任"
#: Where a clause opens: the text's start, or after a sentence, clause or list mark.
_CLAUSE_OPEN = re.compile(r"(?:^|(?<=[。；;，,！？!?\n：:]))[ \t]*(?=[\u4e00-\u9fff])")
#: A name opening its clause is a person's when the clause says which post they hold: a copula
#: or a verb of taking office, then the post, a role word that ends the clause (张伟是财务部经理,
#: 李娜担任人力资源部经理, 王强为信息技术部负责人). A role word the clause goes on after is not
#: the post (周末是部门经理值班的时间).
_HOLDS_POST = re.compile(
    rf"(?:{TAKES_POST})[^\s。；;，,！？!?、]{{0,12}}?(?:"
    + "|".join(ROLES_ZH)
    + r")(?=$|[\s。；;，,！？!?、（(])"
)


def _people_zh(text: str) -> Iterable[Mention]:
    for expression in (_ROLE_BEFORE, _BY_NAME, _UNIT_BEFORE):
        for m in expression.finditer(text):
            end = chinese_name(text, m.end())
            if end is None or (
                expression is _UNIT_BEFORE and (end >= len(text) or text[end] not in _CLOSED)
            ):
                continue
            yield Mention("person", text[m.end() : end], m.end(), end, DISCOVERY_CONFIDENCE)
    for m in _CLAUSE_OPEN.finditer(text):
        end = chinese_name(text, m.end())
        if end is not None and _HOLDS_POST.match(text, end):
            yield Mention("person", text[m.end() : end], m.end(), end, DISCOVERY_CONFIDENCE)


_CAP = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_PERSON_EN = re.compile(rf"(?<![A-Za-z])({_CAP}) ({_CAP})\b(?! [A-Z0-9&])")
_CAPITAL_BEFORE = re.compile(r"(?:[A-Z][A-Za-z]*|&) $")
#: A post written before its holder's name: "Head of Sales", "Finance Manager".
_POST_BEFORE = re.compile(r"\bHead of(?: [A-Z][A-Za-z&]*){1,2} $|\b(?:Manager|Director|Lead) $")
_BINDS_BEFORE = re.compile(
    r"(?:\bby|\bto|\bwith|\bcontact|\bask for|\bgo to|\bfrom|\band|\bare|\bis|:)\s*$",
    re.IGNORECASE,
)
_BINDS_AFTER = re.compile(
    r"^(?:,|\s*\(|\s+(?:is|was|chairs|heads|leads|runs|reports|approves|who|and|signs)\b)"
)
_NOT_A_PERSON_WORD = frozenset(
    [
        "The",
        "This",
        "That",
        "These",
        "Those",
        "Our",
        "Your",
        "Their",
        "Its",
        "Each",
        "Every",
        "Any",
        "All",
        "If",
        "When",
        "Please",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Manager",
        "Director",
        "Officer",
        "Coordinator",
        "Lead",
        "Head",
        "Chair",
        "Engineer",
        "Warden",
        "Project",
        "Group",
        "Team",
        "Department",
        "Committee",
        "Office",
        "Board",
        "Center",
        "Centre",
        "Section",
        "Desk",
        "Division",
        "System",
        "Platform",
        "Service",
        "Gateway",
        "Policy",
        "House",
        "Ltd",
        "Inc",
        "Building",
        "Floor",
        "Street",
        "Road",
        "Annual",
        "Expense",
        "Change",
        "Advisory",
        "General",
        "Managing",
        "Finance",
        # articles of the languages a Chinese text quotes (「一个民族」（Un Peuple, …）)
        "Un",
        "Une",
        "Des",
        "Les",
        "Der",
        "Die",
        "Das",
        "Los",
        "Las",
    ]
)


#: The endings English gives a noun made from another word (technology, solutions, logistics,
#: leadership, security, department): a capitalised pair with one is a company's or a unit's
#: name, not a person's ("Welcome to Xinghe Technology" made a person of a company).
_NOUN_ENDING = re.compile(r"(?:tion|sion|ology|ness|ity|ics|ship|ism|ware|ment)s?$")


def _a_made_noun(word: str) -> bool:
    """``word`` ends as a derived common noun does; "-ment" only in a long word (Clement is a
    name, Department is not)."""
    m = _NOUN_ENDING.search(word.lower())
    return m is not None and (not m.group(0).startswith("ment") or len(word) >= 8)


def _people_en(text: str) -> Iterable[Mention]:
    if not text.isascii() and not re.search("[A-Z][a-z]+ [A-Z][a-z]", text):
        return
    for m in _PERSON_EN.finditer(text):
        if m.group(1) in _NOT_A_PERSON_WORD or m.group(2) in _NOT_A_PERSON_WORD:
            continue
        if _a_made_noun(m.group(1)) or _a_made_noun(m.group(2)):
            continue
        before = text[max(0, m.start() - 12) : m.start()]
        after = text[m.end() : m.end() + 14].lstrip("*_")  # (**Finance & Admin** is run by)
        if _POST_BEFORE.search(text, max(0, m.start() - 40), m.start()):
            yield Mention("person", m.group(0), m.start(), m.end(), DISCOVERY_CONFIDENCE)
            continue  # "Head of Sales Liam Fraser": a post, then its holder
        if re.search(r"\b(?:the|of)\s*$", before, re.IGNORECASE) or _CAPITAL_BEFORE.search(before):
            continue  # "the Berlin Office", "HQ Application Development": part of a longer name
        if in_a_work_title(text, m.start(), m.end()):
            continue  # 《Saber Rider and the Star Sheriffs》: a work's title
        at_start = m.start() == 0 or text[: m.start()].rstrip().endswith((".", "\n"))
        if (
            _BINDS_BEFORE.search(before)
            or (_BINDS_AFTER.search(after) and not at_start)
            or (at_start and _BINDS_AFTER.search(after))
        ):
            yield Mention("person", m.group(0), m.start(), m.end(), DISCOVERY_CONFIDENCE)


#: A Latin name inside Chinese text where a system stands: 在Jira中, 使用SAP, VPN由…维护.
_LATIN_SYSTEM = re.compile(
    r"(?:(?<=在)|(?<=使用)|(?<=登录)|(?<=录入)|(?<=通过)|(?<=进入))([A-Za-z][A-Za-z0-9]{1,15})"
    r"(?=中|里|上|内|系统)|(?<![A-Za-z])([A-Z]{2,6})(?=由|归|连|账号|系统)"
    r"|\b([A-Z]{2,6}) (?:system|platform)\b"
    r"|\b(?:from|onto|uses?|using)\s+([A-Z][a-z]+ \d{2,4})\b"
)


_CAPITAL = re.compile("[A-Z]")


def _latin_systems(text: str) -> Iterable[Mention]:
    for m in _LATIN_SYSTEM.finditer(text):
        group = next(g for g in (1, 2, 3, 4) if m.group(g))
        start, end = m.start(group), m.end(group)
        # "in X" and "X by …" fit any noun (在ROH中, CBMM由…控制); a platform's "on X", a
        # system's own words (使用, 登录, 账号, 系统) do not
        loose = (group == 1 and text[start - 1] == "在" and text[end] == "中") or (
            group == 2 and text[end] in "由归"
        )
        yield Mention("system", m.group(group), start, end, DISCOVERY_CONFIDENCE, provisional=loose)


_TABLE_ROW = re.compile(r"^\|(.+)\|\s*$", re.MULTILINE)
_BRACKETED = re.compile(r"^(.+?)\s*[（(]\s*([^（()）]{1,30}?)\s*[)）]$")


def header_type(header: str, ontology: Ontology) -> str | None:
    """The entity type a table header names (系统 → system, 负责部门 → organization,
    联系人 → person), by the type's names and cues."""
    folded = header.strip().casefold()
    if not folded:
        return None
    if folded.endswith(("人", "person", "contact", "owner")):
        return "person" if any(t.key == "person" for t in ontology.entity_types) else None
    for etype in ontology.entity_types:
        words = [*etype.name_zh.split("/"), etype.name_en.casefold(), *etype.suffixes]
        if any(w and len(w) >= 2 and folded.endswith(w.strip().casefold()) for w in words):
            return etype.key
    return None


def table_cells(text: str, ontology: Ontology) -> Iterable[Mention]:
    """Cells of a Markdown table whose header names an entity type."""
    rows = list(_TABLE_ROW.finditer(text))
    if len(rows) < 3:
        return
    types = [header_type(h, ontology) for h in rows[0].group(1).split("|")]
    for row in rows[1:]:
        offset = row.start(1)
        for i, cell in enumerate(row.group(1).split("|")):
            type_key = types[i] if i < len(types) else None
            start = offset + len(cell) - len(cell.lstrip())
            offset += len(cell) + 1
            name = cell.strip()
            if type_key is None or not name or set(name) <= set("-: ") or len(name) > 30:
                continue
            inner = _BRACKETED.match(name)
            if inner:
                first = inner.group(1)
                yield Mention(
                    type_key,
                    first,
                    start,
                    start + len(first),
                    DISCOVERY_CONFIDENCE,
                    (inner.group(2),),
                )
            else:
                yield Mention(type_key, name, start, start + len(name), DISCOVERY_CONFIDENCE)


def names(text: str, ontology: Ontology) -> list[Mention]:
    """People, Latin system names and table cells in ``text`` (types the ontology has)."""
    keys = {t.key for t in ontology.entity_types}
    found: list[Mention] = []
    if "person" in keys:
        found.extend(_people_zh(text))
        found.extend(_people_en(text))
    if "system" in keys and _CAPITAL.search(text):
        found.extend(_latin_systems(text))
    if "location" in keys and "Building " in text:
        found.extend(
            Mention("location", m.group(), m.start(), m.end(), DISCOVERY_CONFIDENCE)
            for m in _BUILDING.finditer(text)
        )
    if "|" in text:
        found.extend(m for m in table_cells(text, ontology) if m.type_key in keys)
    return found


#: A building known by a letter or number, with the floor of it if the text gives one: one
#: place, the way Chinese writes it (A栋7楼 = the 7th floor of Building A).
_BUILDING = re.compile(
    r"\b(?:(?:\d{1,2}(?:st|nd|rd|th)|ground|first|second|third|fourth|fifth|top) floor of )?"
    r"Building [A-Z0-9]\b"
)


_NAME_BEFORE_TITLE = re.compile(r"[A-Z][a-z]+ [A-Z][a-z]+\s*[,(（][^,.;()]{0,20}$")


def _a_term(name: str) -> bool:
    """A defined term is a short name, not a clause (恋爱即可以很自然的理解为…)."""
    return len(name) <= 12 and not any(w in name for w in ("的", "是", "就", "即"))


def _a_post(text: str, m: Mention) -> bool:
    """Whether a role name stands for a post on its own: not a title right before a person's
    name (人力资源总监柏文静) or after one (David Okafor, Finance Manager), not a generic
    post of any unit (部门负责人, 需求部门负责人)."""
    if "部门" in m.name or chinese_name(text, m.end) is not None:
        return False
    return not _NAME_BEFORE_TITLE.search(text, max(0, m.start - 40), m.start)


def find(
    text: str,
    ontology: Ontology,
    heading: str | None = None,
    cues: Cues | None = None,
    folded: str | None = None,
) -> list[Mention]:
    """Every candidate name in ``text``: the cues' (`discovery.discover`) and the shapes above,
    each with the alias a bracket after it gives."""
    found = [
        m
        for m in discover(text, ontology, heading, cues=cues, folded=folded)
        if (m.type_key != "role" or _a_post(text, m)) and (m.type_key != "term" or _a_term(m.name))
    ]
    found.extend(names(text, ontology))
    keys = {t.key for t in ontology.entity_types}
    if "term" in keys and "(" in text:
        found.extend(_acronyms(text, found))
    more = list(english_names(text, keys, found))
    if more:  # (a unit a person runs is no person)
        units = {(m.start, m.end) for m in more if m.type_key == "organization"}
        found = [m for m in found if (m.start, m.end) not in units] + more
    if found and (" and " in text or " or " in text or ", " in text):
        found.extend(coordinated(text, found))
    if "(" in text or "（" in text or "称" in text:
        return bracket_aliases(text, found, ROLES_ZH)
    return found


_ACRONYM = re.compile(r"\(([A-Z]{2,6})s?\)")


def _long_form(words: str, short: str) -> int | None:
    """Where in ``words`` the long form of ``short`` starts: its letters in order, the first
    at a word's start, as far right as they fit (Schwartz and Hearst, PSB 2003)."""
    s, at = len(short) - 1, len(words) - 1
    while s >= 0:
        c = short[s].lower()
        while at >= 0 and (
            words[at].lower() != c or (s == 0 and at > 0 and words[at - 1].isalnum())
        ):
            at -= 1
        if at < 0:
            return None
        at -= 1
        s -= 1
    return at + 1


def _acronyms(text: str, found: list[Mention]) -> Iterable[Mention]:
    """An English term defined by its initials in brackets ("a supplier non-conformance report
    (NCR)"): the long form, with the initials as its other name, unless a name is there
    already (the Quality Management Department (QA))."""
    for m in _ACRONYM.finditer(text):
        short = m.group(1)
        window_start = max(0, m.start() - 12 * len(short))
        words = text[window_start : m.start()].rstrip()
        start = _long_form(words, short)
        if start is None:
            continue
        begin, end = window_start + start, window_start + len(words)
        long_form = text[begin:end]
        if (
            len(long_form.split()) > len(short) + 1
            or not long_form.replace("-", " ").replace(" ", "").isalpha()
            or any(f.start < end and begin < f.end for f in found)
        ):
            continue
        yield Mention("term", long_form, begin, end, DISCOVERY_CONFIDENCE, (short,))


#: A capitalised name coordinated with another ("Jira (issue tracking) and Confluence"), on
#: either side of it; a bracketed gloss may follow either name.
_LATIN_NAME = r"\b([A-Z][A-Za-z0-9]+(?: \d{1,4})?)\b"
_GLOSS = r"(?:\s*\([^()]{1,30}\))?"
_AND_AFTER = re.compile(_GLOSS + r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+)" + _LATIN_NAME)
_AND_BEFORE = re.compile(_LATIN_NAME + _GLOSS + r"\s*(?:,|\s(?:and|or))\s+$")
#: Types whose names need no cue word, so a coordinated capitalised word can be one.
BARE_TYPES = ("system", "product", "location")


def coordinated(text: str, found: list[Mention]) -> Iterable[Mention]:
    """Capitalised names listed with a found name of a type that needs no cue (a system, a
    place): of the same type (Jira and Confluence, Leeds or York)."""
    taken = {(m.start, m.end) for m in found}
    for m in list(found):
        if m.type_key not in BARE_TYPES or not m.name.isascii():
            continue
        after = _AND_AFTER.match(text, m.end)
        before = _AND_BEFORE.search(text, max(0, m.start - 60), m.start)
        for hit in (after, before):
            if hit is None or hit.group(1) in LATIN_STOPS or hit.span(1) in taken:
                continue
            taken.add(hit.span(1))
            yield Mention(m.type_key, hit.group(1), *hit.span(1), m.confidence)
