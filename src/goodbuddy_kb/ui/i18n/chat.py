"""The chat's strings in zh-CN and en: conversations, the scope popover, the answer's status
and citations (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

CHAT_STRINGS: dict[str, tuple[str, str]] = {
    "chat.conversations": ("对话列表", "Conversations"),
    "chat.new": ("新对话", "New chat"),
    "chat.input": ("输入问题", "Your message"),
    "chat.send": ("发送", "Send"),
    "chat.stop": ("停止", "Stop"),
    "chat.scope": (
        "{count} 个知识库 · {mode}",
        "{count} {count:plural:library|libraries} · {mode}",
    ),
    "chat.scope_one": ("1 个知识库 · {mode}", "1 library · {mode}"),
    "chat.scope.named": ("{names} · {mode}", "{names} · {mode}"),
    "chat.scope.more": ("{first} 等 +{n}", "{first} +{n}"),
    "chat.scope.none": ("未选择知识库 · {mode}", "No library · {mode}"),
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
        "At most {limit} {limit:plural:library|libraries} can be searched at once: clear one to choose another.",
    ),
    "chat.too_long": (
        "消息太长：最多 {limit} 个字符。文字仍保留在输入框中。",
        "The message is too long: at most {limit} {limit:plural:character|characters}. Your text is still in the box.",
    ),
    "chat.status.searched": ("已预检索", "Searched first"),
    "chat.status.searched_empty": ("已检索，未找到相关内容", "Searched, nothing relevant found"),
    "chat.status.degraded": ("已降级（{reason}）", "Degraded ({reason})"),
    "chat.status.tool": ("模型已检索 {n} 次", "The model searched {n} {n:plural:time|times}"),
    "chat.status.tool_degraded": (
        "模型已检索 {n} 次，已降级（{reason}）",
        "The model searched {n} {n:plural:time|times}, degraded ({reason})",
    ),
    "chat.sources_of": ("本次检索证据（第 {n} 个回答）", "Sources consulted (answer {n})"),
    "chat.stopped": ("（已停止）", "(stopped)"),
    "chat.failed": ("（失败：{reason}）", "(failed: {reason})"),
    "chat.sources": ("本次检索证据", "Sources consulted"),
    "chat.expand": ("展开上下文", "Show context"),
    "chat.you": ("你", "You"),
    "chat.assistant": ("助手", "Assistant"),
}
