"""A Chinese person's name and its romanisation are one person: 苗若琳 in the Chinese notes and
Miao Ruolin in the English ones. The name's Hanyu Pinyin readings (every reading of a
character that has several: 曾 ceng/zeng, 单 dan/shan), surname then given name as one word —
or given name first, as English often writes it — against a Latin name's two words, folded.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import islice, product

from pypinyin import Style, pinyin

#: A Chinese person's name: a surname of one or two characters and a given name of one or two.
_HAN_NAME = re.compile(r"[\u4e00-\u9fff]{2,4}")
#: A romanised name: two words of letters (a hyphen or an apostrophe inside the given name:
#: Ruo-lin, Xi'an).
_LATIN_NAME = re.compile(r"([A-Za-z]+)\s+([A-Za-z]+(?:[-'’][A-Za-z]+)?)")
#: Readings combined at most per name (a name of four characters that all have several).
MAX_READINGS = 32


@lru_cache(maxsize=65_536)
def han_keys(name: str) -> frozenset[str]:
    """The folded romanisations of a Chinese person's name ("miao ruolin", "ruolin miao"),
    empty for anything else."""
    if not _HAN_NAME.fullmatch(name):
        return frozenset()
    readings = pinyin(name, style=Style.NORMAL, heteronym=True)
    keys: set[str] = set()
    for spelled in islice(product(*readings), MAX_READINGS):
        # a two-character surname (欧阳, 司马) only where a given name is left after it
        for cut in (1, 2) if len(spelled) >= 3 else (1,):
            surname, given = "".join(spelled[:cut]), "".join(spelled[cut:])
            keys.add(f"{surname} {given}")
            keys.add(f"{given} {surname}")
    return frozenset(keys)


def latin_key(name: str) -> str | None:
    """The folded form of a two-word Latin name that ``han_keys`` compares ("Miao Ruo-lin" →
    "miao ruolin"), None for anything else."""
    found = _LATIN_NAME.fullmatch(name.strip())
    if found is None:
        return None
    first, second = (re.sub(r"[-'’]", "", part).casefold() for part in found.groups())
    return f"{first} {second}"


def pairs(forms: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(Chinese-named, Latin-named) people that are one person: of ``forms`` (each person's
    normalised names and aliases), a Latin name whose romanisation fits exactly one person
    written in Chinese, whose romanisations fit no other Latin-named person (张伟 and 章伟 both
    read "Zhang Wei": a "Zhang Wei" is neither)."""
    han: dict[str, set[str]] = {}
    latin: dict[str, set[str]] = {}
    for person, names in forms.items():
        for name in names:
            for key in han_keys(name):
                han.setdefault(key, set()).add(person)
            spelled = latin_key(name)
            if spelled is not None:
                latin.setdefault(spelled, set()).add(person)
    out: list[tuple[str, str]] = []
    for spelled, people in latin.items():
        chinese = han.get(spelled, set()) - people
        if len(people) != 1 or len(chinese) != 1:
            continue
        (person,), (other,) = people, chinese
        readers = {p for name in forms[other] for key in han_keys(name) for p in latin.get(key, ())}
        if readers == {person}:  # the Chinese name reads as no other Latin-named person
            out.append((other, person))
    return out
