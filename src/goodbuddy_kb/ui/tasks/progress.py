"""How a task's progress reads in the GUI (the Tasks tab and the graph tab's extraction line):
done/total with its percentage and pace, OCR pages, a model loading, and a finished task's
document counts in words, with what a rebuild did to manual chunk work."""

from __future__ import annotations

from goodbuddy_kb.contracts import pace
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.sources import MAX_FILES_PER_SOURCE
from goodbuddy_kb.ui.i18n import listing, tr
from goodbuddy_kb.ui.i18n.messages import say
from goodbuddy_kb.ui.widgets.locator import path_text


def progress(info: t.TaskInfo) -> str:
    """``40/256 (15%) · 2.4 chunks/s · about 1 min 30 s left`` (and, while a library's first
    vectors fill, that what is written is searchable), or the step a task is at."""
    if info.state == "running" and info.current == t.STEP_LOADING_MODEL:
        return tr("task.loading_model")
    if info.state == "running" and info.current == t.STEP_CONNECTING:
        return tr("task.connecting_model")
    if ocr_running(info):
        name = (info.current or "").rsplit("/", 1)[-1]
        return tr("task.ocr_pages", done=info.done, total=info.total, name=name)
    if info.total == 0 and info.state == "queued":
        return ""  # it waits its turn: "counting what there is to do…" beside "… Queued" was untrue
    if info.total == 0 and info.state == "running":
        return tr("task.counting")  # not "0/0 (0%)": the task has not counted its work yet
    if info.total == 0 and info.state == "completed":
        return tr("task.nothing_to_do")  # e.g. a chunk switched on and off again before it ran
    text = count_text(info)
    if growing(info):  # no time left either while the import adds chunks: the pace alone
        pace_now = pace.pace_text(info, tr, join=" · ", eta=False)
        return " · ".join(x for x in (text, pace_now, tr("task.growing")) if x)
    speed = pace_text(info)
    if info.state == "running" and info.current in (t.STEP_FILLING, t.STEP_RESUMED):
        said = tr("task.filling" if info.current == t.STEP_FILLING else "task.resumed")
        speed = " · ".join(x for x in (speed, said) if x)
    return f"{text} · {speed}" if speed else text


def growing(info: t.TaskInfo) -> bool:
    """A library's first vectors filling while its import still adds chunks: the total grows
    with them, so a share done would fall ("40/83 (48%)" became "189/800 (23%)")."""
    return info.state == "running" and info.current == t.STEP_GROWING


def count_text(info: t.TaskInfo) -> str:
    """``40/256 (15%)``, or ``40/83 chunks so far`` while the total still grows (:func:`growing`;
    "目前 28/476" had no unit beside the header's documents and chunks; a helper's try)."""
    if growing(info):
        return tr("task.so_far", done=info.done, total=info.total)
    percent = (
        int(100 * info.done / info.total)
        if info.total
        else (100 if info.state == "completed" else 0)
    )
    return tr("task.progress", done=info.done, total=info.total, percent=percent)


def bar_text(info: t.TaskInfo | None) -> str:
    """What the Tasks tab's bar says about the task it follows: the task, its state and the
    very progress text of its row (count, pace and time left come from one place, so the bar
    and the row cannot disagree). A task with nothing counted shows no count (never "0/1")."""
    if info is None:
        return tr("task.none")
    head = f"{tr(f'task.kind.{info.kind}')} · {tr(f'task.state.{info.state}')}"
    counted = info.total > 0 or info.current in t.MODEL_STEPS
    return f"{head} · {progress(info)}" if counted else head


def ocr_running(info: t.TaskInfo) -> bool:
    """An OCR task counting the pages of one document (done/total are its pages)."""
    return info.kind == "ocr" and info.state == "running" and bool(info.current and info.total)


def pace_text(info: t.TaskInfo) -> str:
    """Chunks (or documents) per second and the time left while running; the average after."""
    return pace.pace_text(info, tr, join=" · ")


def summary(info: t.TaskInfo) -> str:
    """The document a finished task of one document was about, then document counts of a sync
    or rebuild — or what a graph run found — in words (PRD §13: done, failed, cancelled)."""
    # the runner keeps a finished task's "current" only for a task of one document: its path
    named = info.document_id is not None and info.state in t.FINISHED_STATES and info.current
    name = path_text(info.current) if named and info.current else ""
    return " · ".join(x for x in (name, _counts(info)) if x)


def _counts(info: t.TaskInfo) -> str:
    s = info.summary
    if s is None:
        # a vectorisation's count is of chunks (its cell was blank once finished)
        finished = info.kind == "vectorize" and info.state in t.FINISHED_STATES
        return tr("task.summary.vectorised", n=info.done) if finished and info.done else ""
    graph = s.graph
    parts = (
        # a graph run writes entities and relations, not documents
        [
            tr(
                "task.summary.graph",
                chunks=graph.chunks,
                entities=graph.entities,
                relations=graph.relations,
            )
        ]
        # mentions are not the graph (39 relation mentions beside a graph of 5 relations read
        # as a contradiction): what the graph holds after the run, where it is known
        + (
            [
                tr(
                    "task.summary.graph_total",
                    entities=graph.total_entities,
                    relations=graph.total_relations or 0,
                )
            ]
            if graph is not None and graph.total_entities is not None
            else []
        )
        if graph is not None
        else [tr("task.summary.written", n=s.succeeded)]
    )
    for count, key in (
        (s.failed, "task.summary.failed"),
        (s.unchanged, "task.summary.unchanged"),
        (s.retried, "task.summary.retried"),
        (s.not_started, "task.summary.not_started"),
        (s.ocr_pending, "task.summary.ocr_pending"),
        (s.removed, "task.summary.removed"),
    ):
        if count:
            parts.append(tr(key, n=count))
    if s.overflow:
        parts.append(
            say(
                "source.overflow", {"count": s.overflow, "limit": f"{MAX_FILES_PER_SOURCE:,}"}, None
            )
        )
    parts += manual_work_parts(s.manual_work)
    if s.settings_applied is not None:
        skipped = s.manual_work is not None and s.manual_work.skipped_documents > 0
        parts.append(
            tr(
                "task.summary.applied"
                if s.settings_applied
                else "task.summary.not_for_skipped"
                if skipped
                else "task.summary.still_pending"
            )
        )
    return " · ".join(parts)


def manual_counts(counts: r.ManualWorkCounts) -> str:
    """ "1 edited, 2 disabled" — the kinds of manual chunk work that are there."""
    return tr("manual.join").join(
        tr(key, n=n)
        for key, n in (
            ("manual.edited", counts.edited),
            ("manual.disabled", counts.disabled),
            ("manual.deleted", counts.deleted),
        )
        if n
    )


def manual_work_parts(work: r.ManualWorkOutcome | None) -> list[str]:
    """What a rebuild did with manual chunk work: carried over, skipped, discarded."""
    if work is None:
        return []
    parts = []
    if work.carried.total:
        parts.append(tr("task.summary.manual_carried", counts=manual_counts(work.carried)))
    if work.skipped_documents:
        parts.append(
            tr(
                "task.summary.manual_skipped",
                n=work.skipped_documents,
                counts=manual_counts(work.kept),
            )
        )
        if work.skipped_paths:  # which documents (a person had to look for the ⟳ rows)
            parts.append(tr("task.summary.manual_in", paths=listing(work.skipped_paths)))
    if work.discarded.total:
        parts.append(tr("task.summary.manual_discarded", counts=manual_counts(work.discarded)))
        if work.discarded_paths:  # which documents (a sync named none)
            parts.append(tr("task.summary.manual_in", paths=listing(work.discarded_paths)))
    return parts
