"""The chat's strings in zh-CN and en: conversations, the scope popover, the answer's status
and citations (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

CHAT_STRINGS: dict[str, tuple[str, str]] = {
    "chat.source_gone": (
        "这个来源已不在你的知识库中：回答之后，它所在的知识库、文档或分块已被删除，或已重建为新的分块。",
        "This source is no longer in your libraries: since this answer, its library, document or"
        " chunk was deleted, or rebuilt into new chunks.",
    ),
    "chat.in_library": ("知识库：{name}", "library: {name}"),
    "chat.unknown_markers": (
        "回答中的 {marks} 没有对应的来源：本次检索没有给出这个编号的资料。",
        "No source matches {marks} in this answer: no passage this turn's searches found had"
        " that number.",
    ),
    "chat.quoted_then": ("回答时引用的内容：", "What the answer quoted then:"),
    "chat.cited_gone": (
        "回答之后，这个来源已被删除、停用或重建为新的分块：引用已失效。",
        "No longer valid: since this answer, the passage was deleted, switched off or rebuilt"
        " into new chunks.",
    ),
    "chat.cited_changed": (
        "回答之后，这段内容被修改过：选中它可对照现在的内容和回答时引用的内容。",
        "Edited since this answer: choose it to see its text now beside what the answer quoted.",
    ),
    "chat.changed_since": (
        "这段内容在回答之后被修改过：下面先是现在的内容，最后是回答时引用的内容。",
        "This passage was edited after the answer: its text now, then what the answer quoted.",
    ),
    "chat.conversations": ("对话列表", "Conversations"),
    "chat.new": ("新对话", "New chat"),
    "chat.input": ("输入问题", "Your message"),
    "chat.input.no_model": (
        "尚未配置对话模型：提问会列出知识库中找到的内容（在“设置 → 模型连接”中配置模型）",
        "No chat model yet: a question lists what your libraries say"
        " (set one up in Settings → Model connections)",
    ),
    "chat.send": ("发送", "Send"),
    "chat.stop": ("停止", "Stop"),
    "chat.scope": (
        "{count} 个知识库 · {mode}",
        "{count} {count:plural:library|libraries} · {mode}",
    ),
    "chat.scope_one": ("1 个知识库 · {mode}", "1 library · {mode}"),
    "chat.scope.named": ("{names} · {mode}", "{names} · {mode}"),
    "chat.scope.more": ("{first} 及另外 {n} 个", "{first} +{n}"),
    "chat.scope.none": ("未选择知识库 · {mode}", "No library · {mode}"),
    "chat.mode.auto": ("模型按需检索", "Model decides"),
    "chat.mode.always": ("每次先检索", "Always retrieve first"),
    "chat.mode.auto.what": (
        "模型自行决定是否以及何时检索所选知识库；它也可能不检索，直接回答（回答上会注明）。",
        "The model decides whether and when to search the selected libraries; it may answer"
        " without searching (the answer then says so).",
    ),
    "chat.mode.always.what": (
        "每个问题先检索所选知识库，把找到的证据交给模型，回答中的 [1]、[2] 指向这些证据。",
        "Every question searches the selected libraries first and gives the model what it"
        " found; the answer's [1], [2] point at that evidence.",
    ),
    "chat.auto_note.next": (
        "选择“每次先检索”即可看到知识库中的相关内容。",
        "Choose “always retrieve first” to see what your libraries say.",
    ),
    "chat.scope.title": ("知识范围", "Knowledge scope"),
    "chat.scope.empty": (
        "未选择知识库：本次不会检索。",
        "No library selected: nothing will be searched.",
    ),
    "chat.scope.every": (
        "已选全部知识库：以后新建的知识库也会加入本对话的范围。",
        "Every library is selected: libraries created later join this chat's scope too.",
    ),
    "chat.scope.no_chat_model": (
        "未配置对话模型：每个问题都先检索，回答列出找到的内容；配置模型后才按所选方式。",
        "No chat model: every question searches first and the answer lists what was found;"
        " the mode chosen here applies once a model is set up.",
    ),
    "chat.scope.no_embedding": (
        "未配置向量模型：仅使用全文与中文检索。",
        "No embedding model: full-text and Chinese search only.",
    ),
    "chat.scope.degraded": (
        "“{name}”的向量索引不可用：{reason}",
        "The vector index of “{name}” is unavailable: {reason}",
    ),
    "chat.scope.limit": (
        "最多同时检索 {limit} 个知识库：请先取消一个，再选择其他知识库。",
        "At most {limit} {limit:plural:library|libraries} can be searched at once: clear one to choose another.",
    ),
    "chat.too_long": (
        "消息太长：最多 {limit} 个字符。文字仍保留在输入框中。",
        "The message is too long: at most {limit} {limit:plural:character|characters}. Your text is still in the box.",
    ),
    "chat.step.searching": ("正在检索知识库…", "Searching your libraries…"),
    "chat.step.waiting": ("正在等待对话模型…", "Waiting for the chat model…"),
    "chat.step.waiting_none": (
        "没有找到足够相关的内容；正在等待对话模型…",
        "Nothing relevant enough found; waiting for the chat model…",
    ),
    "chat.step.waiting_found": (
        "找到 {n} 段资料；正在等待对话模型…",
        "Found {n} {n:plural:passage|passages}; waiting for the chat model…",
    ),
    "chat.status.searched": ("已预检索", "Searched first"),
    "chat.status.fallback_searched": (
        "模型没有回答：已替它检索",
        "The model did not answer: searched in its place",
    ),
    "chat.status.fallback_searched_empty": (
        "模型没有回答：已替它检索，未找到相关内容",
        "The model did not answer: searched in its place, nothing relevant found",
    ),
    "chat.status.fallback_degraded": (
        "模型没有回答：已替它检索，已降级（{reason}）",
        "The model did not answer: searched in its place, degraded ({reason})",
    ),
    "chat.status.searched_empty": ("已检索，未找到相关内容", "Searched, nothing relevant found"),
    "chat.status.degraded": ("已预检索，已降级（{reason}）", "Searched first, degraded ({reason})"),
    "chat.status.parts": (
        "{status}（问题问了几件事：另为其中各项检索 {n} 次，补充了 {found} 段）",
        "{status} (the question asks about several things: {n} more "
        "{n:plural:search|searches} for them added {found} {found:plural:passage|passages})",
    ),
    "chat.status.parts_none": (
        "{status}（问题问了几件事：另为其中各项检索 {n} 次，没有找到更多相关内容）",
        "{status} (the question asks about several things: {n} more "
        "{n:plural:search|searches} for them found nothing more)",
    ),
    "chat.status.more": (
        "{status}；模型又检索了 {n} 次",
        "{status}; the model searched {n} more {n:plural:time|times}",
    ),
    "chat.status.tool": ("模型已检索 {n} 次", "The model searched {n} {n:plural:time|times}"),
    "chat.status.tool_none": (
        "模型未检索知识库：回答未对照你的文档",
        "The model did not search your libraries: not checked against your documents",
    ),
    "chat.status.tool_degraded": (
        "模型已检索 {n} 次，已降级（{reason}）",
        "The model searched {n} {n:plural:time|times}, degraded ({reason})",
    ),
    "chat.sources_of": ("检索证据（第 {n} 个回答）", "Sources consulted (answer {n})"),
    "chat.stopped": ("（已停止）", "(stopped)"),
    "chat.failed": (
        "— 失败：{reason}。请在“设置 → 模型连接”中检查对话模型，再点“重新生成”。",
        "— Failed: {reason}. Check the chat model in Settings → Model connections, then"
        " Regenerate.",
    ),
    "chat.sources": ("检索证据", "Sources consulted"),
    "chat.expand": ("引用处的上下文", "The cited passage in its context"),
    "chat.you": ("你", "You"),
    "chat.assistant": ("助手", "Assistant"),
    # Managing conversations (rename, pin, delete and undo, search, export) and answers.
    "chat.answer.sources": ("来源（{n}）", "Sources ({n})"),
    "chat.answer.copy": ("复制（含来源）", "Copy with sources"),
    "chat.answer.copy_plain": ("复制", "Copy"),
    "chat.answer.regenerate": ("重新生成", "Regenerate"),
    "chat.regenerate_same": (
        "已重新检索并生成，新回答与原来的相同。",
        "Searched and answered again: the new answer is the same as before.",
    ),
    "chat.regenerate_same.quotes": (
        "已重新检索，新回答与原来的相同：没有对话模型时，回答就是找到的原文，"
        "知识库没有变化，找到的原文也就相同。",
        "Searched again, and the new answer is the same as before: with no chat model the answer"
        " is the passages found, and the libraries have not changed, so neither have they.",
    ),
    "chat.copied": ("已复制回答及其来源", "Answer and its sources copied"),
    "chat.copied_plain": ("已复制回答", "Answer copied"),
    "chat.search": ("搜索对话（标题和内容）", "Search conversations"),
    "chat.search.none": ("没有匹配的对话", "No conversation matches"),
    "chat.menu.rename": ("重命名", "Rename"),
    "chat.menu.pin": ("置顶", "Pin"),
    "chat.menu.unpin": ("取消置顶", "Unpin"),
    "chat.menu.export": ("导出…", "Export…"),
    "chat.menu.delete": ("删除", "Delete"),
    "chat.pinned": ("已置顶", "Pinned"),
    "chat.delete.title": ("删除对话", "Delete conversation"),
    "chat.delete.text": (
        "删除对话“{title}”？在退出程序前可以撤销。",
        "Delete the conversation “{title}”? You can undo this until you quit.",
    ),
    "chat.deleted": ("已删除“{title}”", "Deleted “{title}”"),
    "chat.undo": ("撤销", "Undo"),
    "chat.dismiss": ("关闭提示", "Dismiss"),
    "chat.rename.failed": ("无法重命名：{reason}", "Could not rename: {reason}"),
    "chat.action.failed": ("操作失败：{reason}", "That did not work: {reason}"),
    "chat.export.title": ("导出对话", "Export conversation"),
    "chat.export.button": ("导出", "Export"),
    "chat.export.markdown": ("Markdown 文件 (*.md)", "Markdown file (*.md)"),
    "chat.export.html": ("HTML 网页 (*.html)", "HTML page (*.html)"),
    "chat.export.done": (
        "已导出 {count} 条消息到 {path}",
        "Exported {count} messages to {path}",
    ),
    "chat.export.failed": ("导出失败：{reason}", "Export failed: {reason}"),
    "chat.model_used": ("回答模型：{model}", "Answered by: {model}"),
    "chat.instructions": ("助手指令", "Assistant instructions"),
    "chat.instructions.hint": (
        "对话范围包含本知识库时，助手会遵循这些指令（例如“用中文回答，作为人事服务台”）。",
        "The chat's assistant follows these when this library is in its scope (for example "
        "“answer in Chinese, as the HR helpdesk”).",
    ),
    "chat.instructions.placeholder": (
        "例如：用中文回答，语气正式。",
        "e.g. Answer in English, formally.",
    ),
    "chat.instructions.count": (
        "{n} / {limit} 字",
        "{n} / {limit} {limit:plural:character|characters}",
    ),
    "chat.instructions.too_long": (
        "助手指令最多 {limit} 个字符，请删减后再保存。",
        "Assistant instructions can be at most {limit} characters: shorten them to save.",
    ),
    "chat.instructions.in_scope": ("助手指令", "Assistant instructions"),
}
