"""The graph channel's second step: entities a question names with a small variation
(财务共享服务中心 for 财务共享中心, "Payment Team" for "Payments Team") or describes in the words
of an entity's description, found by full text over entity names, aliases and descriptions.

An in-memory inverted index per library, built with the channel's name matcher and rebuilt
with it: Chinese is indexed as character bigrams, Latin as folded words with a plural "s"
dropped. A name is a near miss when the question covers most of its tokens, weighted by how
rare each token is among the library's names (系统 alone names nothing); a description when
most of the question's words are in it. Bounded: the question's tokens, then only the
entities that share one, and at most `MAX_NEAR` results.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from goodbuddy_kb.main_process.graph.matching import fold

MAX_NEAR = 5
#: Share of a name's (rarity-weighted) tokens the question must contain.
NAME_COVERAGE = 0.6
#: Share of the question's tokens a description must contain, and at least this many.
DESCRIPTION_COVERAGE = 0.5
DESCRIPTION_TOKENS = 3
#: Tokens carried by more names than this say nothing about which entity is meant.
MAX_POSTINGS = 5000
_WORD = re.compile(r"[a-z0-9][a-z0-9_-]*|[\u3400-\u9fff\uf900-\ufaff]+")
_STOP_WORDS = frozenset(
    ["the", "of", "and", "for", "who", "what", "which", "is", "are", "in", "to", "a", "an"]
)


#: A file path or an address in a question ("/etc/orion/gateway.yaml"): its words name a
#: file, not an entity.
_PATH = re.compile(r"\S*[/\\]\S*|\S+\.[a-z0-9]{1,5}\b")


def tokens(text: str, question: bool = False) -> list[str]:
    """Bigrams of each Chinese run (a one-character run stands alone), Latin words folded
    (``question``: paths and file names left out)."""
    out: list[str] = []
    folded = fold(text)
    if question:
        folded = _PATH.sub(" ", folded)
    for run in _WORD.findall(folded):
        if run[0].isascii():
            if run in _STOP_WORDS:
                continue
            out.append(run[:-1] if len(run) > 3 and run.endswith("s") else run)
        elif len(run) == 1:
            out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


@dataclass(frozen=True)
class NearMiss:
    entity_id: str
    score: float
    via: str  # "name" or "description"


class NearMissIndex:
    """Names, aliases and descriptions of one library's entities, tokenised once."""

    def __init__(self, entities: Iterable[tuple[str, str, str]]) -> None:
        """``entities``: (entity id, a name or alias, description — "" for an alias)."""
        self._names: dict[str, list[frozenset[str]]] = {}
        self._descriptions: dict[str, frozenset[str]] = {}
        postings: dict[str, set[str]] = {}
        for entity_id, name, description in entities:
            name_tokens = frozenset(tokens(name))
            if name_tokens:
                self._names.setdefault(entity_id, []).append(name_tokens)
                for token in name_tokens:
                    postings.setdefault(token, set()).add(entity_id)
            if description and entity_id not in self._descriptions:
                described = frozenset(tokens(description))
                if described:
                    self._descriptions[entity_id] = described
                    for token in described:
                        postings.setdefault(token, set()).add(entity_id)
        count = max(1, len(self._names))
        self._postings = {t: ids for t, ids in postings.items() if len(ids) <= MAX_POSTINGS}
        self._weight = {t: math.log(1 + count / len(ids)) for t, ids in self._postings.items()}

    def search(self, query: str, exclude: Iterable[str] = ()) -> list[NearMiss]:
        asked = set(tokens(query, question=True))
        skip = set(exclude)
        candidates: set[str] = set()
        for token in asked:
            candidates.update(self._postings.get(token, ()))
        found: list[NearMiss] = []
        for entity_id in candidates - skip:
            best = max(
                (self._coverage(name, asked) for name in self._names.get(entity_id, [])),
                default=0.0,
            )
            if best >= NAME_COVERAGE:
                found.append(NearMiss(entity_id, best, "name"))
                continue
            described = self._descriptions.get(entity_id)
            if described:
                shared = len(described & asked)
                share = shared / len(asked)
                if shared >= DESCRIPTION_TOKENS and share >= DESCRIPTION_COVERAGE:
                    found.append(NearMiss(entity_id, share * NAME_COVERAGE, "description"))
        found.sort(key=lambda n: (-n.score, n.entity_id))
        return found[:MAX_NEAR]

    def _coverage(self, name: frozenset[str], asked: set[str]) -> float:
        shared = name & asked
        # one shared token is a near miss only for a one-word name ("Payment" for "Payments")
        if not shared or (len(shared) < 2 and len(name) > 1):
            return 0.0
        total = sum(self._weight.get(t, 0.0) for t in name)
        return sum(self._weight.get(t, 0.0) for t in shared) / total if total else 0.0
