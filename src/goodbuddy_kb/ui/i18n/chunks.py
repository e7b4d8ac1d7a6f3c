"""The chunk maintenance dialog's strings in zh-CN and en (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

CHUNK_STRINGS: dict[str, tuple[str, str]] = {
    "chunks.title": ("分块 — {path}", "Chunks — {path}"),
    "chunks.info": (
        "《{title}》：{total} 个分块，{retrievable} 个可检索，{edited} 个经人工修改，{disabled} 个已停用",
        "“{title}”: {total} {total:plural:chunk|chunks}, {retrievable} retrievable, {edited} edited by hand, {disabled} disabled",
    ),
    "chunks.replaced.button": (
        "被替换的手动编辑（{n}）…",
        "{n} replaced {n:plural:edit|edits} of yours…",
    ),
    "chunks.replaced.title": ("被替换的编辑", "Edits the file replaced"),
    "chunks.replaced.text": (
        "新的分块文本替换了你对 {n} 个分块的手动编辑（{when}：文件变化后的同步，或选择了丢弃的重建）。"
        "编辑内容保留在下方“显示详细信息”中，可复制后重新编辑到新分块里；不再需要时可丢弃。",
        "New chunk text replaced your edits of {n} {n:plural:chunk|chunks} ({when}: a sync "
        "after the file changed, or a rebuild told to discard). They are kept below under "
        "“Show Details…”: copy what you need into the new chunks, then dismiss them.",
    ),
    "chunks.replaced.dismiss": ("丢弃这些编辑", "Dismiss them"),
    "chunks.info.deleted": (
        "，{deleted} 个已人工删除",
        ", {deleted} deleted by hand",
    ),
    "chunks.no_retrievable": (
        "此文档已无可检索内容：检索不会返回它的任何部分。",
        "This document has no retrievable content: no search returns any part of it.",
    ),
    "chunks.sync_warning": (
        "来源文件变化后再次同步，会重新创建变化部分的分块：其中的人工修改被新文本替换（保留在"
        "“被替换的手动编辑”中，可复制回去），停用和删除失效（停用的文本占新分块大部分时，该分块"
        "仍停用）；未变化的分块保留这些状态。重建会先列出无法保留的手动修改，并默认跳过相关文档。",
        "A re-sync after the source file changes re-creates the chunks of the changed text: your "
        "edits there are replaced (kept to copy back under “replaced edits”), and disables and "
        "deletions there lapse (a disabled passage that makes up most of a new chunk keeps it "
        "off); unchanged chunks keep them. A rebuild first lists the manual work it cannot keep "
        "and skips those documents by default.",
    ),
    "chunks.search": ("在文档内搜索", "Search this document"),
    "chunks.search.placeholder": ("输入内容或标题中的文字", "Text in a chunk or its heading"),
    "chunks.role_filter": ("角色筛选", "Role filter"),
    "chunks.filter.all": ("全部角色", "All roles"),
    "chunks.filter.standalone": ("独立分块", "Standalone"),
    "chunks.filter.parent": ("父块", "Parents"),
    "chunks.filter.child": ("子块", "Children"),
    "chunks.table": ("分块列表", "Chunk list"),
    "chunks.col.ordinal": ("序号", "No."),
    "chunks.col.role": ("角色", "Role"),
    "chunks.col.heading": ("标题", "Heading"),
    "chunks.col.locator": ("定位", "Location"),
    "chunks.col.characters": ("字符数", "Characters"),
    "chunks.col.enabled": ("启用", "Enabled"),
    "chunks.col.edited": ("人工修改", "Edited"),
    "chunks.role.standalone": ("独立", "Standalone"),
    "chunks.role.parent": ("父块（{count} 个子块）", "Parent of {count}"),
    "chunks.role.child": ("子块，属于父块 #{parent}", "Child of parent #{parent}"),
    "chunks.on": ("✓ 启用", "✓ On"),
    "chunks.off": ("– 停用", "– Off"),
    "chunks.edited": ("✎ 已修改", "✎ Edited"),
    "chunks.chunk": ("分块 {label}", "Chunk {label}"),
    # a chunk's number and its heading, in the brackets each language's text takes
    # the heading (a document title) may hold brackets of its own: "#1（差旅制度（2024 修订版））"
    "chunks.label_heading": ("#{number} · {heading}", "#{number} · {heading}"),
    "chunks.characters": ("{count} 个字符", "{count} {count:plural:character|characters}"),
    "chunks.none": ("没有选中的分块。", "No chunk selected."),
    "chunks.parent_note": (
        "父块只作为上下文，不参与检索。它的 {count} 个子块命中时会带上它；停用或删除它，子块仍可检索，但失去这段上下文。",
        "A parent is context only and is never searched. Its {count} children bring it along "
        "when they match; disabling or deleting it leaves them searchable but without this context.",
    ),
    "chunks.child_note": (
        "子块属于父块 #{parent}：命中时以父块作为上下文。",
        "This child belongs to parent #{parent}, which is its context when it matches.",
    ),
    "chunks.switch": ("参与检索", "Used in search"),
    "chunks.ocr_note": (
        "ⓘ 这段文字来自 OCR（扫描页或图片的文字识别），可能有识别错误。",
        "ⓘ This text came from OCR (text recognised in a scanned page or an image); it may "
        "contain recognition errors.",
    ),
    "chunks.ocr_low_note_one": (
        "⚠ 1 行识别置信度低（仍可检索），已在下方以底色和波浪线标出：{lines}",
        "⚠ 1 low-confidence line (still searchable), marked below with a shaded, wavy"
        " underline: {lines}",
    ),
    "chunks.ocr_low_note": (
        "⚠ {count} 行识别置信度低（仍可检索），已在下方以底色和波浪线标出：{lines}",
        "⚠ {count} low-confidence {count:plural:line|lines} (still searchable), marked below with a shaded,"
        " wavy underline: {lines}",
    ),
    "chunks.content": ("分块内容", "Chunk content"),
    "chunks.count": (
        "{count} / {limit} 个字符",
        "{count} / {limit} {limit:plural:character|characters}",
    ),
    "chunks.count.name": ("字符计数", "Character count"),
    "chunks.over": ("超出上限 {over} 个字符", "{over} over the limit"),
    "chunks.empty": ("内容不能为空", "content cannot be empty"),
    "chunks.edit_note": (
        "保存后立即更新全文和中文索引，旧向量失效并为此文档重建向量。来源文件变化后再次同步可能覆盖此修改。",
        "Saving updates full-text and Chinese search at once; the old vector is dropped and this "
        "document's vectors are rebuilt. A re-sync after the source file changes may overwrite this edit.",
    ),
    "chunks.edit": ("编辑", "Edit"),
    "chunks.save": ("保存", "Save"),
    "chunks.cancel_edit": ("放弃修改", "Discard edit"),
    "chunks.delete": ("删除分块…", "Delete chunk…"),
    "chunks.saved": ("已保存分块 {label}。", "Saved chunk {label}."),
    "chunks.vector.queued": ("正在为此文档重建向量。", "Its vectors are being rebuilt."),
    "chunks.vector.not_needed": ("", ""),
    "chunks.vector.no_model": (
        "未配置向量模型：仅全文检索。",
        "No embedding model: full-text search only.",
    ),
    "chunks.vector.waiting_for_index": (
        "向量索引仍在建立。",
        "The vector index is still being built.",
    ),
    "chunks.vector.incompatible": (
        "向量索引与当前模型不符，需要重建向量。",
        "The vector index does not match the current model: rebuild the vectors.",
    ),
    "chunks.enabled_now": ("已启用分块 {label}。", "Enabled chunk {label}."),
    "chunks.disabled_now": (
        "已停用分块 {label}：它不再参与任何检索，引用它的地方显示引用已失效。",
        "Disabled chunk {label}: no search uses it, and citations of it say they are no longer valid.",
    ),
    "chunks.delete.title": ("删除分块", "Delete chunk"),
    "chunks.delete.text": (
        "删除《{path}》的分块 {label}？\n\n它将从全文、中文和向量检索中移除，引用它的地方显示引用已失效。原始文件不会被修改或删除。",
        "Delete chunk {label} of “{path}”?\n\nIt is removed from full-text, Chinese and vector "
        "search, and citations of it say they are no longer valid. The original file is not changed or deleted.",
    ),
    "chunks.delete.parent": (
        "这是一个父块：它的 {count} 个子块仍可检索，但失去这段上下文。",
        "This is a parent: its {count} children stay searchable but lose this context.",
    ),
    "chunks.delete.last": (
        "这是此文档最后一个可检索的分块：删除后文档将显示“无可检索内容”。",
        "This is the document's last retrievable chunk: afterwards the document has no retrievable content.",
    ),
    "chunks.delete.confirm": ("删除分块 {label}", "Delete chunk {label}"),
    "chunks.deleted": ("已删除分块 {label}。", "Deleted chunk {label}."),
    "chunks.discard.title": ("放弃修改？", "Discard the edit?"),
    "chunks.discard.text": (
        "你的修改尚未保存。关闭后它将丢失。",
        "Your edit is not saved. It is lost if you close now.",
    ),
}
