"""What the workbench says about one search: the diagnostics (channels requested and used,
degraded ones and why, candidate counts, graph entities, timings per stage, rerank, fusion,
relevance floor, context budget), the assembled context, and the status line (how many were
found, or why nothing was)."""

from __future__ import annotations

import html

from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.ui.graph.texts import path_list
from goodbuddy_kb.ui.i18n import channel_name as channel
from goodbuddy_kb.ui.i18n import listing, tr, tr_or
from goodbuddy_kb.ui.i18n.messages import say_field

#: Degraded reasons that are no fault, said as "not used": a library's own choice, or a
#: question that names none of the graph's entities (the normal case for most questions).
NOT_USED = frozenset({"graph.off", "graph.task_off", "graph.no_entities"})
#: What the status line says as information rather than a warning: the above, or a first
#: vector index still filling (searched as far as it goes; nothing is wrong).
INFORMATION = NOT_USED | {"vector.filling"}


def stage(name: str) -> str:
    """A pipeline stage in the timings (the channels, then fusion, rerank, context...)."""
    return tr_or(f"channel.{name}", tr_or(f"stage.{name}", name))


def diagnostics_lines(result: r.KnowledgeRetrievalResponse) -> list[str]:
    """The diagnostics of a search, one fact per line: how it searched, then how it ranked."""
    return _search_lines(result) + _ranking_lines(result)


def _search_lines(result: r.KnowledgeRetrievalResponse) -> list[str]:
    """Channels requested, used and degraded (why), candidates, graph entities, timings."""
    d = result.diagnostics
    lines = [
        tr("diag.requested", v=listing(channel(x) for x in d.requested_channels)),
        tr("diag.used", v=listing(channel(x) for x in d.used_channels) or "–"),
        *[
            tr(
                "diag.off" if x.reason_code in NOT_USED else "diag.degraded",
                channel=channel(x.channel),
                reason=say_field(x, "reason"),
            )
            for x in d.degraded_channels
        ],
        tr(
            "diag.counts",
            v=listing(f"{channel(k)} {v}" for k, v in d.candidate_counts.items()),
        ),
    ]
    if d.graph_entities:  # none found: the degraded line says so
        near = ", ".join(d.graph_near_misses)
        key = "diag.graph_near" if near else "diag.graph"  # (no "near misses –")
        lines.append(tr(key, v=", ".join(d.graph_entities), near=near))
    if d.graph_paths:
        lines.append(tr("diag.graph_paths", v=path_list(d.graph_paths)))
    if d.graph_step:  # beside "no entity in the question": what the graph did all the same
        lines.append(_step_line(d.graph_step))
    if "vector" in d.requested_channels:
        ms = d.timings_ms.get("vector", 0.0)
        scanned, filtered = d.vector_scanned, d.filtered_by_similarity
        lines.append(tr("diag.vector_scan", scanned=scanned, ms=f"{ms:.0f}", filtered=filtered))
    timings = listing(f"{stage(k)} {v:.1f}" for k, v in d.timings_ms.items())
    lines.append(tr("diag.timings", v=timings, total=result.duration_ms))
    return lines


def _ranking_lines(result: r.KnowledgeRetrievalResponse) -> list[str]:
    """Rerank (and its fallback), fusion, the vector background, the relevance floor, and
    how much of the context budget was used."""
    d = result.diagnostics
    lines = [
        tr(
            "diag.rerank",
            requested=tr(f"workbench.rerank.{d.rerank.requested}"),
            applied=tr(f"workbench.rerank.{d.rerank.applied}"),
        )
    ]
    if d.rerank.fallback_reason:
        lines.append(tr("diag.fallback", v=say_field(d.rerank, "fallback_reason")))
    confidence = listing(f"{channel(k)} {v:.2f}" for k, v in d.channel_confidence.items())
    lines.append(tr("diag.fusion", method=tr(f"diag.fusion.{d.fusion}"), v=confidence or "–"))
    if d.arbitration_passed:
        lines.append(tr("diag.arbitration", n=d.arbitration_passed))
    if d.vector_background:
        mean, std = d.vector_background[0], d.vector_background[1]
        lines.append(tr("diag.background", mean=mean, std=std))
    lines.append(
        tr(
            "diag.relevance" if d.below_minimum_relevance else "diag.relevance_kept",
            floor=f"{d.minimum_relevance:g}",
            best=r.relevance_figure(d.best_relevance) if d.best_relevance is not None else "–",
            below=d.below_minimum_relevance,
        )
    )
    c = result.context
    trunc = tr("diag.truncated") if c.truncated else ""
    lines.append(tr("diag.context", chars=c.character_count, budget=c.budget, trunc=trunc))
    return lines


def context_html(context: r.Context) -> str:
    """The context a model would receive, group by group (✂ where the budget cut it)."""
    return "".join(
        f"<h4>{html.escape(g.document_title)}{' ✂' if g.truncated else ''}</h4>"
        f"<pre style='white-space: pre-wrap'>{html.escape(g.text)}</pre>"
        for g in context.groups
    )


def effective_text(s: KnowledgeRetrievalSettings, top_k: int, rerank: str, fusion: str) -> str:
    """Every setting the next search runs with (top K, rerank and fusion as chosen in the
    workbench)."""
    return tr(
        "workbench.effective.text",
        top_k=top_k,
        fts=f"{s.fts_weight:g}",
        vector=f"{s.vector_weight:g}",
        graph=f"{s.graph_weight:g}",
        multiplier=s.candidate_multiplier,
        similarity=f"{s.minimum_vector_similarity:g}",
        context=f"{s.context_max_characters:,}",
        adjacent=s.adjacent_chunk_count,
        rerank=tr(f"workbench.rerank.{rerank}"),
        floor=f"{s.minimum_relevance:g}",
        fusion=tr(f"fusion.{fusion}"),
    )


def search_facts(result: r.KnowledgeRetrievalResponse) -> str:
    """What the last search scanned: vectors compared, the vector channel's time, and how many
    the minimum vector similarity filtered out."""
    d = result.diagnostics
    vector_ms = d.timings_ms.get("vector")
    return tr(
        "workbench.effective.facts",
        scanned=d.vector_scanned,
        ms=f"{vector_ms:.1f}" if vector_ms is not None else "–",
        filtered=d.filtered_by_similarity,
    )


def _step_line(step: str) -> str:
    """The graph's step from the best result, said in the user's language."""
    return tr("diag.graph_step", v=path_list([step]))


def _capital(name: str) -> str:
    return name[:1].upper() + name[1:]


def status_text(result: r.KnowledgeRetrievalResponse) -> str:
    """How many were found (or why nothing was), then each degraded channel and why (a
    channel the library turned off is information, not a warning), and a rerank that fell back
    to another than the one asked for (the settings line names the one asked for)."""
    lines = [
        tr(
            "diag.off_line" if x.reason_code in INFORMATION else "diag.degraded_line",
            channel=_capital(channel(x.channel)),  # "ⓘ Graph: …", not "ⓘ graph: …"
            reason=say_field(x, "reason"),
        )
        for x in result.diagnostics.degraded_channels
    ]
    if result.diagnostics.graph_step:  # what the graph did all the same
        lines.append("ⓘ " + _step_line(result.diagnostics.graph_step))
    rerank = result.diagnostics.rerank
    if rerank.fallback_reason and rerank.applied != rerank.requested:
        lines.append(
            tr(
                "workbench.rerank_fallback",
                requested=tr(f"workbench.rerank.{rerank.requested}"),
                applied=tr(f"workbench.rerank.{rerank.applied}"),
                reason=say_field(rerank, "fallback_reason"),
            )
        )
    degraded = "\n".join(lines)
    if result.zero_result is not None:
        z = result.zero_result
        # The nothing-relevant message names its reason itself (best relevance, floor).
        text = tr(
            "workbench.zero.relevance" if z.reason == "nothing_relevant" else "workbench.zero",
            reason=tr_or(f"zero.reason.{z.reason}", z.reason),
            message=say_field(z, "message"),
            next=say_field(z, "next_step"),
        )
    else:
        ms = f"{result.duration_ms:.0f}"
        count = len(result.results)
        text = (
            tr("workbench.found_one", ms=ms)
            if count == 1
            else tr("workbench.found", count=count, ms=ms)
        )
        if result.below_floor:  # listed greyed under the results: say what they are
            text += tr("workbench.found_below", count=len(result.below_floor))
    return text + (f"\n{degraded}" if degraded else "")
