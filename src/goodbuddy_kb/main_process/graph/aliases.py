"""Another name a text gives a name right after it: in a bracket (信息技术部（IT部）, Jason He
(贺思远)), or as a short form the text defines (财务管理部（简称“财务部”）, 质量管理部简称质量部,
Lanchuan Precision UK Ltd. (hereinafter "Lanchuan UK")).

What a bracket holds is another name only where it reads as one: not a post (应用开发组（组长
苗若琳）), a number (IT服务台（分机8800）), a lower-case English word (Priya Nair (remote)), nor
Chinese characters of which the name has none (采购管理办法（摘要）: a Chinese short form is made
of its full name's characters, 质量管理部 → 质量部, 北京大学 → 北大)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from goodbuddy_kb.main_process.graph.discovery import Mention

#: A bracket right after a name.
_BRACKET = re.compile(r"\s*[（(]\s*([^（()）]{2,40}?)\s*[)）]")
#: The words that say the next is a short or other name of what came before (以下简称、又称、
#: hereinafter …), then a quotation mark or none.
_CUE = (
    r"(?:(?:以下|下文)?(?:简称|又称|亦称|也称|下称|俗称)[为作]?|英文(?:简称|名称?)?[为是]?"
    r"|hereinafter(?: referred to as| called)?|hereafter(?: referred to as| called)?"
    r"|also (?:known as|called)|the(?=\s*[\"“]))"
)
_DEFINED_IN_BRACKET = re.compile(
    r"^" + _CUE + r"?\s*[:：]?\s*[“\"「『]?([^“”\"「」『』]{2,30}?)[”\"」』]?$"
)
#: A short form defined in the sentence itself, without a bracket (质量管理部简称质量部，…).
_DEFINED_AFTER = re.compile(
    r"\s*(?:简称|又称|亦称|也称|俗称)[为作]?[“\"「]?([\u4e00-\u9fffA-Za-z0-9]{2,12}?)[”\"」]?"
    r"(?=[，,。；;、\s）)]|$)"
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_HAN_ONLY = re.compile(r"[\u4e00-\u9fff]+")
#: Words that open a bracket holding a post (组长苗若琳), a pointer or an extension, not a name.
_NOT_A_NAME_START = ("see ", "e.g", "ext")
_TITLE_ENDS = ("Manager", "Director", "Officer", "Coordinator", "Lead", "经理", "总监")


def plausible_alias(alias: str, name: str, posts: Iterable[str] = ()) -> bool:
    """Whether ``alias`` (what a bracket after ``name`` holds, its cue and quotes removed) can
    be another name of it. ``posts``: the words of a post (组长, 经理)."""
    if alias == name or alias.startswith(tuple(posts)):
        return False  # 应用开发组（组长苗若琳）: the head, not another name
    if alias.casefold().startswith(_NOT_A_NAME_START) or alias.endswith(_TITLE_ENDS):
        return False  # David Okafor (UK Finance Manager): a title, not another name
    if re.fullmatch(r"[A-Z][A-Za-z&]*(?: [A-Za-z&]+){0,4}", alias):
        return True
    if _HAN.search(alias) and re.search(r"\d", alias):
        # IT服务台（分机8800）, 费用报销制度（2023年修订）, 员工手册（第3版）: a Chinese bracket
        # holding a number qualifies the name (an extension, a revision, an edition, a date)
        return False
    if alias.isascii() and alias.isalpha() and alias == alias.lower():
        return False  # Priya Nair (remote), the policy (draft): a qualifier, not a name
    if _HAN_ONLY.fullmatch(name) and _HAN_ONLY.fullmatch(alias) and not set(alias) & set(name):
        return False  # 采购管理办法（摘要）: no short form of the name's own characters
    return bool(re.fullmatch(r"[\u4e00-\u9fffA-Za-z0-9]{2,12}", alias)) and not alias.isdigit()


def other_name(text: str, m: Mention, posts: Iterable[str] = ()) -> str | None:
    """The other name ``text`` gives the mention ``m`` right after it, if any."""
    bracket = _BRACKET.match(text, m.end)
    if bracket is not None:
        inner = bracket.group(1)
        defined = _DEFINED_IN_BRACKET.match(inner)
        alias = (defined.group(1) if defined else inner).strip()
        if not re.search(r"[,，、;；:：]", alias) and plausible_alias(alias, m.name, posts):
            return alias
        return None
    after = _DEFINED_AFTER.match(text, m.end)
    if after is not None and plausible_alias(after.group(1), m.name, posts):
        return after.group(1)
    return None


def bracket_aliases(text: str, found: list[Mention], posts: Iterable[str] = ()) -> list[Mention]:
    """Each mention followed by another form of its name gets that form as an alias."""
    posts = tuple(posts)
    out: list[Mention] = []
    for m in found:
        alias = other_name(text, m, posts)
        if alias is not None:
            out.append(Mention(m.type_key, m.name, m.start, m.end, m.confidence, (alias,)))
        else:
            out.append(m)
    return out
