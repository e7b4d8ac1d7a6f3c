"""Why a retrieval found nothing, and what to do next: a `ZeroResult` whose sentences are
raised with their message codes (``zero.*`` in `contracts/messages.py`)."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.retrieval import (
    DegradedChannel,
    KnowledgeRetrievalChannel,
    ZeroResult,
    ZeroResultReason,
    relevance_figure,
)
from goodbuddy_kb.main_process.storage.libraries import have_retrievable_chunks


def nothing_relevant(best: float, floor: float) -> ZeroResult:
    """Even the best result is below the minimum relevance: nothing is shown."""
    return ZeroResult(
        reason="nothing_relevant",
        message=Reason("zero.nothing_relevant", best=relevance_figure(best), floor=f"{floor:g}"),
        next_step=Reason("zero.nothing_relevant.next"),
        best_relevance=round(best, 4),
        minimum_relevance=floor,
    )


def explain_zero(
    conn: sqlite3.Connection,
    library_ids: list[str],
    used: list[KnowledgeRetrievalChannel],
    filtered: int,
    degraded: list[DegradedChannel],
) -> ZeroResult:
    """Nothing matched: an empty library, no channel that could run, everything filtered by
    the minimum similarity, or simply no match."""
    if not have_retrievable_chunks(conn, library_ids):
        return _zero("empty_library", Reason("zero.empty_library"))
    if not used:
        reasons = "; ".join(d.reason for d in degraded) or Reason("zero.no_channel")
        return _zero("index_unavailable", Reason("zero.index_unavailable", reasons=reasons))
    if filtered:
        return _zero("filtered", Reason("zero.filtered", count=filtered))
    return _zero("no_match", Reason("zero.no_match"))


def _zero(reason: ZeroResultReason, message: Reason) -> ZeroResult:
    return ZeroResult(reason=reason, message=message, next_step=Reason(f"{message.code}.next"))
