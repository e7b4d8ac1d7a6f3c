"""The retrieval workbench's strings in zh-CN and en: the query, the results and their
diagnostics (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

WORKBENCH_STRINGS: dict[str, tuple[str, str]] = {
    "diag.degraded_line": ("⚠ {channel}：{reason}", "⚠ {channel}: {reason}"),
    "diag.off_line": ("ⓘ {channel}：{reason}", "ⓘ {channel}: {reason}"),
    "workbench.found": (
        "{count} 条结果 · {ms} 毫秒",
        "{count} {count:plural:result|results} · {ms} ms",
    ),
    "workbench.found_one": ("1 条结果 · {ms} 毫秒", "1 result · {ms} ms"),
    "workbench.found_below": (
        " · 另有 {count} 条低于最低相关度（灰色，不作为证据）",
        " · {count} more below the minimum relevance (grey, not evidence)",
    ),
    # workbench
    "workbench.open": ("测试检索", "Test retrieval"),
    "workbench.title": ("测试检索 — {name}", "Test retrieval — {name}"),
    "workbench.query": ("问题", "Question"),
    "workbench.query.hint": (
        "输入问题 · Enter 检索，Shift+Enter 换行",
        "Type a question · Enter searches, Shift+Enter adds a line",
    ),
    "workbench.counter": (
        "{count}/{limit} 字符",
        "{count}/{limit} {limit:plural:character|characters}",
    ),
    "workbench.run": ("检索", "Search"),
    "workbench.cancel": ("取消", "Cancel"),
    "workbench.rerank": ("重排", "Rerank"),
    "workbench.rerank.off": ("关闭", "Off"),
    "workbench.rerank.local": ("本地规则", "Local rules"),
    "workbench.rerank.learned": ("学习型模型", "Learned model"),
    "workbench.results": ("结果", "Results"),
    "workbench.diagnostics": ("诊断", "Diagnostics"),
    "workbench.context": ("上下文", "Context"),
    "workbench.chunk": ("分块", "Chunk"),
    "workbench.view_chunk": ("查看分块", "View chunk"),
    "workbench.open_source": ("打开来源", "Open source"),
    "workbench.effective": ("生效设置", "Effective settings"),
    "workbench.effective.loading": ("正在读取知识库设置…", "Reading the library's settings…"),
    "workbench.effective.text": (
        "生效设置：Top K {top_k} · 全文权重 {fts} · 向量权重 {vector} · 图谱权重 {graph}"
        " · 候选倍数 {multiplier} · 最低向量相似度 {similarity}"
        " · 最低相关度 {floor} · 上下文 {context} 字符 · 相邻分块 {adjacent} · 重排 {rerank}"
        " · 融合 {fusion}",
        "Effective settings: top K {top_k} · full-text weight {fts} · vector weight {vector}"
        " · graph weight {graph} · candidate multiplier {multiplier}"
        " · minimum vector similarity {similarity} · minimum relevance {floor}"
        " · context {context} {context:plural:character|characters}"
        " · adjacent chunks {adjacent} · rerank {rerank} · fusion {fusion}",
    ),
    "workbench.effective.facts": (
        "上次检索：扫描向量 {scanned} 个 · 向量耗时 {ms} 毫秒 · 低于最低向量相似度而滤除 {filtered} 个",
        "Last search: {scanned} vectors scanned · vector search {ms} ms"
        " · {filtered} filtered by the minimum vector similarity",
    ),
    "workbench.effective.changed": ("仅本次测试：{what}", "this test only: {what}"),
    "workbench.effective.changed_top_k": ("Top K（知识库：{value}）", "top K (library: {value})"),
    "workbench.effective.changed_rerank": ("重排（知识库：{value}）", "rerank (library: {value})"),
    "workbench.effective.changed_fusion": ("融合（知识库：{value}）", "fusion (library: {value})"),
    "workbench.fusion": ("融合", "Fusion"),
    "workbench.running": ("正在检索…", "Searching…"),
    "workbench.cancelled": ("已取消", "Cancelled"),
    "workbench.zero": (
        "没有结果（{reason}）：{message}\n下一步：{next}",
        "No results ({reason}): {message}\nNext: {next}",
    ),
    "diag.requested": ("请求通道：{v}", "Requested channels: {v}"),
    "diag.used": ("已检索通道：{v}", "Channels searched: {v}"),
    "diag.degraded": ("降级 {channel}：{reason}", "Degraded {channel}: {reason}"),
    "diag.off": ("未使用：{channel}——{reason}", "Not used: {channel} — {reason}"),
    "diag.counts": ("候选数：{v}", "Candidates: {v}"),
    "diag.vector_scan": (
        "向量扫描：{scanned} 个向量，用时 {ms} 毫秒；低于最低向量相似度而滤除 {filtered} 个",
        "Vector scan: {scanned} vectors in {ms} ms; {filtered} filtered by the minimum vector"
        " similarity",
    ),
    "diag.graph": (
        "知识图谱：问题提到的实体：{v}",
        "Knowledge graph: entities the question names: {v}",
    ),
    "diag.graph_near": (
        "知识图谱：问题提到的实体：{v}（其中近似匹配：{near}）",
        "Knowledge graph: entities the question names: {v} (of these, near misses: {near})",
    ),
    "diag.graph_paths": ("图谱路径：{v}", "Graph paths: {v}"),
    "diag.graph_step": (
        "图谱从检索排第一的结果提到的实体走了一步：{v}（陈述这一关系的段落因此排前）",
        "The graph took one step from an entity the search's first result names: {v} (the passage"
        " stating it was moved up)",
    ),
    "workbench.graph_reasons": ("图谱依据：{v}", "From the knowledge graph: {v}"),
    "workbench.graph_names": ("提到 {v}", "names {v}"),
    "workbench.same_text": ("同样的文字也在：{v}", "The same text is also in: {v}"),
    "similarity.tip": (
        "{v}：向量模型给出的原始余弦相似度，刻度因模型而异（内置模型给无关文字的分数也常在 0.8 左右），"
        "只适合在同一次检索中比较；这个问题的背景相似度见“诊断”。"
        "相关度才是校准过的概率。",
        "{v}: the embedding model's raw cosine similarity. Its scale is the model's own (the "
        "bundled model gives unrelated text about 0.8), so compare it only within one search; "
        "this question's background similarity is under Diagnostics. Relevance is the "
        "calibrated probability.",
    ),
    "similarity.none": (
        "向量通道没有找到这一条（或没有运行）",
        "The vector channel did not find this one (or did not run)",
    ),
    "diag.timings": ("耗时（毫秒）：{v}；总计 {total:.0f}", "Timings (ms): {v}; total {total:.0f}"),
    "diag.rerank": (
        "重排：请求 {requested}，实际 {applied}",
        "Rerank: requested {requested}, applied {applied}",
    ),
    "diag.fallback": ("回退原因：{v}", "Fallback reason: {v}"),
    "workbench.rerank_fallback": (
        "⚠ 重排：请求 {requested}，实际使用 {applied}（{reason}）",
        "⚠ Rerank: {requested} was asked for, {applied} used ({reason})",
    ),
    "diag.context": (
        "上下文：{chars}/{budget} 字符{trunc}",
        "Context: {chars}/{budget} {budget:plural:character|characters}{trunc}",
    ),
    "diag.truncated": ("（已截断）", " (truncated)"),
    "diag.fusion": (
        "融合：{method}；各通道置信度：{v}",
        "Fusion: {method}; channel confidence: {v}",
    ),
    "diag.fusion.adaptive": (
        "按查询自适应（置信度 × 分数 + 排名）",
        "query-adaptive (confidence × score + rank)",
    ),
    "diag.fusion.rrf": ("加权 RRF", "weighted RRF"),
    "diag.arbitration": (
        "全文检索的第一名已排到 {n} 条含问题用词明显更少的结果之前",
        "The full text's first pick moved above {n} result(s) holding clearly fewer of the"
        " question's words",
    ),
    "diag.background": (
        "向量背景相似度：均值 {mean:.3f}，标准差 {std:.3f}",
        "Vector background similarity: mean {mean:.3f}, std {std:.3f}",
    ),
    "diag.relevance": (
        "最低相关度 {floor}；最佳相关度 {best}；{below} 条低于最低相关度，不作为证据（灰色列出）",
        "Minimum relevance {floor}; best relevance {best}; {below} below the minimum, not evidence (listed in grey)",
    ),
    "diag.relevance_kept": (
        "最低相关度 {floor}；最佳相关度 {best}；结果全部达到最低相关度",
        "Minimum relevance {floor}; best relevance {best}; every result reaches the minimum",
    ),
    "workbench.zero.relevance": ("{message}\n下一步：{next}", "{message}\nNext: {next}"),
}
