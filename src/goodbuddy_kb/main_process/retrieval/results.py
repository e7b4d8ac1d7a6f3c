"""The response's parts: each candidate as the workbench and the chat see it (a
`RetrievalResult` with a snippet around the first query term — for a table, its header and the
rows holding the terms, one per line), and the diagnostics every stage owes the workbench."""

from __future__ import annotations

import re
from dataclasses import dataclass

from goodbuddy_kb.contracts.retrieval import (
    DegradedChannel,
    Diagnostics,
    RerankDiagnostics,
    RetrievalResult,
    SameText,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.lexical import LexicalQuery
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.retrieval.channels import ChannelRun
from goodbuddy_kb.main_process.retrieval.settings import ChannelPlan
from goodbuddy_kb.main_process.retrieval.stages import Fusion, Relevance

SNIPPET = 240


#: A Markdown table's header delimiter line (``| --- | --- |``).
_DELIMITER = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")
#: An HTML line break (``<br>``, ``<br/>``, ``<br />``).
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
#: That line as the snippet's window may cut it, or a rule ("---"): pipes, colons and dashes.
_RULE = re.compile(r"^\s*\|?[\s|:]*-+[\s|:-]*$")


def table_snippet(content: str, terms: tuple[str, ...]) -> str | None:
    """A table chunk (a sheet's or a slide's rows) as its header, its delimiter and the rows
    holding a query term (the first rows when none does) within the snippet's length, one row
    a line, so the row that answers is read under its header; None for other content."""
    lines = content.split("\n")
    if len(lines) < 3 or not lines[0].startswith("|") or not _DELIMITER.match(lines[1]):
        return None
    rows = lines[2:]
    if not all(row.startswith("|") for row in rows):
        return None
    matched = [row for row in rows if any(t in row.casefold() for t in terms)] or rows
    kept = lines[:2]
    size = len(kept[0])
    for row in matched:
        if size + len(row) > SNIPPET and len(kept) > 2:
            break
        kept.append(row if len(row) <= SNIPPET else row[:SNIPPET] + "…")
        size += len(row)
    return "\n".join(kept) + ("\n…" if len(kept) - 2 < len(rows) else "")


def snippet(content: str, query: LexicalQuery) -> str:
    table = table_snippet(content, (*query.cjk_terms, *query.latin_terms))
    if table is not None:
        return table
    lowered = content.casefold()
    positions = [
        p for p in (lowered.find(t) for t in (*query.cjk_terms, *query.latin_terms)) if p >= 0
    ]
    start, end = _window(content, min(positions) if positions else 0)
    # a table the window touches has a line starting "|" inside it (its header or a row)
    tables = _tables(content) if "|" in content[start:end] else []
    if any(t.header_at < end and start < t.end_at for t in tables):
        return _with_tables(content, start, end, tables)
    # a table row the window cut from its header reads without the delimiter line (the
    # workbench showed "…on-call | | --- | --- | --- | |…")
    lines = content[start:end].split("\n")
    piece = " ".join(line for line in lines if not _RULE.match(line))
    # a line break written as HTML in the Markdown (<br>, in tables) reads as a space
    piece = _BREAK.sub(" ", piece)
    more = bool(content[end:].strip())
    return ("…" if content[:start].strip() else "") + piece + ("…" if more else "")


@dataclass(frozen=True)
class _Table:
    """A Markdown table inside running text: its header and delimiter lines and its rows, each
    line as (start, end) offsets in the content."""

    header: tuple[int, int]
    delimiter: tuple[int, int]
    rows: tuple[tuple[int, int], ...]

    @property
    def header_at(self) -> int:
        return self.header[0]

    @property
    def end_at(self) -> int:
        return self.rows[-1][1] if self.rows else self.delimiter[1]


def _tables(content: str) -> list[_Table]:
    spans: list[tuple[int, int]] = []
    at = 0
    for line in content.split("\n"):
        spans.append((at, at + len(line)))
        at += len(line) + 1
    text = [content[a:b].strip() for a, b in spans]
    found: list[_Table] = []
    i = 0
    while i + 1 < len(spans):
        if text[i].startswith("|") and _DELIMITER.match(text[i + 1]):
            j = i + 2
            while j < len(spans) and text[j].startswith("|"):
                j += 1
            found.append(_Table(spans[i], spans[i + 1], tuple(spans[i + 2 : j])))
            i = j
        else:
            i += 1
    return found


def _with_tables(content: str, start: int, end: int, tables: list[_Table]) -> str:
    """The window with each table it touches whole enough to read: its header, its delimiter
    and the rows the window reaches (the first row when it reaches none), a row a line, so the
    workbench reads each row as "header: value" pairs and its preview draws the table (the
    rows were run together with their pipes: "| 城市等级 | 城市 | | 一线 | 北京…"); the running
    text around them as before."""
    parts: list[str] = []
    at = start
    for table in tables:
        if not (table.header_at < end and start < table.end_at):
            continue
        before = content[at : max(at, table.header_at)]
        if before.strip():
            parts.append(" ".join(_BREAK.sub(" ", before).split()))
        rows = [r for r in table.rows if r[0] < end and start < r[1]] or list(table.rows[:1])
        lines = [content[a:b].strip() for a, b in (table.header, table.delimiter, *rows)]
        parts.append("\n".join(_BREAK.sub(" ", line) for line in lines))
        at = max(at, rows[-1][1] if rows else table.delimiter[1])
    after = content[at:end] if at < end else ""
    if after.strip():
        parts.append(" ".join(_BREAK.sub(" ", after).split()))
    more = bool(content[max(end, at) :].strip())
    text = "\n".join(p for p in parts if p)
    lead = ("…\n" if text.startswith("|") else "…") if content[:start].strip() else ""
    return lead + text + (("\n…" if not after.strip() else "…") if more else "")


#: How far before the first query term a snippet starts, at most twice that to reach the start
#: of the term's sentence.
LEAD = 60
#: Where a sentence (or a clause a reader can start at) ends.
_SENTENCE_END = re.compile(r"[。！？；!?;\n]|\.(?=\s)")


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _window(content: str, at: int) -> tuple[int, int]:
    """The snippet's span around the first query term at ``at``: from the start of the text
    when the term is within ``LEAD`` characters of it, else from the start of the term's sentence
    when it begins within ``2 × LEAD`` characters, else ``LEAD`` before the term moved to the next
    word; ending within ``SNIPPET`` characters at a word's end. A Latin word is never
    cut ("…ate on Monday" for "rotate on Monday"); a Chinese run may be, as it has no spaces."""
    start = 0
    if at > LEAD:
        ends = [m.end() for m in _SENTENCE_END.finditer(content, max(0, at - 2 * LEAD), at)]
        if ends:
            start = ends[-1]
        else:
            start = max(0, at - LEAD)
            while 0 < start < at and _latin(content[start - 1]) and _latin(content[start]):
                start += 1
        while start < at and content[start].isspace():
            start += 1
        if len(content) - start < SNIPPET:
            # the rest of the text is shorter than a snippet: the window reaches back to fill
            # it (a 195-character chunk showed its last 90, without the answer before them)
            start = _back_to(content, max(0, len(content) - SNIPPET), start)
    end = min(len(content), start + SNIPPET)
    if end < len(content) and _latin(content[end - 1]) and _latin(content[end]):
        cut = end
        while cut > at + 1 and _latin(content[cut - 1]):
            cut -= 1
        if cut > at + 1:
            end = cut
    while end > start + 1 and content[end - 1].isspace():
        end -= 1
    return start, end


def _back_to(content: str, earliest: int, start: int) -> int:
    """The start of the first sentence that begins at or after ``earliest`` (before ``start``),
    else ``earliest`` moved to the next word."""
    if earliest == 0:
        return 0
    ends = [m.end() for m in _SENTENCE_END.finditer(content, earliest, start)]
    if ends:
        at = ends[0]
    else:
        at = earliest
        while at < start and _latin(content[at - 1]) and _latin(content[at]):
            at += 1
    while at < start and content[at].isspace():
        at += 1
    return at


def to_result(
    rank: int,
    c: Candidate,
    query: LexicalQuery,
    graph_reasons: list[str] | None = None,
    below_floor: bool = False,
) -> RetrievalResult:
    return RetrievalResult(
        below_floor=below_floor,
        graph_reasons=graph_reasons or [],
        rank=rank,
        chunk_id=c.chunk_id,
        document_id=c.document_id,
        library_id=c.library_id,
        source_id=c.source_id,
        document_title=c.document_title,
        document_path=c.document_path,
        heading_path=c.heading_path,
        locator=c.locator,
        snippet=snippet(c.content, query),
        checksum=c.checksum,
        channel_ranks=c.channel_ranks,
        vector_similarity=c.vector_similarity,
        rrf_score=c.fused,
        pre_rerank_rank=c.pre_rank,
        relevance=round(c.relevance, 6),
        features={k: round(v, 6) for k, v in c.features.items()},
        same_text=[
            SameText(
                chunk_id=d.chunk_id,
                document_id=d.document_id,
                source_id=d.source_id,
                document_title=d.document_title,
                document_path=d.document_path,
            )
            for d in c.same_text
        ],
    )


def to_results(
    top: list[Candidate],
    query: LexicalQuery,
    runs: list[ChannelRun],
    first_rank: int = 1,
    below_floor: bool = False,
) -> list[RetrievalResult]:
    """The results in rank order from ``first_rank``, each with the graph's reasons for it."""
    graph_reasons = {k: v for r in runs for k, v in r.graph_reasons.items()}
    return [
        to_result(rank, c, query, graph_reasons.get(c.chunk_id, []), below_floor)
        for rank, c in enumerate(top, start=first_rank)
    ]


def describe(
    plan: ChannelPlan,
    runs: list[ChannelRun],
    fused: Fusion,
    rerank: RerankDiagnostics,
    relevance: Relevance,
    settings: KnowledgeRetrievalSettings,
    degraded: list[DegradedChannel],
    context_ms: float,
    arbitration_passed: int,
    graph_step: str | None = None,
) -> Diagnostics:
    """What each stage did: channels, counts and times, the fusion, the rerank, the floor."""
    vector = next((r for r in runs if r.channel == "vector"), None)
    background = vector.background if vector else None
    return Diagnostics(
        requested_channels=plan.requested,
        used_channels=[r.channel for r in runs if r.used],
        degraded_channels=degraded,
        candidate_counts={r.channel: r.count for r in runs if r.count is not None},
        timings_ms={
            **{r.channel: r.ms for r in runs},
            "rerank": rerank.ms,
            "relevance": relevance.ms,
            "context": context_ms,
        },
        vector_scanned=vector.scanned if vector else 0,
        filtered_by_similarity=vector.filtered if vector else 0,
        fused_candidates=len(fused.candidates),
        rerank=rerank,
        graph_entities=[e for r in runs for e in r.graph_entities][:20],
        graph_near_misses=[e for r in runs for e in r.graph_near_misses][:20],
        graph_paths=[p for r in runs for p in r.graph_paths][:10],
        graph_step=graph_step,
        fusion=fused.method,
        channel_confidence=fused.confidence,
        arbitration_passed=arbitration_passed,
        vector_background=[round(x, 6) for x in background] if background else None,
        minimum_relevance=settings.minimum_relevance,
        below_minimum_relevance=len(relevance.shown) - len(relevance.top),
        best_relevance=round(relevance.best, 6) if relevance.best is not None else None,
        vector_coverage=list(vector.coverage) if vector else [],
    )
