"""Names English gives away without a cue word: a post held after a copula ("is also the fire
warden"), an acronym that is a sentence's subject ("the WMS belongs to …"), a unit named by what
it does that a person runs ("Finance & Admin is run by Priya Nair"), a tool's made-up name
written in camel case (ClaimPro)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from goodbuddy_kb.main_process.graph.discovery import DISCOVERY_CONFIDENCE, Mention
from goodbuddy_kb.main_process.graph.lexicon import LATIN_STOPS

#: A post named in lower case after a copula ("Tom Fletcher … is also the fire warden"): a post
#: of its own (a generic one, "your line manager", never stands there with "the").
_HELD_POST = re.compile(
    r"\b(?:is|was|serves as|acts as)(?: also)? the ((?:[a-z]+[ -]){1,2}"
    r"(?:warden|officer|coordinator|secretary|controller|treasurer|steward|marshal))\b"
)
#: An acronym that is a sentence's subject ("the WMS belongs to …"): a thing of its own.
_SUBJECT_ACRONYM = re.compile(
    r"\b[Tt]he ([A-Z]{2,5}) (?:is|was|belongs|runs|sits|has|will|must|needs)\b"
)
#: A sentence opening with capitalised words (bold or not) that a person runs, heads or leads:
#: the words name a unit, whatever they end in ("Finance & Operations is run by Daniel Chen").
#: Only people lead (a person's name: two capitalised words); a thing run by a unit is that
#: unit's ("ClaimPro is run by Finance") and says nothing of the subject's kind.
_RUN_BY_A_PERSON = re.compile(
    r"(?:^|(?<=[.!?:]\s)|(?<=\n))(?:[-*]\s+)?\**"
    r"([A-Z][A-Za-z]*(?:\s+(?:&\s+|and\s+)?[A-Z][A-Za-z]*){0,3})\**"
    r"\s+(?:is|are)\s+(?:run|headed|led)\s+by\s+[A-Z][a-z]+\s+[A-Z][a-z]+\b",
    re.MULTILINE,
)

#: A word with capitals inside (ClaimPro, HelpBox, WeCom): a made name, in a company's notes a
#: tool's; not a surname after a particle (McKenzie, MacLeod, DuPrau, DiCaprio, LeBron, VanDyke).
_CAMEL_CASE = re.compile(
    r"(?<![\w'-])(?!(?:Mc|Mac|D[aeiu]|L[ae]|V[ao]n|Fitz)[A-Z])[A-Z][a-z]+(?:[A-Z][a-z]+)+(?![\w'-])"
)
_INNER_CAPITAL = re.compile("[a-z][A-Z]")
#: Words that open such a sentence without naming anything: pronouns and determiners.
_NOT_A_UNIT = LATIN_STOPS | {"It", "He", "She", "They", "We", "I", "You", "Everything"}


def english_names(text: str, keys: set[str], found: Sequence[Mention]) -> Iterable[Mention]:
    """The names above in ``text`` for the ontology's entity types ``keys``; a unit only where
    no other name (``found``) stands already (Project Harbour is led by …)."""
    if not (" by " in text or "the " in text or _INNER_CAPITAL.search(text)):
        return  # (the common case: none of the words these names need)
    if "role" in keys:
        for m in _HELD_POST.finditer(text):
            yield Mention("role", m.group(1), *m.span(1), DISCOVERY_CONFIDENCE)
    if "term" in keys:
        for m in _SUBJECT_ACRONYM.finditer(text):
            if m.group(1) not in LATIN_STOPS:
                yield Mention("term", m.group(1), *m.span(1), DISCOVERY_CONFIDENCE)
    if "system" in keys:
        for m in _CAMEL_CASE.finditer(text):
            if not any(f.start < m.end() and m.start() < f.end for f in found):
                yield Mention("system", m.group(0), *m.span(), DISCOVERY_CONFIDENCE)
    if "organization" in keys and " by " in text:
        for m in _RUN_BY_A_PERSON.finditer(text):
            start, end = m.span(1)
            words = m.group(1).split()
            if words[0] in _NOT_A_UNIT or any(
                f.start < end
                and start < f.end
                and (f.type_key, f.start, f.end) != ("person", start, end)
                for f in found
            ):
                continue  # (one that reads as a person's name is the unit: people are not run)
            yield Mention("organization", m.group(1), start, end, DISCOVERY_CONFIDENCE)
