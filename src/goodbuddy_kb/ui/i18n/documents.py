"""The Documents & sources tab's strings in zh-CN and en: sources and their actions, the
document table's columns and stage statuses, the vector index line, rebuilds and OCR (merged
into ``i18n.STRINGS``)."""

from __future__ import annotations

DOCUMENTS_STRINGS: dict[str, tuple[str, str]] = {
    "sources.heading": ("来源", "Sources"),
    "sources.add": ("添加来源", "Add source"),
    "sources.drop_hint": (
        "也可以把文件或文件夹拖到这里导入。",
        "You can also drag files or folders here to import them.",
    ),
    "sources.dropped": (
        "已添加 {count} 个拖入的来源",
        "Added {count} dropped {count:plural:source|sources}",
    ),
    "sources.added": (
        "已添加来源“{location}”，正在同步。",
        "Added the source “{location}”; syncing it now.",
    ),
    "sources.remove.confirm": ("移除来源“{name}”", "Remove the source “{name}”"),
    "doc.details": ("文档详情…", "Document details…"),
    "doc.failed.show_reason": ("查看原因", "Show reason"),
    "doc.failed.remove": ("从知识库移除…", "Remove from library…"),
    "doc.remove.title": ("从知识库移除", "Remove from library"),
    "doc.remove.folder_text": (
        "从知识库移除“{name}”？今后同步文件夹“{folder}”时会跳过它。文件本身不会被删除。",
        "Remove “{name}” from the library? Syncing the folder “{folder}” leaves it out from now"
        " on. The file itself is not deleted.",
    ),
    "doc.remove.source_text": (
        "从知识库移除“{name}”？它的来源也一并移除。文件本身不会被删除。",
        "Remove “{name}” from the library? Its source goes with it. The file itself is not"
        " deleted.",
    ),
    "doc.remove.confirm": ("移除“{name}”", "Remove “{name}”"),
    "doc.removed": ("已从知识库移除“{name}”", "Removed “{name}” from the library"),
    "doc.details.title": ("文档详情 — {name}", "Document details — {name}"),
    "doc.view_chunks": ("查看分块…", "View chunks…"),
    "doc.chunk_count": ("{count} 个分块", "{count} {count:plural:chunk|chunks}"),
    "doc.chunk_count_searched": (
        "{total} 个分块中 {count} 个参与检索",
        "{count} of {total} {total:plural:chunk|chunks} searched",
    ),
    "doc.copy_path": ("复制路径", "Copy path"),
    "doc.open_source": ("打开来源", "Open source"),
    "doc.open_source.tip": (
        "用系统程序打开此文档的原文件或网页",
        "Open this document's file or web page with the system's program",
    ),
    "doc.select": (
        "选择一个文档，查看其分块数和完整的原因或说明。",
        "Select a document to see its chunk count and, where it has one, its whole reason.",
    ),
    "doc.no_reason": ("没有问题", "no problems"),
    "doc.copied": ("已复制：{path}", "Copied: {path}"),
    "doc.updated": ("更新时间", "Updated"),
    "doc.retryable": ("上次重读失败", "Last re-read failed"),
    "sources.add_file": ("添加文件…", "Add file…"),
    "sources.add_folder": ("添加文件夹…", "Add folder…"),
    "sources.add_web": ("添加网页…", "Add web page…"),
    "sources.add_refused": ("无法添加来源", "Cannot add the source"),
    # Qt reads the patterns from the ASCII parentheses: keep them in both languages.
    "sources.file_filter": ("支持的文档 ({patterns})", "Supported documents ({patterns})"),
    "sources.all_files": ("所有文件 (*)", "All files (*)"),
    "sources.sync": ("立即同步", "Sync now"),
    "sources.sync.started": (
        "已开始同步 {count} 个来源，进度见“任务中心”。",
        "Sync of {count} {count:plural:source|sources} started; the Tasks tab follows it.",
    ),
    "sources.sync.nothing": ("没有可同步的来源。", "There is no source to sync."),
    "sources.watch": ("监听变化", "Watch folder"),
    "sources.watch_select": (
        "选择一个文件夹来源，即可打开或关闭它的监听",
        "Select a folder source to switch its watching on or off",
    ),
    "sources.remove": ("移除来源", "Remove source"),
    "sources.remove.text": (
        "移除来源“{location}”？\n\n其 {count} 个文档、它们的索引和分块（包括手动编辑过的），以及只由它们"
        "支撑的图谱实体和关系，将从知识库中删除；原始文件不会被修改或删除。",
        "Remove the source “{location}”?\n\nIts {count} {count:plural:document|documents}, their"
        " index and chunks (those edited by hand too), and the graph's entities and relations"
        " only they support are removed from the library; the original files are not changed or"
        " deleted.",
    ),
    "sources.web.prompt": ("网页地址（http 或 https）", "Page address (http or https)"),
    "sources.web.empty": ("请输入网页地址", "Enter the page's address"),
    "col.kind": ("类型", "Kind"),
    "col.location": ("位置", "Location"),
    "col.state": ("状态", "State"),
    "col.documents": ("文档数", "Documents"),
    "col.watch": ("监听", "Watch"),
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
    "docs.page.none": ("共 0 条", "none"),
    "docs.prev": ("上一页", "Previous page"),
    "docs.next": ("下一页", "Next page"),
    "docs.summary": (
        "{documents} 个文档：{fulltext} 个可全文检索，{vectorised} 个已向量化，{failed} 个失败，{pending} 个等待中",
        "{documents} {documents:plural:document|documents}: {fulltext} usable for full-text, {vectorised} vectorised, {failed} failed, {pending} pending",
    ),
    "docs.summary.previous": (
        "；失败的文档中 {count} 个仍以上一版供检索（最近一次重新读取失败）",
        "; of the failed, {count} {count:plural:is|are} still searched in {count:plural:its|their} "
        "previous version (the last re-read failed)",
    ),
    "docs.summary.empty": ("，{count} 个无可检索内容", ", {count} with no retrievable content"),
    "docs.summary.cancelled": (
        "，{count} 个的向量化已取消（“立即同步”可继续）",
        ", {count} not vectorised: cancelled (“Sync now” continues)",
    ),
    "docs.summary.incompatible": (
        "，{count} 个文档的向量由其他模型生成（重建向量前不参与语义检索）",
        ", {count} with vectors of another model (no semantic search until the vectors are "
        "rebuilt)",
    ),
    "docs.summary.not_imported": (
        "；另有 {count} 个文件未导入：超出单个来源 {limit} 个文件的上限（可将其子文件夹分别添加为来源）",
        "; {count} more {count:plural:file|files} not imported: past a source's {limit}-file "
        "limit (add its subfolders as separate sources)",
    ),
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
        "… index matches the model; {missing} {missing:plural:chunk|chunks} have no vector yet (found by full-text only)",
    ),
    "vector.coverage": (
        "{vectors}/{chunks} 个分块已向量化",
        "{vectors}/{chunks} {chunks:plural:chunk|chunks} vectorised",
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
    "docs.graph_done": (
        "✓ 找到 {entities} 个",
        "✓ {entities} found",
    ),
    "docs.graph_found": (
        "知识图谱抽取已完成：在本文档中找到 {entities} 个实体、{relations} 条关系。",
        "Graph extraction done: {entities} {entities:plural:entity|entities} and {relations}"
        " {relations:plural:relation|relations} found in this document.",
    ),
    "status.empty": ("∅ 无可检索内容", "∅ No retrievable content"),
    "status.none": ("– 无", "– None"),
    "docs.vector_none": (
        "该文档没有可检索的分块，没有需要向量化的内容。",
        "No chunk of this document can be retrieved: there is nothing to vectorise.",
    ),
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
        "重建这个知识库？\n\n将从各自的来源重新读取全部 {count} 个文档，"
        "并按当前设置重新解析、分块和建立索引（全文、中文和向量）。\n\n"
        "在每个文档被替换之前，当前索引继续提供检索。可以在“任务中心”取消，"
        "已替换的文档保持可用。原始文件不会被修改。",
        "Rebuild this library?\n\nAll {count} {count:plural:document|documents} are read again from their sources, "
        "then parsed, chunked and indexed again (full-text, "
        "Chinese and vectors) with the current settings.\n\nThe current index keeps serving "
        "searches until each document is replaced. You can cancel in the Tasks tab; documents "
        "already replaced stay available. Original files are not changed.",
    ),
    "rebuild.library.started": (
        "已开始重建 {count} 个文档，进度和取消见“任务中心”。",
        "Rebuilding {count} {count:plural:document|documents} — progress and cancel in the Tasks tab.",
    ),
    "rebuild.manual.title": ("手动维护的分块", "Manual chunk work"),
    "rebuild.manual.summary": (
        "有手动维护分块的文档：{count} 个（{counts}）：",
        "Documents with manual chunk work: {count} ({counts}):",
    ),
    "rebuild.manual.explain": (
        "新分块保留了原文本的，编辑、停用或删除状态会沿用（停用的文本占某个新分块的大部分时，"
        "该新分块也会停用）。无法沿用的文档默认跳过，保持当前分块不变；也可以选择丢弃：这些文档"
        "照样重建，无法沿用的手动修改丢弃（能沿用的仍会沿用）。",
        "Where the new chunks keep a chunk's text, its edit, disabled state or deletion is "
        "carried over (a disabled text that makes up most of one new chunk disables that "
        "chunk). A document where it cannot be is skipped by default and keeps its current "
        "chunks; you can choose to discard instead: these documents are rebuilt too and the "
        "work that cannot be kept is dropped (what can be kept still is).",
    ),
    "rebuild.manual.document": ("• {path}：{counts}", "• {path}: {counts}"),
    "rebuild.manual.more": ("…另有 {n} 个文档", "… and {n} more {n:plural:document|documents}"),
    "rebuild.manual.skip": (
        "重建，无法沿用的文档跳过",
        "Rebuild, skip any whose work cannot be kept",
    ),
    "rebuild.manual.skip_one": (
        "重建，无法沿用时跳过",
        "Rebuild, skip it if the work cannot be kept",
    ),
    "rebuild.manual.discard": ("重建并丢弃手动修改", "Rebuild and discard manual work"),
    "rebuild.document.confirm": (
        "重建“{path}”？\n\n将从来源重新读取、解析、分块并建立索引。",
        "Rebuild “{path}”?\n\nIt is read again from its source, then parsed, chunked and "
        "indexed with the current settings.",
    ),
    "rebuild.vectors": ("重建向量", "Rebuild vectors"),
    "rebuild.vectors.accept": ("开始重建向量", "Rebuild vectors"),
    "rebuild.vectors.confirm": (
        "用当前配置的模型重建向量索引？\n\n现有索引：{old}\n当前模型：{new}\n\n"
        "将为 {chunks} 个分块重新生成向量（分块文本会发送到当前模型运行的位置）。"
        "新索引在现有索引旁边构建，完整校验后才替换；在此之前，以及构建失败时，现有索引保持不变。",
        "Rebuild the vector index with the configured model?\n\nIndex built with: {old}\n"
        "Configured model: {new}\n\n{chunks} {chunks:plural:chunk|chunks} are embedded again (their text goes to "
        "where the configured model runs). The new index is built beside the current one and "
        "replaces it only when complete and validated; until then, and if the build fails, "
        "the current one stays as it is.",
    ),
    "rebuild.vectors.meanwhile": (
        "在此期间语义检索不可用：现有向量由另一个模型生成，无法回答当前模型的问题；全文检索照常工作。",
        "Until it is ready, semantic search is off for this library: the current vectors were "
        "made by another model and cannot answer the configured model's questions; full-text "
        "search works as usual.",
    ),
    "rebuild.vectors.running": (
        "向量化正在进行，完成后才能再次重建向量",
        "The vectors are being built; rebuild them again once this has finished",
    ),
    "rebuild.vectors.started": (
        "已开始重建向量，进度见“任务中心”。",
        "Rebuilding vectors — progress in the Tasks tab.",
    ),
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
        "Text from OCR: {pages} {pages:plural:page|pages}, mean confidence {confidence}, {low} low-confidence {low:plural:line|lines}",
    ),
    "ocr.note_one": (
        "文字来自 OCR：1 页，平均置信度 {confidence}，低置信行 {low} 行",
        "Text from OCR: 1 page, mean confidence {confidence}, {low} low-confidence {low:plural:line|lines}",
    ),
    "ocr.skipped": (
        "；{skipped} 页未识别：{reason}",
        "; {skipped} {skipped:plural:page|pages} not recognised: {reason}",
    ),
    "ocr.skipped_one": ("；1 页未识别：{reason}", "; 1 page not recognised: {reason}"),
    "ocr.partial": (" · 未识别 {skipped} 页", " · pages left out: {skipped}"),
    "docs.view_chunks": ("查看分块", "View chunks"),
    "docs.edited_chunks": (
        "✎ {count} 个分块经人工修改",
        "✎ {count} {count:plural:chunk|chunks} edited by hand",
    ),
    "docs.disabled_chunks": (
        "⊘ {count} 个分块已停用（保留，但不参与检索）",
        "⊘ {count} {count:plural:chunk|chunks} switched off (kept, not searched)",
    ),
    "docs.kept_old_chunks": (
        "ⓘ 上次重建为保留手动修改跳过了此文档：其分块仍按旧的分块设置",
        "ⓘ The last rebuild skipped this document to keep its manual work: its chunks follow the old chunking settings",
    ),
    "docs.replaced_edits": (
        "↺ 新的分块文本替换了 {count} 处手动编辑：在“查看分块”中可查看并复制",
        "↺ new chunk text replaced {count} {count:plural:edit|edits} of yours: see "
        "{count:plural:it|them} in View chunks",
    ),
    "docs.deleted_chunks": (
        "✕ {count} 个分块已人工删除（文本未变时，重建和同步不会恢复）",
        "✕ {count} {count:plural:chunk|chunks} deleted by hand (a rebuild or sync leaves {count:plural:it|them} out while the text is unchanged)",
    ),
}
