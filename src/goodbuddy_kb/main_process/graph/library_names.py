"""Names the whole document or the whole library shows, not one sentence: the piece of business a
document's title names (数据导出审批规范 → 数据导出审批; "Expense claims — UK staff"), and Chinese
names of systems without a cue word, known by the slots they stand in across documents (钉钉,
企业微信). Used by `extract`."""

from __future__ import annotations

import re
from collections.abc import Iterable

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph.discovery import DISCOVERY_CONFIDENCE, Cues, Mention

#: The word for approval, a piece of business as much as the process types' own cues (申请,
#: 登记 …): used only where a rule's name has it before the rule word (数据导出审批规范).
_BUSINESS_ENDS = ("审批",)
_TRAILING_BRACKET = re.compile(r"\s*[（(][^（()）]{1,20}[)）]\s*$")


#: A Chinese title joining two things with 与, 和 or 及 before the one rule word they share.
_JOINED_TITLE = re.compile(r"([\u4e00-\u9fff]{1,10})[与和及]([\u4e00-\u9fff]{2,20})")


def joined_title(heading: str, named: list[Mention], cues: Cues) -> Mention | None:
    """A title that names one rule over two things (考勤与休假制度, 差旅与费用报销制度): the whole
    title is the rule's name, and the two rules it reads as are its other names, the rule word
    shared (考勤制度 and 休假制度; 差旅制度 and 费用报销制度). The cues read the title as what
    follows the conjunction when the whole is long (差旅与费用报销制度 gave 费用报销制度, a
    second rule beside the document's own)."""
    title = heading.strip()
    joined = _JOINED_TITLE.fullmatch(title)
    if joined is None:
        return None
    for m in named:
        if m.type_key not in ("policy", "process") or not title.endswith(m.name):
            continue
        if len(m.name) > len(joined.group(2)) and m.name != title:
            continue  # the name crosses the conjunction some other way
        words = [e for t, ends in cues.heading_suffixes if t == m.type_key for e in ends]
        word = max((e for e in words if title.endswith(e)), key=len, default="")
        aliases = [joined.group(2)] + ([joined.group(1) + word] if word else [])
        return Mention(m.type_key, title, 0, len(title), m.confidence, tuple(aliases))
    return None


#: An English title's subject before its qualifier, in sentence case ("Annual leave — UK").
_EN_SUBJECT = re.compile(r"([A-Z][a-z]+(?: [a-z]+){1,2})\s*(?:—|–|:| - )\s*\S")


def business_title(heading: str, ontology: Ontology, body: str = "") -> Mention | None:
    """The piece of business a rule document's title names (数据导出审批规范 → 数据导出审批,
    生产环境发布审批流程 → 生产环境发布审批): a title that is a rule word (规范, 流程, 办法 …)
    after the name of a process, with the whole title as its other name; or an English title's
    subject the text (``body``) speaks of again. The document's sentences without a subject are
    about the business, not about the rule."""
    types = {t.key: t for t in ontology.entity_types}
    if "process" not in types or "policy" not in types:
        return None
    title = _TRAILING_BRACKET.sub("", heading).strip()
    subject = _EN_SUBJECT.match(title)
    if subject is not None:
        # "Expense claims — UK staff": a common noun phrase the text speaks of again is what
        # the document is about (a proper name, "Riverside book club", is not repeated as one)
        name = subject.group(1)
        return (
            Mention("process", name, 0, len(name), DISCOVERY_CONFIDENCE)
            if name.casefold() in body.casefold()
            else None
        )
    if not title or not all("\u4e00" <= ch <= "\u9fff" for ch in title):
        return None
    ends = tuple(e for e in (*types["process"].suffixes, *_BUSINESS_ENDS) if e)
    rules = [w for w in (*types["policy"].suffixes, *types["process"].suffixes) if w]
    rule = next((w for w in rules if title.endswith(w)), None)
    if rule is None:
        return None
    business = title[: -len(rule)]
    if _JOINED_TITLE.fullmatch(title):
        return None  # one rule over two things (差旅与费用报销制度): ``joined_title``
    if len(business) >= 4 and business.endswith(ends):
        # a rule its text gives a relation of its own (本制度由财务部负责解释) is a thing of its
        # own, not another name of the business ("违反本规范的" gives it none)
        whole = () if f"本{rule}由" in body else (title,)
        return Mention("process", business, 0, len(business), DISCOVERY_CONFIDENCE, whole)
    if rule in types["process"].suffixes and len(business) >= 2:
        return Mention(
            "process", title, 0, len(title), DISCOVERY_CONFIDENCE
        )  # 信息安全事件响应流程
    return None


#: Where a system stands in Chinese, each a different kind of evidence: a place where work is
#: done in it (在钉钉上提交, 在企业微信“会议室”应用中), its account or its sign-in (钉钉账号,
#: 登录钉钉), listed with a system already known (OA系统和企业微信的).
_CJK_SYSTEM_SLOTS = (
    ("in", re.compile(r"在([\u4e00-\u9fff]{2,4})(?:[上中里内]|[“\"「])")),
    (
        "account",
        re.compile(r"(?:^|[^\u4e00-\u9fff]|[和与及、的])([\u4e00-\u9fff]{2,4})(?:账号|帐号|账户)"),
    ),
    ("sign-in", re.compile(r"登录([\u4e00-\u9fff]{2,4})(?=[^\u4e00-\u9fff]|$)")),
    ("with", re.compile(r"系统[和与及、]([\u4e00-\u9fff]{2,4})(?=的|[^\u4e00-\u9fff])")),
)
#: Characters no system's Chinese name holds (function words, pronouns, verbs of the slots).
_NOT_IN_A_SYSTEM = frozenset(
    "的了在是和与及或等这那其该此各每我你他她它们请须应将把被从向对上中里内使用登录"
)


def cjk_systems(texts: Iterable[str], known: set[str]) -> list[str]:
    """Chinese names of systems without a cue word (钉钉, 企业微信), by the slots they stand in:
    a name is taken when two different kinds of slot hold it across the texts (an account and a
    place where work is done), so that one loose phrase (在历史上) names nothing. ``known``:
    normalised names the library has already."""
    kinds: dict[str, set[str]] = {}
    for text in texts:
        if not any(w in text for w in ("在", "账号", "帐号", "账户", "登录", "系统")):
            continue
        for kind, slot in _CJK_SYSTEM_SLOTS:
            for m in slot.finditer(text):
                name = m.group(1)
                if _NOT_IN_A_SYSTEM.isdisjoint(name) and name not in known:
                    kinds.setdefault(name, set()).add(kind)
    return [name for name, k in kinds.items() if len(k) >= 2]
