"""Every user-visible GUI string, in zh-CN and en. The system locale picks the language;
GOODBUDDY_LANG (``zh`` or ``en``) overrides it."""

from __future__ import annotations

import os

from goodbuddy_kb.qt import QtCore
from goodbuddy_kb.ui.i18n.chunks import CHUNK_STRINGS
from goodbuddy_kb.ui.i18n.graph import GRAPH_STRINGS
from goodbuddy_kb.ui.i18n.settings import SETTINGS_STRINGS
from goodbuddy_kb.ui.i18n.workbench import WORKBENCH_STRINGS

STRINGS: dict[str, tuple[str, str]] = {
    # key: (zh-CN, en)
    "app.title": ("GoodBuddy 知识库", "GoodBuddy KB"),
    # retrieval channels and zero-result reasons, as people call them
    # (English keeps the short channel names the diagnostics and the CLI use.)
    "channel.fts": ("全文", "fts"),
    "channel.cjk": ("中文", "cjk"),
    "channel.vector": ("向量", "vector"),
    "channel.graph": ("图谱", "graph"),
    "stage.fusion": ("融合", "fusion"),
    "stage.rerank": ("重排", "rerank"),
    "stage.context": ("上下文", "context"),
    "stage.embed": ("问题向量化", "embed"),
    "zero.reason.empty_library": ("知识库为空", "empty library"),
    "zero.reason.index_unavailable": ("索引不可用", "index unavailable"),
    "zero.reason.filtered": ("被相似度阈值过滤", "filtered by similarity"),
    "zero.reason.no_match": ("没有匹配", "no match"),
    "zero.reason.nothing_relevant": ("没有足够相关的内容", "nothing relevant enough"),
    "libraries.heading": ("知识库", "Libraries"),
    "libraries.list": ("知识库列表", "Library list"),
    "libraries.new": ("新建知识库", "New library"),
    "libraries.rename": ("重命名", "Rename"),
    "libraries.delete": ("删除", "Delete"),
    "libraries.empty": (
        "还没有知识库。点击“新建知识库”开始导入你的资料。",
        "No libraries yet. Choose “New library” to start importing your documents.",
    ),
    "dialog.new.title": ("新建知识库", "New library"),
    "dialog.rename.title": ("重命名知识库", "Rename library"),
    "dialog.name.label": ("名称", "Name"),
    "dialog.name.placeholder": ("例如：公司制度", "For example: Company policies"),
    "dialog.name.empty": ("请输入名称。", "Enter a name."),
    "dialog.name.too_long": ("名称最多 {limit} 个字符。", "A name has at most {limit} characters."),
    "dialog.ok": ("确定", "OK"),
    "dialog.cancel": ("取消", "Cancel"),
    "dialog.close": ("关闭", "Close"),
    "dialog.delete.title": ("删除知识库", "Delete library"),
    "dialog.delete.text": (
        "删除知识库“{name}”？\n\n其索引、分块和设置将被删除；原始文件保留在原处，不会被修改或删除。",
        "Delete the library “{name}”?\n\nIts index, chunks and settings are removed; "
        "the original files stay where they are and are not changed or deleted.",
    ),
    "dialog.delete.confirm": ("删除“{name}”", "Delete “{name}”"),
    "detail.created": ("创建于 {when}", "Created {when}"),
    "detail.retrieval": ("检索设置", "Retrieval settings"),
    "detail.chunking": ("分块设置", "Chunking settings"),
    "detail.retrieval.summary": (
        "Top K {top_k} · 全文权重 {fts} · 向量权重 {vector} · 图谱权重 {graph} · 上下文 {context} 字符",
        "Top K {top_k} · full-text weight {fts} · vector weight {vector} · "
        "graph weight {graph} · context {context} characters",
    ),
    "detail.chunking.summary": (
        "模式：{mode} · 目标 {target} 字符 · 重叠 {overlap} 字符",
        "Mode: {mode} · target {target} characters · overlap {overlap} characters",
    ),
    "detail.show": ("设置摘要 ▸", "Settings summary ▸"),
    "detail.hide": ("设置摘要 ▾", "Settings summary ▾"),
    "detail.pending_rebuild": ("设置已更新，等待重建", "Settings updated, waiting for rebuild"),
    "mode.fixed": ("固定分块", "Fixed"),
    "mode.structure": ("结构分块", "Structure"),
    "mode.parent-child": ("父子分块", "Parent-child"),
    "backend.connecting": ("正在启动后台服务…", "Starting the backend…"),
    "backend.connected": ("后台服务已连接（进程 {pid}）", "Backend connected (process {pid})"),
    "backend.down": (
        "后台服务已停止：{reason}。你的数据没有丢失。",
        "The backend stopped: {reason}. Your data is safe.",
    ),
    "backend.restart": ("重新启动后台服务", "Restart the backend"),
    "error.generic": ("操作失败：{message}", "The operation failed: {message}"),
    "notice.created": ("已创建知识库“{name}”", "Created the library “{name}”"),
    "notice.renamed": ("已重命名为“{name}”", "Renamed to “{name}”"),
    "notice.deleted": (
        "已删除知识库“{name}”，原始文件未受影响",
        "Deleted “{name}”; original files untouched",
    ),
    # tabs
    "tab.documents": ("文档与来源", "Documents && sources"),
    "tab.tasks": ("任务中心", "Tasks"),
    "tab.settings": ("设置", "Settings"),
    # documents & sources
    "sources.heading": ("来源", "Sources"),
    "sources.add": ("添加来源 ▾", "Add source ▾"),
    "sources.drop_hint": (
        "也可以把文件或文件夹拖到这里导入。",
        "You can also drag files or folders here to import them.",
    ),
    "sources.dropped": ("已添加 {count} 个拖入的来源", "Added {count} dropped sources"),
    "sources.remove.confirm": ("移除“{name}”", "Remove “{name}”"),
    "doc.details": ("文档详情…", "Document details…"),
    "doc.details.title": ("文档详情 — {name}", "Document details — {name}"),
    "doc.view_chunks": ("查看分块…", "View chunks…"),
    "doc.copy_path": ("复制路径", "Copy path"),
    "doc.open_source": ("打开来源", "Open source"),
    "doc.open_source.tip": (
        "用系统程序打开此文档的原文件或网页",
        "Open this document's file or web page with the system's program",
    ),
    "doc.open_source.none": (
        "此文档没有已索引的内容，无法从这里打开来源；可以复制路径后自行打开。",
        "This document has no indexed passage, so its source cannot be opened from here; "
        "copy its path to open it yourself.",
    ),
    "doc.opened": ("已打开来源：{path}", "Opened the source: {path}"),
    "doc.select": ("选择一个文档以查看其完整原因。", "Select a document to read its whole reason."),
    "doc.no_reason": ("没有问题", "no problems"),
    "doc.copied": ("已复制：{path}", "Copied: {path}"),
    "doc.updated": ("更新时间", "Updated"),
    "doc.retryable": ("上次重读失败", "Last re-read failed"),
    "sources.add_file": ("添加文件…", "Add file…"),
    "sources.add_folder": ("添加文件夹…", "Add folder…"),
    "sources.add_web": ("添加网页…", "Add web page…"),
    # Qt reads the patterns from the ASCII parentheses: keep them in both languages.
    "sources.file_filter": ("支持的文档 ({patterns})", "Supported documents ({patterns})"),
    "sources.all_files": ("所有文件 (*)", "All files (*)"),
    "sources.sync": ("立即同步", "Sync now"),
    "sources.watch": ("监听变化", "Watch folder"),
    "sources.remove": ("移除来源", "Remove source"),
    "sources.remove.text": (
        "移除来源“{location}”？\n\n其 {count} 个文档及其索引将从知识库中删除；原始文件不会被修改或删除。",
        "Remove the source “{location}”?\n\nIts {count} documents and their index are removed from the library; the original files are not changed or deleted.",
    ),
    "sources.web.prompt": ("网页地址（http 或 https）", "Page address (http or https)"),
    "col.kind": ("类型", "Kind"),
    "col.location": ("位置", "Location"),
    "col.state": ("状态", "State"),
    "col.documents": ("文档数", "Documents"),
    "col.watch": ("监听", "Watch"),
    "col.path": ("文档", "Document"),
    "col.parse": ("解析", "Parse"),
    "col.fulltext": ("全文索引", "Full-text"),
    "col.vector": ("向量索引", "Vector"),
    "col.graph": ("图谱", "Graph"),
    "col.chunks": ("分块", "Chunks"),
    "col.ocr": ("OCR", "OCR"),
    "col.error": ("原因", "Reason"),
    "docs.filter": ("筛选", "Filter"),
    "docs.filter.all": ("全部文档", "All documents"),
    "docs.filter.failed": ("失败的文档", "Failed documents"),
    "docs.filter.vector_missing": ("缺少向量的文档", "Vector missing"),
    "docs.page": ("第 {first}–{last} 条，共 {total} 条", "{first}–{last} of {total}"),
    "docs.prev": ("上一页", "Previous page"),
    "docs.next": ("下一页", "Next page"),
    "docs.summary": (
        "{documents} 个文档：{fulltext} 个可全文检索，{vectorised} 个已向量化，{failed} 个失败，{pending} 个等待中",
        "{documents} documents: {fulltext} usable for full-text, {vectorised} vectorised, {failed} failed, {pending} pending",
    ),
    "docs.summary.empty": ("，{count} 个无可检索内容", ", {count} with no retrievable content"),
    "docs.vector_model": ("向量模型：{model}", "Embedding model: {model}"),
    "vector.off": (
        "– 未配置向量模型：仅全文检索（在“设置 → 模型连接”中选择模型）",
        "– No embedding model: full-text search only (choose one in Settings → Model connections)",
    ),
    "vector.building": ("⟳ 正在建立向量索引", "⟳ building the vector index"),
    "vector.not_built": (
        "… 尚无向量索引：导入后自动向量化",
        "… no vector index yet: vectorisation starts after import",
    ),
    "vector.mismatch": (
        "⚠ 索引由 {built} 建立，与当前模型不符：需要重建向量",
        "⚠ index built with {built}, not the current model: rebuild the vectors",
    ),
    "vector.matches": ("✓ 索引与模型一致", "✓ index matches the model"),
    "vector.partial": (
        "… 索引与模型一致，{missing} 个分块尚无向量（仅全文可找到）",
        "… index matches the model; {missing} chunks have no vector yet (found by full-text only)",
    ),
    "vector.coverage": (
        "{vectors}/{chunks} 个分块已向量化",
        "{vectors}/{chunks} chunks vectorised",
    ),
    "vector.last_failure": ("上次失败：{reason}", "last failure: {reason}"),
    "state.ok": ("✓ 正常", "✓ OK"),
    "state.unavailable": ("⚠ 来源不可用", "⚠ Source unavailable"),
    "state.overflow": ("⚠ 超出文件上限", "⚠ Over the file limit"),
    "status.pending": ("… 等待", "… Pending"),
    "status.running": ("⟳ 运行中", "⟳ Running"),
    "status.done": ("✓ 完成", "✓ Done"),
    "status.failed": ("✗ 失败", "✗ Failed"),
    "status.disabled": ("– 未启用", "– Off"),
    "status.incompatible": ("⚠ 不兼容", "⚠ Incompatible"),
    "status.on_demand": ("○ 按需", "○ On demand"),
    "status.empty": ("∅ 无可检索内容", "∅ No retrievable content"),
    "yes": ("开", "On"),
    "no": ("关", "Off"),
    # tasks
    "col.task": ("任务", "Task"),
    "col.progress": ("进度", "Progress"),
    "col.created": ("创建时间", "Created"),
    "settings.range": ("范围 {low}–{high}", "range {low}–{high}"),
    "task.loading_model": ("⟳ 正在加载向量模型…", "⟳ Loading the embedding model…"),
    "task.kind.sync": ("同步", "Sync"),
    "task.kind.vectorize": ("向量化", "Vectorise"),
    "task.kind.rebuild": ("重建", "Rebuild"),
    "col.action": ("操作", "Action"),
    "col.summary": ("摘要", "Summary"),
    "rebuild.document": ("重建文档", "Rebuild document"),
    "rebuild.document.retry": ("⚠ 重建（重试）", "⚠ Rebuild (retry)"),
    "rebuild.document.started": (
        "已开始重建“{path}”，进度见“任务中心”。",
        "Rebuilding “{path}” — progress in the Tasks tab.",
    ),
    "rebuild.retryable": (
        "最近一次重新读取失败（仍在使用上一版）：{reason}",
        "Last re-read failed (the previous version is still searchable): {reason}",
    ),
    "rebuild.library": ("重建知识库", "Rebuild library"),
    "rebuild.library.accept": ("开始重建", "Rebuild"),
    "rebuild.library.confirm": (
        "重建这个知识库？\n\n将从来源（本地文件和网页）重新读取全部 {count} 个文档，"
        "并按当前设置重新解析、分块和建立索引（全文、中文和向量）。\n\n"
        "在每个文档被替换之前，当前索引继续提供检索。可以在“任务中心”取消，"
        "已替换的文档保持可用。原始文件不会被修改。",
        "Rebuild this library?\n\nAll {count} documents are read again from their sources "
        "(local files and web pages), then parsed, chunked and indexed again (full-text, "
        "Chinese and vectors) with the current settings.\n\nThe current index keeps serving "
        "searches until each document is replaced. You can cancel in the Tasks tab; documents "
        "already replaced stay available. Original files are not changed.",
    ),
    "rebuild.library.started": (
        "已开始重建 {count} 个文档，进度和取消见“任务中心”。",
        "Rebuilding {count} documents — progress and cancel in the Tasks tab.",
    ),
    "rebuild.vectors": ("重建向量", "Rebuild vectors"),
    "rebuild.vectors.accept": ("开始重建向量", "Rebuild vectors"),
    "rebuild.vectors.confirm": (
        "用当前配置的模型重建向量索引？\n\n现有索引：{old}\n当前模型：{new}\n\n"
        "将为 {chunks} 个分块重新生成向量（分块文本会发送到当前模型运行的位置）。"
        "新索引在现有索引旁边构建，完整校验后才替换；在此之前，以及构建失败时，现有索引保持不变。",
        "Rebuild the vector index with the configured model?\n\nIndex built with: {old}\n"
        "Configured model: {new}\n\n{chunks} chunks are embedded again (their text goes to "
        "where the configured model runs). The new index is built beside the current one and "
        "replaces it only when complete and validated; until then, and if the build fails, "
        "the current one stays as it is.",
    ),
    "rebuild.vectors.started": (
        "已开始重建向量，进度见“任务中心”。",
        "Rebuilding vectors — progress in the Tasks tab.",
    ),
    "task.summary.written": ("{n} 个已写入", "{n} written"),
    "task.summary.failed": ("{n} 个失败", "{n} failed"),
    "task.summary.unchanged": ("{n} 个未变", "{n} unchanged"),
    "task.summary.retried": ("{n} 个此前失败，已重试", "{n} failed before, retried"),
    "task.summary.not_started": (
        "{n} 个未开始（保持原样）",
        "{n} not started (kept as they were)",
    ),
    "task.summary.applied": ("新设置已生效", "new settings in effect"),
    "task.summary.still_pending": ("仍在等待重建", "still waiting for rebuild"),
    "task.kind.graph": ("图谱抽取", "Graph extraction"),
    "task.kind.ocr": ("OCR 识别", "OCR"),
    "task.ocr_pages": ("OCR {done}/{total} 页 · {name}", "OCR {done}/{total} pages · {name}"),
    "task.summary.ocr_pending": ("{n} 个等待 OCR", "{n} waiting for OCR"),
    "ocr.pending": ("… 等待", "… Pending"),
    "ocr.running": ("⟳ 识别中", "⟳ Running"),
    "ocr.done": ("✓ OCR {confidence}", "✓ OCR {confidence}"),
    "ocr.done_low": ("✓ OCR {confidence} ⚠{low}", "✓ OCR {confidence} ⚠{low}"),
    "ocr.failed": ("✗ 失败", "✗ Failed"),
    "ocr.off": ("– 已关闭", "– Off"),
    "ocr.off_reason": (
        "扫描页需要 OCR，但本知识库已关闭 OCR（在“设置”中开启）",
        "Scanned pages need OCR, which is off for this library (turn it on in Settings)",
    ),
    "ocr.note": (
        "文字来自 OCR：{pages} 页，平均置信度 {confidence}，低置信行 {low} 行",
        "Text from OCR: {pages} pages, mean confidence {confidence}, {low} low-confidence lines",
    ),
    "ocr.note_one": (
        "文字来自 OCR：1 页，平均置信度 {confidence}，低置信行 {low} 行",
        "Text from OCR: 1 page, mean confidence {confidence}, {low} low-confidence lines",
    ),
    "ocr.skipped": (
        "；{skipped} 页未识别：{reason}",
        "; {skipped} pages not recognised: {reason}",
    ),
    "ocr.skipped_one": ("；1 页未识别：{reason}", "; 1 page not recognised: {reason}"),
    "ocr.partial": (" · 未识别 {skipped} 页", " · pages left out: {skipped}"),
    "task.state.queued": ("… 排队中", "… Queued"),
    "task.state.running": ("⟳ 运行中", "⟳ Running"),
    "task.state.completed": ("✓ 已完成", "✓ Completed"),
    "task.state.failed": ("✗ 失败", "✗ Failed"),
    "task.state.cancelled": ("⊘ 已取消", "⊘ Cancelled"),
    "task.state.interrupted": ("⚠ 已中断，可重新运行", "⚠ Interrupted — run again"),
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
    "task.none": ("还没有任务", "No tasks yet"),
    # settings
    "settings.retrieval": ("检索设置", "Retrieval settings"),
    "settings.chunking": ("分块设置", "Chunking settings"),
    "settings.save": ("保存", "Save"),
    "settings.saved": ("设置已保存", "Settings saved"),
    "settings.rebuild_notice": (
        "分块设置已更新，等待重建：已有分块保持不变，直到你重建索引。",
        "Chunking settings updated, waiting for rebuild: existing chunks stay as they are until you rebuild.",
    ),
    "settings.graph_off": (
        "知识图谱未启用，图谱权重暂不生效。",
        "The knowledge graph is off, so the graph weight has no effect.",
    ),
    "settings.vector_degraded": (
        "向量通道当前降级：{reason}",
        "The vector channel is degraded: {reason}",
    ),
    "field.topK": ("Top K", "Top K"),
    "field.minimumVectorSimilarity": ("最低向量相似度", "Minimum vector similarity"),
    "field.minimumRelevance": ("最低相关度", "Minimum relevance"),
    "field.ftsWeight": ("全文权重", "Full-text weight"),
    "field.vectorWeight": ("向量权重", "Vector weight"),
    "field.graphWeight": ("图谱权重", "Graph weight"),
    "field.candidateMultiplier": ("候选倍数", "Candidate multiplier"),
    "field.contextMaxCharacters": ("上下文最大字符数", "Context budget (characters)"),
    "field.adjacentChunkCount": ("相邻分块数", "Adjacent chunks"),
    "field.localRerankEnabled": ("本地规则重排", "Local rule-based rerank"),
    "field.mode": ("分块模式", "Chunking mode"),
    "field.targetCharacters": ("目标长度", "Target length"),
    "field.overlapCharacters": ("重叠长度", "Overlap"),
    "field.parentCharacters": ("父块长度", "Parent length"),
    "field.childCharacters": ("子块长度", "Child length"),
    "field.contextualIndexing": ("上下文索引（标题前缀）", "Contextual indexing (title prefix)"),
    "field.ocrEnabled": (
        "识别扫描件和图片中的文字（本地 OCR）",
        "Read scanned pages and images (local OCR)",
    ),
    "settings.ocr_hint": (
        "扫描的 PDF 页面和 PNG/JPEG/WebP/TIFF/BMP 图片在本机识别（中文和英文），不上传。",
        "Scanned PDF pages and PNG/JPEG/WebP/TIFF/BMP images are read on this computer (Chinese and English); nothing is uploaded.",
    ),
    "col.rank": ("#", "#"),
    "col.relevance": ("相关度", "Relevance"),
    "col.channels": ("通道排名", "Channels"),
    "col.similarity": ("向量相似度", "Similarity"),
    "col.pre_rank": ("重排前", "Pre-rerank"),
    "col.locator": ("定位", "Location"),
    "col.snippet": ("片段", "Snippet"),
    # diagnostics record (Settings → Diagnostics)
    "menu.diagnostics": ("诊断信息…", "Diagnostics…"),
    # model connections
    "menu.settings": ("设置", "Settings"),
    "menu.connections": ("模型连接…", "Model connections…"),
    "menu.external_tools": ("外部 AI 工具（MCP）…", "External AI tools (MCP)…"),
    "menu.language": ("界面语言", "Language"),
    "menu.theme": ("深色主题", "Dark theme"),
    "menu.language.applied": ("界面语言已切换为中文。", "The interface is now in English."),
    "menu.language.after_reply": (
        "回答结束后切换为中文。",
        "The language changes to English when this answer ends.",
    ),
    # chat
    "top.knowledge": ("知识库", "Knowledge"),
    "top.chat": ("对话", "Chat"),
    "chat.conversations": ("对话列表", "Conversations"),
    "chat.new": ("新对话", "New chat"),
    "chat.input": ("输入问题", "Your message"),
    "chat.send": ("发送", "Send"),
    "chat.stop": ("停止", "Stop"),
    "chat.scope": ("{count} 个知识库 · {mode}", "{count} libraries · {mode}"),
    "chat.scope_one": ("1 个知识库 · {mode}", "1 library · {mode}"),
    "chat.mode.auto": ("模型按需检索", "Model decides"),
    "chat.mode.always": ("每次先检索", "Always retrieve first"),
    "chat.auto_note.next": (
        "选择“每次先检索”即可看到知识库中的相关内容。",
        "Choose “always retrieve first” to see what your libraries say.",
    ),
    "chat.scope.title": ("知识范围", "Knowledge scope"),
    "chat.scope.empty": (
        "未选择知识库：本次不会检索。",
        "No library selected: nothing will be searched.",
    ),
    "chat.scope.no_embedding": (
        "未配置向量模型：仅使用全文与中文检索。",
        "No embedding model: full-text and Chinese search only.",
    ),
    "chat.scope.degraded": (
        "部分知识库的向量索引不可用：{reason}",
        "Some vector indexes are unavailable: {reason}",
    ),
    "chat.scope.limit": (
        "最多同时检索 {limit} 个知识库：请先取消一个，再选择其他知识库。",
        "At most {limit} libraries can be searched at once: clear one to choose another.",
    ),
    "chat.too_long": (
        "消息太长：最多 {limit} 个字符。文字仍保留在输入框中。",
        "The message is too long: at most {limit} characters. Your text is still in the box.",
    ),
    "chat.status.searched": ("已预检索", "Searched first"),
    "chat.status.searched_empty": ("已检索，未找到相关内容", "Searched, nothing relevant found"),
    "chat.status.degraded": ("已降级（{reason}）", "Degraded ({reason})"),
    "chat.status.tool": ("模型已检索 {n} 次", "The model searched {n} times"),
    "chat.stopped": ("（已停止）", "(stopped)"),
    "chat.failed": ("（失败：{reason}）", "(failed: {reason})"),
    "chat.sources": ("本次检索证据", "Sources consulted"),
    "chat.expand": ("展开上下文", "Show context"),
    # citation headers (US-H1/H2)
    "ref.library": ("知识库", "Library"),
    "ref.document": ("文档", "Document"),
    "ref.source": ("来源", "Source"),
    "ref.locator": ("定位", "Location"),
    "ref.page": ("第 {page} 页", "p. {page}"),
    "ref.lines": ("第 {lines} 行", "lines {lines}"),
    "ref.line": ("第 {line} 行", "line {line}"),
    # text recognised from a scan (with its low-confidence lines): worth checking on the page
    "ref.ocr": ("OCR", "OCR"),
    "ref.ocr_low": ("OCR ⚠{count}", "OCR ⚠{count}"),
    "ref.kind.file": ("文件", "File"),
    "ref.kind.folder": ("文件夹", "Folder"),
    "ref.kind.web": ("网页", "Web page"),
    "ref.stale": ("此引用已失效。", "This citation is no longer valid."),
    "chat.you": ("你", "You"),
    "chat.assistant": ("助手", "Assistant"),
    "chat.model": ("对话模型", "Chat model"),
    "chat.model.none": ("未配置（仅证据回答）", "None (evidence-only answers)"),
    "rerank.service": (
        "学习型重排服务（Cohere/Jina 兼容）",
        "Learned rerank service (Cohere/Jina-compatible)",
    ),
    # the on/off switch (a shared widget)
    "switch.role": ("开关", "switch"),
    "switch.on": ("开", "on"),
    "switch.off": ("关", "off"),
    "switch.name": ("{label}开关，当前：{state}", "{label} switch, {state}"),
    "docs.view_chunks": ("查看分块", "View chunks"),
    "docs.edited_chunks": ("✎ {count} 个分块经人工修改", "✎ {count} chunks edited by hand"),
}

STRINGS.update(GRAPH_STRINGS)
STRINGS.update(WORKBENCH_STRINGS)
STRINGS.update(SETTINGS_STRINGS)
STRINGS.update(CHUNK_STRINGS)

_language = "en"


def detect_language() -> str:
    stored = QtCore.QSettings("GoodBuddy", "GoodBuddy KB").value("language", "")
    override = os.environ.get("GOODBUDDY_LANG", "") or (stored if isinstance(stored, str) else "")
    override = override.lower()
    if override.startswith("zh"):
        return "zh"
    if override.startswith("en"):
        return "en"
    return "zh" if QtCore.QLocale.system().language() == QtCore.QLocale.Language.Chinese else "en"


def set_language(language: str) -> None:
    global _language  # noqa: PLW0603 - one process-wide UI language
    _language = "zh" if language.startswith("zh") else "en"


def language() -> str:
    return _language


def tr(key: str, **values: object) -> str:
    zh, en = STRINGS[key]
    text = zh if _language == "zh" else en
    return text.format(**values) if values else text


def tr_or(key: str, fallback: str, **values: object) -> str:
    """``tr(key)`` when the key exists, else ``fallback`` (e.g. a code added by a newer backend)."""
    return tr(key, **values) if key in STRINGS else fallback


def channel_name(name: str) -> str:
    """A retrieval channel as people call it (全文/中文/向量/图谱, full-text/…), or its key."""
    return tr_or(f"channel.{name}", name)
