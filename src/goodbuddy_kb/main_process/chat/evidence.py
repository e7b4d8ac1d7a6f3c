"""The evidence of one chat turn, numbered once (PRD §7.1, US-A3).

Every passage handed to the model is a context group of one search, shown as ``[n]``; ``n`` is
the number of its citation in the answer's citation list, which is kept in that order with the
message. One numbering holds for the whole turn: the "always" pre-search starts at 1, each tool
search of the turn continues where the last stopped, and a passage found again (the same hit
chunk first) keeps the number it was first given. A passage past the citation cap (in count or
in size) is not handed to the model at all, so the model can never cite a number the list lacks.

The turn also keeps which search channels were degraded (the vector channel down, an index
built with another model), so an answer can say so in both modes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from goodbuddy_kb.contracts.chat import Citation
from goodbuddy_kb.contracts.evidence import numbered_block
from goodbuddy_kb.contracts.limits import MAX_CITATIONS_PER_MESSAGE
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.retrieval import (
    ContextGroup,
    KnowledgeRetrievalResponse,
    RetrievalResult,
)

#: The most the citations of one message may weigh, as stored JSON.
MAX_CITATION_BYTES = 48 * 1024
#: What a cited passage's snippet holds when no result of the search describes its chunk.
FALLBACK_SNIPPET = 300
#: Most characters of a passage an answer of evidence alone quotes (no chat model, or the model
#: failed): whole lines up to this, then "…".
QUOTED_PASSAGE = 1_200


def quoted(text: str, limit: int = QUOTED_PASSAGE) -> str:
    """``text`` with its line breaks, cut after the last whole line within ``limit``
    characters (within a line where the first is longer)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return text[: cut if cut > limit // 3 else limit].rstrip() + " …"


def nothing_found(response: KnowledgeRetrievalResponse) -> str:
    zero = response.zero_result
    return (
        "(nothing relevant was found: "
        + (zero.message if zero is not None else "no passages matched.")
        + " Tell the user the libraries hold nothing relevant to this question"
        " rather than guessing.)"
    )


#: Graph paths a passage's heading gives at most.
HEADING_PATHS = 2


def heading(group: ContextGroup, result: RetrievalResult | None = None) -> str:
    """A passage's heading as the model reads it: its document and its relevance, so that a
    passage at 0.23 is not weighed like one at 0.89 (the model read only the numbers), and the
    knowledge-graph path that led to it: the bridge of a two-hop question ("数据导出审批
    —approves→ 数据保护官 —led_by→ 常婧"), which no passage may state (the model got the DPO's
    page without the rule that the DPO approves; a helper's try)."""
    paths = result.graph_reasons[:HEADING_PATHS] if result is not None else []
    graph = f"; knowledge graph: {' | '.join(paths)}" if paths else ""
    return f"{group.document_title} (relevance {group.relevance:.2f}{graph})"


def _citation(number: int, group: ContextGroup, result: RetrievalResult | None) -> Citation:
    """Citation ``number``: the group's first (most relevant) hit, described by its result."""
    if result is not None:
        return Citation(
            number=number,
            library_id=result.library_id,
            document_id=result.document_id,
            chunk_id=result.chunk_id,
            relevance=result.relevance,
            channels=sorted(result.channel_ranks),
            document_title=result.document_title,
            locator=result.locator,
            snippet=result.snippet,
            document_path=result.document_path,
            checksum=result.checksum,
        )
    return Citation(
        number=number,
        library_id=group.library_id,
        document_id=group.document_id,
        chunk_id=group.hit_chunk_ids[0],
        relevance=group.relevance,
        channels=[],
        document_title=group.document_title,
        locator=group.locators[0] if group.locators else {},
        snippet=group.text[:FALLBACK_SNIPPET],
    )


@dataclass
class TurnEvidence:
    """What one turn's searches handed the model: numbered citations and degraded channels."""

    citations: list[Citation] = field(default_factory=list)
    #: Passages of this turn's searches left out because the citation list was full.
    left_out: int = 0
    degraded: list[str] = field(default_factory=list)
    #: The model's own searches this turn, and how many found something (a stopped or failed
    #: answer still says it searched: it read "searched first" beside the tool's citations).
    tool_searches: int = 0
    tool_found: int = 0
    #: The model's searches refused before they ran (libraries outside the chat's scope).
    tool_refused: int = 0
    #: Each citation's passage as the model was given it (an answer of evidence quotes it).
    passages: dict[int, str] = field(default_factory=dict)
    _numbers: dict[str, int] = field(default_factory=dict)
    _bytes: int = 0

    def number(self, response: KnowledgeRetrievalResponse) -> list[tuple[int, ContextGroup]]:
        """The response's passages with their numbers in this turn (new ones are cited)."""
        self._note_degraded(response)
        results = {result.chunk_id: result for result in response.results}
        numbered: list[tuple[int, ContextGroup]] = []
        for group in response.context.groups:
            if not group.hit_chunk_ids:
                continue
            key = group.hit_chunk_ids[0]
            number = self._numbers.get(key)
            if number is None:
                number = self._cite(group, results.get(key))
            if number is None:
                self.left_out += 1
                continue
            numbered.append((number, group))
        return numbered

    def block(self, response: KnowledgeRetrievalResponse, *more: KnowledgeRetrievalResponse) -> str:
        """The responses as the model reads them: one untrusted-evidence block, numbered (a
        passage two of them found is given once). ``more``: the searches of the question's
        parts (`chat.parts`), after the whole question's."""
        left_out = self.left_out
        if more:
            # one list, most relevant first: the parts' passages were numbered after the whole
            # question's, so [1] could read 0.30 and [2] 0.89 (a helper's try)
            for each in more:
                self._note_degraded(each)
            response = _merged(response, more)
        passages = dict(self.number(response))
        found = {result.chunk_id: result for result in response.results}
        text = numbered_block(
            (
                (n, heading(group, found.get(group.hit_chunk_ids[0])), group.text)
                for n, group in passages.items()
            ),
            nothing_found(response),
        )
        if self.left_out > left_out:
            text += "\n\n(Further passages were left out: this answer's citation limit is reached.)"
        return text

    def _cite(self, group: ContextGroup, result: RetrievalResult | None) -> int | None:
        if len(self.citations) >= MAX_CITATIONS_PER_MESSAGE:
            return None
        citation = _citation(len(self.citations) + 1, group, result)
        size = len(json.dumps(citation.to_wire(), ensure_ascii=False).encode())
        if self._bytes + size > MAX_CITATION_BYTES:
            return None
        self._bytes += size
        self.citations.append(citation)
        self._numbers[citation.chunk_id] = len(self.citations)
        self.passages[len(self.citations)] = group.text
        return len(self.citations)

    def _note_degraded(self, response: KnowledgeRetrievalResponse) -> None:
        for d in response.diagnostics.degraded_channels:
            if d.channel == "graph":  # an empty graph is the normal case, not a degradation
                continue
            reason = Reason("channel.reason", channel=d.channel, reason=d.reason)
            if reason not in self.degraded:
                self.degraded.append(reason)

    def note_failure(self, reason: str) -> None:
        """A search of the turn failed as a whole (every channel)."""
        if reason not in self.degraded:
            self.degraded.append(reason)

    def degraded_reason(self) -> str | None:
        """Why the searches were degraded (one coded reason, or several joined by "; ")."""
        if not self.degraded:
            return None
        return self.degraded[0] if len(self.degraded) == 1 else "; ".join(self.degraded)


def _merged(
    response: KnowledgeRetrievalResponse, more: tuple[KnowledgeRetrievalResponse, ...]
) -> KnowledgeRetrievalResponse:
    """``response`` with the passages of ``more`` too, each once, most relevant first (a tie
    keeps the order they were found in)."""
    groups: dict[str, ContextGroup] = {}
    results: dict[str, RetrievalResult] = {}
    for each in (response, *more):
        for group in each.context.groups:
            if group.hit_chunk_ids:
                groups.setdefault(group.hit_chunk_ids[0], group)
        for result in each.results:
            results.setdefault(result.chunk_id, result)
    ordered = sorted(groups.values(), key=lambda g: -g.relevance)
    context = response.context.model_copy(update={"groups": ordered})
    return response.model_copy(update={"context": context, "results": list(results.values())})
