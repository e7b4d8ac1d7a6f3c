"""The library list's strings in zh-CN and en: the list, its name and delete dialogs, its
notices and the selected library's header (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

LIBRARY_STRINGS: dict[str, tuple[str, str]] = {
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
    "dialog.name.too_long": (
        "名称最多 {limit} 个字符。",
        "A name has at most {limit} {limit:plural:character|characters}.",
    ),
    "dialog.delete.title": ("删除知识库", "Delete library"),
    "dialog.delete.text": (
        "删除知识库“{name}”？\n\n它的来源、文档、索引、分块（包括手动编辑过的）、知识图谱和设置"
        "都将被删除，无法撤销；原始文件保留在原处，不会被修改或删除。",
        "Delete the library “{name}”?\n\nIts sources, documents, index, chunks (those edited by"
        " hand too), knowledge graph and settings are removed, and this cannot be undone;"
        " the original files stay where they are and are not changed or deleted.",
    ),
    "dialog.delete.confirm": ("删除“{name}”", "Delete “{name}”"),
    "detail.created": ("创建于 {when}", "Created {when}"),
    "detail.retrieval": ("检索设置", "Retrieval settings"),
    "detail.chunking": ("分块设置", "Chunking settings"),
    "detail.vectors": ("向量索引", "Vectors"),
    "detail.retrieval.summary": (
        "Top K {top_k} · 最低相关度 {floor} · 全文权重 {fts} · 向量权重 {vector} · 图谱权重 {graph}"
        " · 上下文 {context} 字符",
        "Top K {top_k} · minimum relevance {floor} · full-text weight {fts} · vector weight"
        " {vector} · graph weight {graph} · context {context} {context:plural:character|characters}",
    ),
    "detail.chunking.summary": (
        "模式：{mode} · 目标 {target} 字符 · 重叠 {overlap} 字符",
        "Mode: {mode} · target {target} {target:plural:character|characters} · overlap {overlap} {overlap:plural:character|characters}",
    ),
    "detail.show": ("设置摘要 ▸", "Settings summary ▸"),
    "detail.hide": ("设置摘要 ▾", "Settings summary ▾"),
    "detail.pending_rebuild": ("设置已更新，等待重建", "Settings updated, waiting for rebuild"),
    "detail.pending_short": ("等待重建", "Waiting for rebuild"),
    "detail.kept_short": (
        "{n} 个文档保留旧分块",
        "{n} {n:plural:document keeps|documents keep} old chunks",
    ),
    "detail.kept": (
        "上次重建为保留手动修改跳过了 {n} 个文档，其分块仍按旧的分块设置。"
        "重建时选择“{discard}”即可让其采用新设置（手动修改会丢失）。",
        "The last rebuild skipped {n} {n:plural:document|documents} to keep {n:plural:its|their} manual chunk work;"
        " {n:plural:its|their} chunks still follow the old chunking settings."
        " Rebuild and choose “{discard}” to apply the new settings to {n:plural:it|them} too (the manual work is lost).",
    ),
    "detail.rebuilding": (
        "正在按新设置重建，进度见“任务中心”",
        "Rebuilding with the new settings — progress in the Tasks tab",
    ),
    "detail.rebuilding_short": ("正在重建…", "Rebuilding…"),
    "notice.created": ("已创建知识库“{name}”", "Created the library “{name}”"),
    "notice.renamed": ("已重命名为“{name}”", "Renamed to “{name}”"),
    "notice.deleted": (
        "已删除知识库“{name}”，原始文件未受影响",
        "Deleted “{name}”; original files untouched",
    ),
}
