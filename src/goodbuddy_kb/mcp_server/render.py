"""What each tool returns: a structured result (its JSON schema is the tool's output schema) and a
readable text rendering of the same thing. Document text only ever appears inside the
untrusted-evidence block, delimited exactly as the chat delimits it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from goodbuddy_kb.contracts.evidence import evidence_block, neutralise
from goodbuddy_kb.contracts.external import (
    ExternalLibrariesResponse,
    ExternalSearchResponse,
    citation_id,
)
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.contracts.retrieval import ReferenceContextResponse, relevance_figure


class Degraded(BaseModel):
    channel: str
    reason: str


class LibraryInfo(BaseModel):
    id: str
    name: str
    document_count: int
    chunk_count: int
    fulltext_ready: bool = Field(description="every document has its full-text index")
    documents_pending: int
    documents_failed: int
    vector_state: str
    vector_coverage: float = Field(description="share of chunks with a current vector, 0–1")
    degraded_channels: list[Degraded]


class LibrariesOutput(BaseModel):
    libraries: list[LibraryInfo]
    warnings: list[str] = Field(
        default_factory=list, description="problems with this server's configuration"
    )


class SearchHit(BaseModel):
    rank: int
    citation_id: str = Field(description="pass to get_reference_context; cite with it")
    library_id: str
    library_name: str
    document_id: str
    chunk_id: str
    title: str
    path: str = Field(description="the document's path inside its source, or its URL")
    url: str | None
    heading_path: list[str]
    locator: dict[str, Any]
    relevance: float
    channels: list[str]
    snippet: str


class ZeroResultInfo(BaseModel):
    reason: str
    message: str
    next_step: str


class SearchDiagnostics(BaseModel):
    requested_channels: list[str]
    used_channels: list[str]
    degraded_channels: list[Degraded]
    rerank: str
    duration_ms: float
    zero_result: ZeroResultInfo | None


class SearchOutput(BaseModel):
    query: str
    libraries: list[str]
    results: list[SearchHit]
    context: str = Field(description="the assembled passages, as untrusted evidence")
    context_truncated: bool
    diagnostics: SearchDiagnostics


class ReferencePassage(BaseModel):
    chunk_id: str
    ordinal: int
    role: Literal["standalone", "parent", "child"]
    is_hit: bool
    content: str


class ReferenceOutput(BaseModel):
    citation_id: str
    library: str
    document_title: str
    document_path: str
    source_kind: str
    source_location: str
    locator: dict[str, Any]
    passages: list[ReferencePassage]
    context: str = Field(description="the passages, as untrusted evidence")


# -- list_libraries -------------------------------------------------------------------------------
def libraries_output(
    response: ExternalLibrariesResponse, warnings: list[str] | None = None
) -> LibrariesOutput:
    return LibrariesOutput(
        warnings=warnings or [],
        libraries=[
            LibraryInfo(
                id=lib.id,
                name=lib.name,
                document_count=lib.document_count,
                chunk_count=lib.chunk_count,
                fulltext_ready=lib.index.fulltext_ready,
                documents_pending=lib.index.documents_pending,
                documents_failed=lib.index.documents_failed,
                vector_state=lib.index.vector_state,
                vector_coverage=lib.index.vector_coverage,
                degraded_channels=[
                    Degraded(channel=d.channel, reason=d.reason)
                    for d in lib.index.degraded_channels
                ],
            )
            for lib in response.libraries
        ],
    )


def libraries_text(output: LibrariesOutput) -> str:
    warnings = [f"Warning: {w[:1].upper()}{w[1:]}." for w in output.warnings]
    if not output.libraries and warnings:
        return "\n".join(["No library is available to this MCP server.", *warnings])
    if not output.libraries:
        return (
            "No library is available to external AI tools. The user can switch libraries on in "
            "GoodBuddy KB → Settings → External AI tools (MCP)."
        )
    count = len(output.libraries)
    lines = [*warnings, f"{count} {'library is' if count == 1 else 'libraries are'} available:"]
    for lib in output.libraries:
        full_text = "ready" if lib.fulltext_ready else f"{lib.documents_pending} documents pending"
        lines.append(
            f"- {lib.name} (id {lib.id}): {lib.document_count} documents, {lib.chunk_count} "
            f"chunks; full-text {full_text}; vectors {lib.vector_coverage:.0%} ({lib.vector_state})"
        )
        lines.extend(f"  degraded {d.channel}: {d.reason}" for d in lib.degraded_channels)
        if lib.documents_failed:
            lines.append(f"  {lib.documents_failed} documents failed to index")
    return "\n".join(lines)


# -- knowledge_search ------------------------------------------------------------------------------
def search_output(response: ExternalSearchResponse) -> SearchOutput:
    names = {lib.id: lib.name for lib in response.libraries}
    found = response.retrieval
    hits = [
        SearchHit(
            rank=r.rank,
            citation_id=citation_id(r.library_id, r.document_id, r.chunk_id),
            library_id=r.library_id,
            library_name=names.get(r.library_id, ""),
            document_id=r.document_id,
            chunk_id=r.chunk_id,
            title=r.document_title,
            path=r.document_path,
            url=r.document_path if r.document_path.startswith(("http://", "https://")) else None,
            heading_path=r.heading_path,
            locator=r.locator,
            relevance=round(r.relevance, 4),
            channels=sorted(r.channel_ranks),
            snippet=r.snippet,
        )
        for r in found.results
    ]
    passages = []
    for group in found.context.groups:
        first = (group.hit_chunk_ids or group.chunk_ids)[0]
        cite = citation_id(group.library_id, group.document_id, first)
        passages.append((f"{group.document_title} (citation {cite})", group.text))
    diagnostics = found.diagnostics
    zero = found.zero_result
    return SearchOutput(
        query=found.query,
        libraries=[lib.name for lib in response.libraries],
        results=hits,
        context=evidence_block(passages),
        context_truncated=found.context.truncated,
        diagnostics=SearchDiagnostics(
            requested_channels=list(diagnostics.requested_channels),
            used_channels=list(diagnostics.used_channels),
            degraded_channels=[
                Degraded(channel=d.channel, reason=d.reason) for d in diagnostics.degraded_channels
            ],
            rerank=diagnostics.rerank.applied,
            duration_ms=round(found.duration_ms, 1),
            zero_result=ZeroResultInfo(
                reason=zero.reason, message=zero.message, next_step=zero.next_step
            )
            if zero
            else None,
        ),
    )


def search_text(output: SearchOutput) -> str:
    lines = [f"Searched {', '.join(output.libraries)}: {len(output.results)} results."]
    if output.diagnostics.zero_result is not None:
        zero = output.diagnostics.zero_result
        lines.append(f"Nothing found: {zero.message} {zero.next_step}")
    for hit in output.results:
        headings = hit.heading_path[1:] if hit.heading_path[:1] == [hit.title] else hit.heading_path
        where = " › ".join(headings)
        lines.append(
            f"{hit.rank}. {neutralise(hit.title)}{' › ' + neutralise(where) if where else ''}"
            f" — {hit.library_name}, relevance {relevance_figure(hit.relevance)}, citation {hit.citation_id}"
        )
    lines.append("")
    lines.append(output.context)
    lines.append("")
    lines.append(_channels_line(output.diagnostics))
    return "\n".join(lines)


def _channels_line(diagnostics: SearchDiagnostics) -> str:
    used = ", ".join(diagnostics.used_channels) or "none"
    line = f"Channels used: {used}. Rerank: {diagnostics.rerank}."
    if diagnostics.degraded_channels:
        line += " Degraded: " + "; ".join(
            f"{d.channel} — {d.reason}" for d in diagnostics.degraded_channels
        )
    return line


# -- get_reference_context -------------------------------------------------------------------------
def reference_output(cite: str, response: ReferenceContextResponse) -> ReferenceOutput:
    passages = [
        ReferencePassage(
            chunk_id=chunk.chunk_id,
            ordinal=chunk.ordinal,
            role=chunk.role,
            is_hit=chunk.is_hit,
            content=chunk.content,
        )
        for chunk in response.chunks
    ]
    title = response.document_title or ""
    labelled = [
        (f"{title} — {'cited passage' if p.is_hit else p.role + ' context'}", p.content)
        for p in passages
    ]
    return ReferenceOutput(
        citation_id=cite,
        library=response.library_name or "",
        document_title=title,
        document_path=response.document_path or "",
        source_kind=response.source_kind or "",
        source_location=response.source_location or "",
        locator=response.locator or {},
        passages=passages,
        context=evidence_block(labelled),
    )


def _span(what: str, first: int | None, last: int | None) -> str | None:
    if first is None:
        return None
    return f"{what}s {first}–{last}" if last not in (None, first) else f"{what} {first}"


def locator_text(wire: dict[str, Any]) -> str:
    """Where the passage is, in words (it printed the locator's dict: "{'lineStart': 3, …}"; a
    helper's try): "page 2 · lines 3–9 · Travel Expense Policy > Claims"."""
    at = Locator.from_wire(wire)
    parts = [
        f"attachment of “{at.message}”" if at.message else None,
        f"chapter “{at.chapter}”" if at.chapter else None,
        _span("page", at.page, at.last_page),
        _span("slide", at.slide, at.last_slide),
        _span("line", at.line_start, at.last_line),
        f"sheet “{at.sheet}”" if at.sheet else None,
        _span("row", at.row_start, at.last_row),
        " > ".join(at.heading_path)
        if at.heading_path != ([at.sheet] if at.sheet else [])
        else None,
        "OCR" if at.ocr else None,
    ]
    return " · ".join(p for p in parts if p) or "the whole document"


def reference_text(output: ReferenceOutput) -> str:
    return "\n".join(
        [
            f"Citation {output.citation_id}: {neutralise(output.document_title)} "
            f"in library {output.library}",
            f"Source ({output.source_kind}): {output.source_location}",
            f"Locator: {locator_text(output.locator)}",
            "",
            output.context,
        ]
    )
