"""The words of English relation patterns that name the type of the name after them ("sits
in" → a place, "replaced by" → a system), and the Chinese pattern words before a head whose
tail can be a term (采购合同须经法务部审核): what a name's neighbours say about its type."""

from __future__ import annotations

import re

from goodbuddy_kb.contracts.graph import Ontology


def term_slots(ontology: Ontology) -> tuple[tuple[str, tuple[str, ...]], ...]:
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


#: The auxiliaries that open an English verb group (is, are, must be, has been).
_AUXILIARIES = re.compile(r"^(?:(?:is|are|was|were|be|been|has|have|had|must|will|also)\s+)+")


def slots(ontology: Ontology) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """ "{head} sits in {tail}" with one possible tail type: the capitalised words after "sits
    in" are a name of that type (Singapore, Berlin) even without a cue — unless the same words
    stand in a pattern that allows another tail type ("reports to" a unit or a person)."""
    found: dict[str, str] = {}
    ambiguous: set[str] = set()
    for relation in ontology.relation_types:
        for pattern in relation.patterns:
            head, tail = pattern.find("{head}"), pattern.find("{tail}")
            between = " ".join(pattern[head + len("{head}") : tail].split()) if head < tail else ""
            if not (between.isascii() and re.fullmatch(r"[a-z][a-z ]*", between or "0")):
                continue
            # and the verb without its auxiliaries: "and replaced by Jira", "are run by"
            bare = _AUXILIARIES.sub("", between)
            for words in {between, bare} if len(bare) > 3 else {between}:
                if (
                    len(relation.tail_types) != 1
                    or found.setdefault(words, relation.tail_types[0]) != relation.tail_types[0]
                ):
                    ambiguous.add(words)
    for words in ambiguous:
        found.pop(words, None)
    if not found:
        return None, {}
    words = "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(found, key=len, reverse=True)
    )
    expression = re.compile(
        r"\b("
        + words
        # (a level, a floor, a suite or a room of a place is no place's name: "sits on Level 3")
        + r")\s+(?:the\s+)?(?!(?:Level|Floor|Suite|Room)\b)"
        + r"([A-Z][A-Za-z0-9&-]*(?:\s+(?:&\s+)?[A-Z][A-Za-z0-9&-]*){0,3})"
    )
    return expression, found


#: A pattern's words right before and right after a name it relates ({tail}须经{head}审批).
_FRAME = re.compile(r"([\u4e00-\u9fff]+)\{(?:head|tail)\}([\u4e00-\u9fff]+)")


def frames(ontology: Ontology) -> tuple[tuple[str, str], ...]:
    """The words around a name in the ontology's Chinese patterns, both sides (须经…审批,
    由…负责, 向…汇报): a name between them acts in a relation the ontology knows, whatever
    stands at the relation's other end (费用须经总经理办公室审批)."""
    found = {
        (m.group(1), m.group(2))
        for relation in ontology.relation_types
        for pattern in relation.patterns
        for m in _FRAME.finditer(pattern)
    }
    return tuple(sorted(found))
