"""The Tasks tab's strings in zh-CN and en: task kinds, states, progress, pace and durations
(the graph tab shows the same progress text) (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

TASKS_STRINGS: dict[str, tuple[str, str]] = {
    "col.task": ("任务", "Task"),
    "col.progress": ("进度", "Progress"),
    "col.created": ("创建时间", "Created"),
    "task.loading_model": ("⟳ 正在加载向量模型…", "⟳ Loading the embedding model…"),
    "task.connecting_model": ("⟳ 正在连接向量服务…", "⟳ Connecting to the embedding service…"),
    "task.counting": ("正在清点要处理的内容…", "counting what there is to do…"),
    "task.nothing_to_do": ("无需处理", "nothing to do"),
    "task.filling": ("已写入的向量已可检索", "what is written is already searchable"),
    "task.resumed": (
        "应用上次在完成前停止，已自动重新开始",
        "started again by itself: the app stopped before it finished",
    ),
    "task.growing": (
        "导入仍在添加分块，已写入的向量已可检索",
        "the import is still adding chunks; what is written is already searchable",
    ),
    "task.so_far": (
        "目前 {done}/{total} 个分块",
        "{done}/{total} {total:plural:chunk|chunks} so far",
    ),
    "task.vectors_going_on": (
        "向量仍在生成，进度见“任务中心”",
        "the vectors are still being built: see the Tasks tab",
    ),
    "task.library": ("「{name}」", "“{name}”"),
    "task.activity": ("进行中的任务", "Tasks at work"),
    "task.activity.more": ("另有 {n} 个", "+{n} more"),
    "task.activity.where": ("进度与取消见“任务中心”", "Progress and cancel: the Tasks tab"),
    "task.kind.sync": ("同步", "Sync"),
    "task.kind.vectorize": ("向量化", "Vectorise"),
    "task.kind.rebuild": ("重建", "Rebuild"),
    "col.summary": ("摘要", "Summary"),
    "task.summary.written": ("{n} 个已写入", "{n} written"),
    "task.summary.vectorised": (
        "已向量化 {n} 个分块",
        "{n} {n:plural:chunk|chunks} vectorised",
    ),
    "task.summary.graph": (
        "已读分块 {chunks} · 实体提及 {entities} · 关系提及 {relations}",
        "chunks read {chunks} · entity mentions {entities} · relation mentions {relations}",
    ),
    "task.summary.graph_total": (
        "图谱现有 {entities} 个实体、{relations} 个关系",
        "the graph now holds {entities} {entities:plural:entity|entities} and {relations}"
        " {relations:plural:relation|relations}",
    ),
    "task.summary.failed": ("{n} 个失败", "{n} failed"),
    "task.summary.unchanged": ("{n} 个未变", "{n} unchanged"),
    "task.summary.retried": ("{n} 个此前失败，已重试", "{n} failed before, retried"),
    "task.summary.not_started": (
        "{n} 个未开始（保持原样）",
        "{n} not started (kept as they were)",
    ),
    "task.summary.applied": ("新设置已生效", "new settings in effect"),
    "task.summary.still_pending": ("仍在等待重建", "still waiting for rebuild"),
    "task.summary.not_for_skipped": (
        "新设置尚未用于跳过的文档",
        "new settings not yet applied to the skipped documents",
    ),
    "task.kind.graph": ("图谱抽取", "Graph extraction"),
    "task.kind.ocr": ("OCR 识别", "OCR"),
    "task.ocr_pages": (
        "OCR {done}/{total} 页 · {name}",
        "OCR {done}/{total} {total:plural:page|pages} · {name}",
    ),
    "task.summary.ocr_pending": ("{n} 个等待 OCR", "{n} waiting for OCR"),
    "task.summary.removed": (
        "{n} 个已移出（文件或网页已不在）",
        "{n} removed (the file or page is gone)",
    ),
    "manual.edited": ("已编辑 {n} 个", "{n} edited"),
    "manual.disabled": ("已停用 {n} 个", "{n} disabled"),
    "manual.deleted": ("已删除 {n} 个", "{n} deleted"),
    "manual.join": ("、", ", "),
    "task.summary.manual_carried": (
        "手动修改已沿用：{counts}",
        "manual work carried over: {counts}",
    ),
    "task.summary.manual_skipped": (
        "为保留手动修改跳过 {n} 个文档（{counts}）",
        "{n} skipped to keep manual work ({counts})",
    ),
    "task.summary.manual_discarded": (
        "手动修改已丢弃：{counts}",
        "manual work discarded: {counts}",
    ),
    "task.summary.manual_in": ("所在文档：{paths}", "in {paths}"),
    "task.state.queued": ("… 排队中", "… Queued"),
    "task.state.running": ("⟳ 运行中", "⟳ Running"),
    "task.state.completed": ("✓ 已完成", "✓ Completed"),
    "task.state.failed": ("✗ 失败", "✗ Failed"),
    "task.state.cancelled": ("⊘ 已取消", "⊘ Cancelled"),
    "task.state.interrupted": ("⚠ 已中断", "⚠ Interrupted"),
    "task.progress": ("{done}/{total}（{percent}%）", "{done}/{total} ({percent}%)"),
    "task.rate.vectorize": ("{rate} 块/秒", "{rate} chunks/s"),
    "task.rate.other": ("{rate} 个文档/秒", "{rate} documents/s"),
    "task.eta": ("约剩 {left}", "about {left} left"),
    "task.estimating": ("正在估算速度…", "estimating the pace…"),
    "task.stalled": ("暂无进展", "no progress right now"),
    "duration.hours": ("{h} 小时 {m} 分", "{h} h {m:02d} min"),
    "duration.minutes": ("{m} 分 {s} 秒", "{m} min {s:02d} s"),
    "duration.seconds": ("{s} 秒", "{s} s"),
    "task.cancel": ("取消任务", "Cancel task"),
    "task.cancelling": ("正在取消…", "Cancelling…"),
    "task.none": ("还没有任务", "No tasks yet"),
}
