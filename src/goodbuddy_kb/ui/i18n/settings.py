"""The settings' strings in zh-CN and en: the Settings tab (a library's retrieval and chunking
fields), and the Settings menu's dialogs — model connections, external AI tools (MCP) and the
Diagnostics dialog (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

SETTINGS_STRINGS: dict[str, tuple[str, str]] = {
    "mcp.tool.list_libraries": ("列出知识库", "List libraries"),
    "mcp.tool.knowledge_search": ("检索", "Search"),
    "mcp.tool.get_reference_context": ("读取引用处的上下文", "Read around a citation"),
    "diagrec.title": ("诊断信息", "Diagnostics"),
    "diagrec.intro": (
        "本机记录的最近检索（检索工作台、对话与外部 AI 工具）、同步、向量化与重建的次数、"
        "耗时、检索模式和结果，用于求助时排查问题。记录中没有查询文字、文档内容或密钥；"
        "导出的文件还会把文件名和路径替换掉。",
        "Counts, times, retrieval modes and outcomes of recent searches (workbench, chat and"
        " external AI tools), syncs, vectorisations and rebuilds, kept on this computer to help"
        " when you ask for support. The record holds no query text, document text or keys;"
        " the exported file also has file names and paths replaced.",
    ),
    "diagrec.totals": ("汇总", "Totals"),
    "diagrec.recent": ("最近事件", "Recent events"),
    "diagrec.col.kind": ("类型", "Kind"),
    "diagrec.col.count": ("次数", "Count"),
    "diagrec.col.ok": ("正常", "OK"),
    "diagrec.col.degraded": ("降级", "Degraded"),
    "diagrec.col.failed": ("失败", "Failed"),
    "diagrec.col.cancelled": ("已取消", "Cancelled"),
    "diagrec.col.average": ("平均耗时", "Average time"),
    "diagrec.col.at": ("时间", "Time"),
    "diagrec.col.outcome": ("结果", "Outcome"),
    "diagrec.col.duration": ("耗时", "Duration"),
    "diagrec.col.summary": ("概要", "Summary"),
    "diagrec.kind.retrieve": ("检索", "Retrieval"),
    "diagrec.kind.chat": ("对话回答", "Chat answer"),
    "diagrec.event.chat": (
        "{mode} · 知识库 {libraries} 个 · 检索 {searches} 次",
        "{mode} · libraries: {libraries} · {searches} {searches:plural:search|searches}",
    ),
    "diagrec.kind.sync": ("同步", "Sync"),
    "diagrec.kind.vectorize": ("向量化", "Vectorisation"),
    "diagrec.kind.rebuild": ("重建", "Rebuild"),
    "diagrec.kind.graph": ("图谱抽取", "Graph extraction"),
    "diagrec.kind.ocr": ("OCR 识别", "OCR"),
    "diagrec.outcome.ok": ("正常", "OK"),
    "diagrec.outcome.degraded": ("降级", "Degraded"),
    "diagrec.outcome.failed": ("失败", "Failed"),
    "diagrec.outcome.cancelled": ("已取消", "Cancelled"),
    "diagrec.outcome.interrupted": ("被中断", "Interrupted"),
    "diagrec.event.retrieve": (
        "{results} 条结果，上下文 {chars} 字符，通道：{channels}",
        "{results} {results:plural:result|results}, {chars} context {chars:plural:character|characters}, channels: {channels}",
    ),
    "diagrec.event.search": (
        "{origin} · 知识库 {libraries} 个",
        "{origin} · libraries: {libraries}",
    ),
    "diagrec.origin.retrieve": ("检索工作台或命令行", "workbench or command line"),
    "diagrec.origin.chat-presearch": ("对话，先检索", "chat, searched first"),
    "diagrec.origin.chat-tool": ("对话，模型调用检索", "chat, the model's search"),
    "diagrec.origin.mcp": ("外部 AI 工具（MCP）", "external AI tool (MCP)"),
    "diagrec.mode.always": ("每次先检索", "always retrieve first"),
    "diagrec.mode.auto": ("模型按需检索", "model decides"),
    "diagrec.event.degraded": ("降级通道：{channels}", "degraded: {channels}"),
    "diagrec.event.task": (
        "{total} 项，其中 {failed} 个文档失败",
        "{total} {total:plural:item|items}, {failed} {failed:plural:document|documents} failed",
    ),
    "diagrec.count": (
        "共记录 {events} 个事件（最多保留最近的 {capacity} 个）。",
        "{events} {events:plural:event|events} recorded (the newest {capacity} are kept).",
    ),
    "diagrec.empty": ("还没有记录任何事件。", "Nothing has been recorded yet."),
    "diagrec.error": ("无法读取诊断信息：{reason}", "The diagnostics cannot be read: {reason}"),
    "diagrec.refresh": ("刷新", "Refresh"),
    "diagrec.close": ("关闭", "Close"),
    "settings.leaving.title": ("未保存的设置", "Settings not saved"),
    "settings.leaving.text": (
        "“设置”页上有未保存的更改（{count} 个知识库：{names}）。关闭窗口会放弃这些更改。",
        "The Settings tab holds changes that are not saved ({count:plural:library|libraries}"
        " {names}). Closing the window"
        " discards them.",
    ),
    "settings.leaving.discard": ("放弃更改并关闭", "Discard them and close"),
    "settings.unsaved_kept": (
        "这些是你离开这个知识库前未保存的设置更改，仍未保存。",
        "These are the settings changes you left this library without saving; they are still"
        " not saved.",
    ),
    "settings.unsaved_kept_language": (
        "切换语言前未保存的设置更改仍在表单中，尚未保存。",
        "The settings changes you had not saved before switching the language are still in the"
        " form; they are not saved yet.",
    ),
    "diagrec.export": ("导出…", "Export…"),
    "diagrec.export.title": ("导出诊断信息", "Export diagnostics"),
    "diagrec.export.filter": ("JSON 文件 (*.json)", "JSON files (*.json)"),
    "diagrec.exporting": ("正在导出…", "Exporting…"),
    "diagrec.export.done": (
        "已导出到 {path}（{events} 个事件，{kb} KB）。文件包含版本与平台、各知识库的设置"
        "（助手指令只记字数）、模型服务的地址（协议、主机和路径）、计数、诊断事件、失败原因和"
        "最近的日志行；没有查询文字、文档内容、文件名、密钥或网址中的账号密码。",
        "Exported to {path} ({events} {events:plural:event|events}, {kb} KB). It holds the"
        " versions and platform, each library's settings (the assistant instructions by their"
        " length only), the model services' addresses (scheme, host and path), counts, the"
        " diagnostics events, failure reasons and the log's last lines; no query text, document"
        " text, file names, keys or passwords from addresses.",
    ),
    "diagrec.export.failed": ("导出失败：{reason}", "Export failed: {reason}"),
    "conn.title": ("模型连接", "Model connections"),
    "conn.embedding": ("向量模型", "Embedding model"),
    "conn.kind": ("提供方", "Provider"),
    "conn.kind.local": (
        "应用内置本地模型（multilingual-e5-small）",
        "Bundled local model (multilingual-e5-small)",
    ),
    "conn.kind.ollama": ("Ollama（本机或自托管）", "Ollama (this computer or self-hosted)"),
    "conn.kind.openai-compatible": ("OpenAI 兼容服务", "OpenAI-compatible service"),
    "conn.kind.none": ("关闭语义检索", "Semantic search off"),
    "conn.kind.deterministic": ("确定性哈希（仅测试）", "Deterministic hashing (tests only)"),
    "conn.base_url": ("服务地址", "Base URL"),
    "conn.model": ("模型", "Model"),
    "conn.dimensions": ("维度（0 表示由服务决定）", "Dimensions (0 = as the service returns)"),
    "conn.key": ("API 密钥（只写）", "API key (write-only)"),
    "conn.key.stored": (
        "已保存密钥；输入新值以替换",
        "A key is stored; type a new one to replace it",
    ),
    "conn.key.none": ("未保存密钥", "No key stored"),
    "conn.key.elsewhere": (
        "已保存的密钥属于 {origin}，请重新输入",
        "The stored key is for {origin}; type it again",
    ),
    "conn.test": ("测试连接", "Test connection"),
    "conn.test.ok": (
        "连接正常：{dims} 维，{ms:.0f} 毫秒",
        "Connection works: {dims} {dims:plural:dimension|dimensions}, {ms:.0f} ms",
    ),
    "conn.test.fail": ("连接失败：{error}", "Connection failed: {error}"),
    "conn.testing": ("正在测试表单中的连接…", "Testing the connection in the form…"),
    "conn.testing_save": ("保存前正在测试连接…", "Testing the connection before saving…"),
    "conn.test.chat_ok": (
        "连接正常：模型 {model} 已回答（{ms:.0f} 毫秒）：{reply}",
        "Connection works: model {model} answered in {ms:.0f} ms: {reply}",
    ),
    "conn.test.rerank_ok": (
        "连接正常：测试文档评分 {scores}（{ms:.0f} 毫秒）",
        "Connection works: test documents scored {scores} in {ms:.0f} ms",
    ),
    "conn.test_failed.title": ("连接测试失败", "Connection test failed"),
    "conn.test_failed.text": (
        "连接测试失败：{error}\n\n仍要保存这个连接吗？",
        "The connection test failed: {error}\n\nSave anyway?",
    ),
    "conn.save_anyway": ("仍然保存", "Save anyway"),
    "conn.unsaved.title": ("有未保存的更改", "Unsaved changes"),
    "conn.unsaved.text": (
        "这些页面有未保存的更改：{pages}。关闭并放弃这些更改吗？",
        "These pages have changes that are not saved: {pages}. Close and discard the changes?",
    ),
    "conn.unsaved.discard": ("放弃更改并关闭", "Discard changes and close"),
    "conn.not_saved": ("未保存", "Not saved"),
    "conn.save": ("保存并切换", "Save and switch"),
    "conn.path.chat_off": (
        "未设置对话模型：不会向任何地方发送内容。",
        "No chat model: nothing is sent anywhere.",
    ),
    "conn.path.chat_unset": (
        "问题、对话记录和检索到的证据段落会发送到上面填写的地址和模型。",
        "Questions, the conversation and the evidence passages found will be sent to the"
        " address and model entered above.",
    ),
    "conn.path.chat": (
        "问题、对话记录和检索到的证据段落会发送到 {url}（模型 {model}）。",
        "Questions, the conversation and the evidence passages found are sent to {url}"
        " (model {model}).",
    ),
    "conn.path.chat_draft": (
        "保存后，问题、对话记录和检索到的证据段落将发送到 {url}（模型 {model}）。",
        "Once saved, questions, the conversation and the evidence passages found will be sent"
        " to {url} (model {model}).",
    ),
    "conn.path.rerank_off": (
        "未设置重排服务：不发送任何内容；知识库开启的本地规则重排在这台电脑上运行。",
        "No rerank service: nothing is sent; a library's local rule-based rerank, where it is"
        " on, runs on this computer.",
    ),
    "conn.path.rerank_unset": (
        "问题和候选段落会发送到上面填写的地址和模型。",
        "Questions and the candidate passages will be sent to the address and model entered above.",
    ),
    "conn.path.rerank": (
        "问题和候选段落会发送到 {url}（模型 {model}）。",
        "Questions and the candidate passages are sent to {url} (model {model}).",
    ),
    "conn.path.rerank_draft": (
        "保存后，问题和候选段落将发送到 {url}（模型 {model}）。",
        "Once saved, questions and the candidate passages will be sent to {url} (model {model}).",
    ),
    "conn.switch_note": (
        "切换模型后，已有向量索引会显示为不兼容，直到你在知识库中重建向量；系统不会自动切换或回退到其他模型。",
        "After a switch, existing vector indexes show as incompatible until you rebuild them; the app never switches or falls back to another model by itself.",
    ),
    "conn.rebuild": ("重建向量索引", "Rebuild vector index"),
    "conn.saved": ("已保存", "Saved"),
    "conn.list_models": ("列出模型", "List models"),
    "conn.list_models.need_url": (
        "先选择 Ollama 或 OpenAI 兼容服务并填写服务地址。",
        "Choose Ollama or an OpenAI-compatible service and enter its address first.",
    ),
    "conn.list_models.asking": ("正在询问服务提供哪些模型…", "Asking the service for its models…"),
    "conn.list_models.found": (
        "服务提供 {count} 个模型：可从列表选择，也可直接输入名称。",
        "The service offers {count} {count:plural:model|models}: pick one or type a name.",
    ),
    "conn.list_models.failed": ("无法列出模型：{error}", "Cannot list the models: {error}"),
    "mcp.title": ("外部 AI 工具（MCP）", "External AI tools (MCP)"),
    "mcp.intro": (
        "Claude Desktop、Cursor、Cherry Studio 等 AI 工具可以通过 MCP 只读检索你在这里开启的知识库："
        "列出知识库、检索带引用的片段、查看引用上下文。它们不能修改、删除或导入任何内容，"
        "看不到未开启的知识库，也不能让本应用打开文件或网址。",
        "AI tools such as Claude Desktop, Cursor or Cherry Studio can search the libraries you "
        "switch on here, read-only, over MCP: list them, search for cited passages, read around "
        "a citation. They cannot change, delete or import anything, cannot see libraries that "
        "are off, and cannot make this app open a file or a URL.",
    ),
    "mcp.libraries": ("可供外部 AI 工具检索的知识库", "Libraries available to external AI tools"),
    "mcp.switch_note": (
        "默认关闭。开关立即生效：关闭或删除的知识库会马上从已连接的工具中消失。",
        "Off by default. Switches apply at once: a library switched off or deleted disappears "
        "from connected tools immediately.",
    ),
    "mcp.no_libraries": ("还没有知识库。", "No libraries yet."),
    "mcp.exposed": ("外部 AI 工具可检索", "Available to external AI tools"),
    "mcp.private": ("仅本应用可用", "Private to this app"),
    "mcp.setup": ("在 AI 工具中配置", "Set up in your AI tool"),
    "mcp.command": ("启动命令", "Command"),
    "mcp.format": ("配置格式", "Configuration for"),
    "mcp.format.mcpServers": (
        "Claude Desktop / Cursor / Cherry Studio / Windsurf（mcpServers）",
        "Claude Desktop / Cursor / Cherry Studio / Windsurf (mcpServers)",
    ),
    "mcp.format.vscode": ("VS Code（.vscode/mcp.json）", "VS Code (.vscode/mcp.json)"),
    "mcp.snippet": ("配置片段", "Configuration snippet"),
    "mcp.copy": ("复制", "Copy"),
    "mcp.copied": ("已复制到剪贴板", "Copied to the clipboard"),
    "mcp.calls": ("最近的调用", "Recent calls"),
    "mcp.calls.count": ("次数", "Calls"),
    "mcp.calls.errors": ("出错", "Errors"),
    "mcp.calls.p50": ("耗时中位数", "Median time"),
    "mcp.calls.last": ("最近一次", "Last call"),
    "mcp.calls.note": (
        "自 {since} 起共 {calls} 次调用，{errors} 次出错。当前开放的知识库：{exposed} 个。"
        "只记录工具名、结果和耗时，不记录查询内容。",
        "{calls} {calls:plural:call|calls} since {since}, {errors} with errors. Libraries available: {exposed}. "
        "Only the tool, its outcome and its time are recorded, never what was asked.",
    ),
    "mcp.calls.none": (
        "还没有外部工具调用过。当前开放的知识库：{exposed} 个。",
        "No external tool has called yet. Libraries available: {exposed}.",
    ),
    "mcp.close": ("关闭", "Close"),
    # the Settings tab (retrieval and chunking of a library) and the model endpoints
    "settings.range": ("范围 {low}–{high}", "range {low}–{high}"),
    "settings.retrieval": ("检索设置", "Retrieval settings"),
    "settings.chunking": ("分块设置", "Chunking settings"),
    "settings.save": ("保存", "Save"),
    "settings.saved.retrieval": ("检索设置已保存", "Retrieval settings saved"),
    "settings.saved.chunking": ("分块设置已保存", "Chunking settings saved"),
    "settings.saved.instructions": ("助手指令已保存", "Assistant instructions saved"),
    "settings.saved.graph": ("图谱设置已保存", "Graph settings saved"),
    "settings.parent_child_only": ("仅用于父子分块模式", "Used only in parent-child mode"),
    "settings.not_parent_child": (
        "父子分块模式下不使用（按父块和子块长度切分）",
        "Not used in parent-child mode (the parent and child lengths apply)",
    ),
    "settings.rebuild_notice": (
        "分块设置已更新，等待重建：已有分块保持不变，直到你重建索引。",
        "Chunking settings updated, waiting for rebuild: existing chunks stay as they are until you rebuild.",
    ),
    "settings.graph": ("知识图谱", "Knowledge graph"),
    "settings.graph.hint": (
        "实体和关系在“知识图谱”标签页中浏览和编辑。",
        "Browse and edit the entities and relations in the Knowledge graph tab.",
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
    # what each field does: the field's tooltip, above its range ("范围 0.0–1.0" alone said
    # nothing of what the number changes)
    "field.topK.what": (
        "一次检索返回的结果条数（给你看的，也是交给对话模型的）。",
        "How many results a search returns, to you and to the chat model.",
    ),
    "field.minimumRelevance.what": (
        "相关度（估计的相关概率）低于此值的结果不作为证据：检索测试中灰色列出，不交给对话模型；"
        "连最好的结果也低于它时，显示“没有足够相关的内容”。默认 0.2 几乎不会拦下知识库能回答的问题，"
        "但知识库里没有答案时，多数情况下仍会列出结果；调高到 0.35 左右能拦下多数这类问题，"
        "代价是换了说法的提问更常被拦下。",
        "Results whose relevance (the estimated chance that they are relevant) is below this"
        " are not evidence: greyed in the workbench, never given to the chat model; when even"
        " the best is below it, the search says nothing relevant enough was found. The default"
        " 0.2 almost never withholds a question the library can answer, but when the library"
        " holds no answer it still lists results most of the time; around 0.35 stops most of"
        " those, at the cost of withholding more questions asked in other words.",
    ),
    "field.minimumVectorSimilarity.what": (
        "向量通道丢弃余弦相似度低于此值的候选；0 表示不过滤。",
        "The vector channel drops candidates whose cosine similarity is below this; 0 keeps"
        " them all.",
    ),
    "field.ftsWeight.what": (
        "全文通道（含中文二元组）在融合中的权重；0 表示不检索这些通道。",
        "The full-text channels' weight in the fusion (Chinese bigrams included); 0 does not"
        " search them.",
    ),
    "field.vectorWeight.what": (
        "向量通道在融合中的权重；0 表示不检索该通道。",
        "The vector channel's weight in the fusion; 0 does not search it.",
    ),
    "field.graphWeight.what": (
        "知识图谱通道在融合中的权重；0 表示不检索该通道。",
        "The knowledge graph channel's weight in the fusion; 0 does not search it.",
    ),
    "field.candidateMultiplier.what": (
        "每个通道先取 Top K × 此倍数个候选，再融合和重排：越大找得越全，也越慢。",
        "Each channel first takes Top K × this many candidates before fusion and rerank:"
        " larger finds more and is slower.",
    ),
    "field.contextMaxCharacters.what": (
        "交给对话模型的证据最多这么多字符，按相关度从高到低放入。",
        "The evidence given to the chat model holds at most this many characters, most"
        " relevant first.",
    ),
    "field.adjacentChunkCount.what": (
        "每个命中分块前后各带上这么多相邻分块，放进上下文。",
        "Each hit brings this many neighbouring chunks from either side into the context.",
    ),
    "field.targetCharacters.what": (
        "每个分块的目标长度（字符）。重建后生效。",
        "Each chunk's target length, in characters. Takes effect after a rebuild.",
    ),
    "field.overlapCharacters.what": (
        "相邻分块共有的字符数，避免一句话被切成两半。重建后生效。",
        "Characters neighbouring chunks share, so that a sentence is not cut in two. Takes"
        " effect after a rebuild.",
    ),
    "field.parentCharacters.what": (
        "父子分块模式下父块的长度：检索命中子块，交给对话模型的是父块。重建后生效。",
        "Parent-child mode: the parent chunk's length — searches match the children, the chat"
        " model gets the parent. Takes effect after a rebuild.",
    ),
    "field.childCharacters.what": (
        "父子分块模式下子块的长度。重建后生效。",
        "Parent-child mode: the child chunk's length. Takes effect after a rebuild.",
    ),
    "field.minimumVectorSimilarity": ("最低向量相似度", "Minimum vector similarity"),
    "field.minimumRelevance": ("最低相关度", "Minimum relevance"),
    "field.ftsWeight": ("全文权重", "Full-text weight"),
    "field.vectorWeight": ("向量权重", "Vector weight"),
    "field.graphWeight": ("图谱权重", "Graph weight"),
    "field.candidateMultiplier": ("候选倍数", "Candidate multiplier"),
    "field.contextMaxCharacters": ("上下文最大字符数", "Context budget (characters)"),
    "field.adjacentChunkCount": ("相邻分块数", "Adjacent chunks"),
    "field.localRerankEnabled": ("本地规则重排", "Local rule-based rerank"),
    "field.fusion": ("通道融合", "Channel fusion"),
    "field.fusion.hint": (
        "自适应：按每个通道对本次问题的把握程度加权，并参考分数（在各评测集上更准）；"
        "RRF：只按各通道的排名合并（规范中重排关闭时的顺序）",
        "Adaptive: weighs each channel by how sure it is about this question and uses its"
        " scores (more accurate on every evaluation set); RRF: merges the channels by rank"
        " only (the specification's order when rerank is off)",
    ),
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
    "chat.model": ("对话模型", "Chat model"),
    "chat.model.none": ("未配置（仅证据回答）", "None (evidence-only answers)"),
    "rerank.service": (
        "学习型重排服务（Cohere/Jina 兼容）",
        "Learned rerank service (Cohere/Jina-compatible)",
    ),
}
