"""The workbench's ranked results as a table model's columns: rank, document, locator,
relevance (with dots), the channels that found each hit and their ranks, the vector similarity,
the rank before reranking and the snippet (a table's rows as "header: value" pairs); and the
selected hit's preview (a table as a table)."""

from __future__ import annotations

import html

from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.graph.texts import is_step, path_list, reasons_shown
from goodbuddy_kb.ui.i18n import channel_name as channel
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.locator import format_locator, path_text
from goodbuddy_kb.ui.widgets.relevance import relevance_text
from goodbuddy_kb.ui.widgets.table_model import Column
from goodbuddy_kb.ui.widgets.table_text import one_line, text_html


def relevance_cell(x: r.RetrievalResult) -> str:
    return relevance_text(x.relevance, x.below_floor)


def relevance_tip(x: r.RetrievalResult) -> str:
    text = relevance_cell(x)
    return f"{text}\n{tr('relevance.below_floor.tip')}" if x.below_floor else text


def path_cell(x: r.RetrievalResult) -> str:
    """The document's path, and "+n" when n passages elsewhere have the same text."""
    text = path_text(x.document_path)
    return f"{text}  +{len(x.same_text)}" if x.same_text else text


def same_text_line(x: r.RetrievalResult) -> str:
    names = tr("list.join").join(path_text(d.document_path) for d in x.same_text)
    return tr("workbench.same_text", v=names)


def path_tip(x: r.RetrievalResult) -> str:
    return f"{x.document_title}\n{same_text_line(x)}" if x.same_text else x.document_title


def locator_text(x: r.RetrievalResult) -> str:
    """Where the hit is, worded as everywhere else (its heading path from the result)."""
    return format_locator(Locator.from_wire({**x.locator, "headingPath": x.heading_path}))


def similarity_cell(x: r.RetrievalResult) -> str:
    return f"{x.vector_similarity:.3f}" if x.vector_similarity is not None else "–"


def similarity_tip(x: r.RetrievalResult) -> str:
    """What the raw number is: wrong passages at 0.858 beside a relevance under 0.01 read as a
    contradiction (a helper's try), though the bundled model scores unrelated text about 0.8."""
    if x.vector_similarity is None:
        return tr("similarity.none")
    return tr("similarity.tip", v=similarity_cell(x))


RESULT_COLUMNS: list[Column[r.RetrievalResult]] = [
    Column("col.rank", lambda x: str(x.rank)),
    Column("col.path", path_cell, path_tip),
    Column("col.locator", locator_text),
    Column("col.relevance", relevance_cell, relevance_tip),
    Column(
        "col.channels",
        lambda x: " ".join(f"{channel(k)}#{v}" for k, v in sorted(x.channel_ranks.items())),
    ),
    Column("col.similarity", similarity_cell, similarity_tip),
    Column("col.pre_rank", lambda x: str(x.pre_rerank_rank)),
    Column("col.snippet", lambda x: one_line(x.snippet), lambda x: one_line(x.snippet)),
]
RELEVANCE_COLUMN = 3
#: Shown only when a rerank ran: without one it repeats the rank.
PRE_RANK_COLUMN = 6


def preview_html(x: r.RetrievalResult) -> str:
    """The whole snippet under its document and locator, and why the graph found it."""
    where = " · ".join(p for p in (path_text(x.document_path), locator_text(x)) if p)
    shown = reasons_shown(x.graph_reasons)
    steps = [r for r in shown if is_step(r)]
    names = [r for r in shown if r not in steps]
    # a bare name after a path read as part of it ("…—located in→ B栋3楼; Miao Ruolin")
    named = [tr("workbench.graph_names", v=tr("graph.sep").join(names))] if names else []
    why = tr("graph.path_sep").join([path_list(steps), *named] if steps else named)
    graph = (
        f"<p><i>{html.escape(tr('workbench.graph_reasons', v=why))}</i></p>"
        if x.graph_reasons
        else ""
    )
    same = f"<p><i>{html.escape(same_text_line(x))}</i></p>" if x.same_text else ""
    return f"<p><b>{html.escape(where)}</b></p>{text_html(x.snippet)}{graph}{same}"
