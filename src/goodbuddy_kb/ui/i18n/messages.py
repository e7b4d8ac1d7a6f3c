"""Backend messages in the user's language: each catalogue code of ``contracts/messages.py`` in
zh-CN (the English is the catalogue's own sentence), pydantic's validation problems in both, and
the functions that turn a coded message — or, for nested parameters, an English catalogue
sentence — into the text a person reads. Anything outside the catalogue shows as it came."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.messages import NESTED_PARAMS, classify, fill
from goodbuddy_kb.ui.i18n import language, tr_or

ZH: dict[str, str] = {
    "parse.empty_file": "空文件",
    "parse.unsupported_type": "不支持的文件类型“{suffix}”",
    "parse.no_text": "没有文本内容",
    "parse.headings_only": "只有标题，标题下没有正文",
    "parse.pdf_encrypted": "PDF 已加密",
    "parse.pdf_unreadable": "无法读取该 PDF（{error}）",
    "parse.pdf_no_text": "PDF 中没有可提取的文字（扫描页需要 OCR）",
    "parse.docx_unreadable": "无法读取该 Word 文档（{error}）",
    "parse.bad_encoding": "文本不是有效的 {encoding} 编码",
    "parse.binary": "二进制内容，不是文本",
    "parse.unknown_encoding": "无法识别文本编码",
    "parse.pdf_no_pages": "PDF 没有任何页面",
    "ocr.off": "扫描页需要 OCR，但本知识库已关闭 OCR（可在知识库设置中开启）",
    "ocr.not_indexed_off": "未索引：OCR 已关闭",
    "ocr.failed": "OCR 识别失败（{error}）",
    "ocr.task_failed": "OCR 识别失败的文档：{count} 个（第一个：{path}：{reason}）",
    "ocr.unavailable_package": "OCR 不可用：未安装 OCR 组件（rapidocr）",
    "ocr.unavailable_models": "OCR 不可用：缺少 OCR 模型（{files}）",
    "ocr.unavailable_runtime": "OCR 不可用：无法加载 OCR 运行库（{error}）",
    "ocr.unavailable_engine": "OCR 不可用：OCR 引擎启动失败（{error}）",
    "ocr.image_unreadable": "无法读取该图片（{error}）",
    "ocr.image_too_large": "图片太大（{width}×{height} 像素；上限 {limit} 百万像素）",
    "ocr.image_too_large_to_decode": "图片太大，无法解码",
    "ocr.pdf_unopenable": "无法打开该 PDF 进行 OCR（{error}）",
    "ocr.page_unrenderable": "第 {page} 页无法渲染（{error}）",
    "ocr.page_undecodable": "第 {page} 页无法解码（{error}）",
    "ocr.page_cap": "只识别前 {limit} 个扫描页（页数上限）",
    "ocr.time_budget": "OCR 时间预算（{minutes} 分钟）在第 {page} 页后用完",
    "read.too_large": "文件太大（{size} MB；上限 {limit} MB）",
    "read.permission": "无法读取文件（没有权限）",
    "read.failed": "无法读取文件（{detail}）",
    "read.file_gone": "文件已被移动或删除",
    "read.folder_gone": "文件夹已被移动或删除",
    "read.unsupported_content": "不支持的内容类型“{media}”",
    "web.scheme": "只能导入 http(s) 地址（收到“{scheme}”）",
    "web.redirect_scheme": "只能导入 http(s) 地址（重定向指向了其他协议）",
    "web.http_status": "服务器返回 HTTP {status}",
    "web.too_large": "网页大于 {limit} MB",
    "web.slow": "网页未在 {seconds} 秒内传完",
    "web.no_answer": "网页未在 {seconds} 秒内响应",
    "web.fetch_failed": "无法获取网页（{error}）",
    "web.redirects": "重定向次数过多",
    "source.overflow": "超出 {limit} 个文件上限的 {count} 个文件未导入",
    "source.path_not_absolute": "路径必须是绝对路径",
    "source.no_such_file": "文件不存在：{path}",
    "source.no_such_folder": "文件夹不存在：{path}",
    "source.unsupported_type": "无法读取这种文件（{detail}）；可读取的类型：{suffixes}",
    "source.no_extension": "没有文件扩展名",
    "source.watch_folder_only": "只有文件夹来源可以监听",
    "source.duplicate": "这个知识库已有该来源",
    "source.not_found": "该知识库中没有这个来源",
    "source.data_dir": "这是本应用自己的数据文件夹或在其中：其中的数据库、日志和导出文件不是文档",
    "source.inside_folder": "这个文件已在文件夹来源 {other} 的导入范围内",
    "source.shares_files": (
        "这个文件夹中有 {count} 个文件已在来源 {other} 的导入范围内（第一个：{path}）；"
        "请先移除那个来源，或在命令行用 `goodbuddy-kb source add --exclude` 的排除规则添加这个文件夹"
        "以略过它们"
    ),
    "library.duplicate_name": "已存在名为“{name}”的知识库",
    "library.limit": "每个数据目录最多 {limit} 个知识库",
    "library.not_found": "知识库不存在",
    "document.not_found": "该知识库中没有这个文档",
    "task.not_found": "任务不存在",
    "task.cancelled_by_user": "已由用户取消",
    "task.app_closing": "应用正在关闭",
    "task.library_deleted": "知识库已删除",
    "task.interrupted": "任务完成前应用已停止",
    "task.interrupted_closed": "任务完成前应用已关闭；请重新运行",
    "conversation.not_found": "对话不存在",
    "chat.stopped_by_user": "已由用户停止",
    "vector.no_model": "未配置向量模型",
    "vector.no_model_hint": "未配置向量模型（设置 → 模型连接）",
    "vector.no_index": "尚无向量索引",
    "vector.not_finished": "尚无向量索引：向量化尚未完成",
    "vector.incompatible": "索引由其他模型或服务构建，需要重建",
    "vector.encoder_upgrade": "索引由内置模型的另一种编码器（float32 或 int8）构建：仍可检索；重建后改用当前配置的编码器",
    "vector.query_not_embedded": "无法为问题生成向量：{reason}",
    "vector.provider_cannot_start": "向量模型无法启动（{error}）",
    "vector.embedding_failed": "向量化失败",
    "vector.embedding_failed_because": "向量化失败：{reason}",
    "vector.gaps": "仍有 {count} 个分块没有向量",
    "vector.local_missing": "内置本地向量模型未安装",
    "embedding.timeout": "向量服务未及时响应",
    "embedding.unreachable": "无法连接向量服务（{error}）",
    "embedding.http_status": "向量服务返回 HTTP {status}",
    "embedding.too_large": "向量服务的响应过大",
    "embedding.malformed": "向量服务返回了格式错误的 JSON",
    "embedding.not_numbers": "向量服务返回的向量不是数字",
    "embedding.wrong_count": "向量服务返回的向量数量不对",
    "embedding.non_finite": "向量服务返回了非有限数值",
    "embedding.no_embeddings": "向量服务的响应中没有向量",
    "embedding.ollama_no_embeddings": "Ollama 的响应中没有向量",
    "embedding.off": "语义检索已关闭：没有可测试的向量模型",
    "parse.too_much_memory": "解析该文件需要的内存过多",
    "parse.nested_too_deeply": "文件嵌套层级过深，无法解析",
    "parse.failed": "无法解析该文件（{error}）",
    "parse.chunking_failed": "无法将该文件切分为分块（{error}）",
    "parse.too_slow": "解析时间超过 {seconds} 秒",
    "parse.archive_parts": "压缩包中的部件过多（{count} 个）",
    "parse.archive_damaged": "压缩包已损坏（{error}）",
    "parse.archive_member": "压缩包中的一个部件解压后超过 {limit} MB（{name}）",
    "parse.archive_ratio": "压缩包中的一个部件解压后膨胀超过 {ratio} 倍（疑似压缩炸弹）",
    "parse.archive_total": "压缩包解压后超过 {limit} MB",
    "parse.html_depth": "网页嵌套超过 {levels} 层",
    "parse.html_open_elements": "网页嵌套超过 {elements} 个元素",
    "parse.html_nodes": "网页元素超过 {elements} 个",
    "parse.pdf_pages": "PDF 页数过多（{count} 页；上限 {limit} 页）",
    "parse.docx_too_large": "Word 文档中的段落和表格过多",
    "parse.epub_unreadable": "无法读取该电子书（{error}）",
    "parse.email_unreadable": "无法读取该邮件（{error}）",
    "parse.attachment_gone": "邮件中已没有这个附件",
    "parse.attachments_left_out": "超出每个文件 {limit} 个附件上限的 {count} 个附件未被索引",
    "parse.slides_unreadable": "无法读取该演示文稿（{error}）",
    "parse.slides_too_many": "演示文稿的幻灯片过多（{count} 张；最多 {limit} 张）",
    "parse.odf_unreadable": "无法读取该 OpenDocument 文件（{error}）",
    "parse.rtf_unreadable": "无法读取该 RTF 文档（{error}）",
    "parse.sheet_unreadable": "无法读取该电子表格（{error}）",
    "parse.sheet_count": "电子表格中的工作表过多（{count} 个；上限 {limit} 个）",
    "parse.hidden_sheets": "已跳过隐藏的工作表：{names}",
    "parse.old_format": "不支持旧版 {name} 格式（{suffix}）：请将文件另存为 {target}",
    "parse.csv_unreadable": "无法读取该 CSV 文件（{error}）",
    "parse.limit_cells": "文件过大，无法解析：表格单元格 {count} 个，上限 {limit} 个",
    "parse.limit_columns": "文件过大，无法解析：表格有 {count} 列，上限 {limit} 列",
    "parse.limit_sections": "文件过大，无法解析：段落 {count} 个，上限 {limit} 个",
    "parse.limit_characters": "文件过大，无法解析：{count} 个字符，上限 {limit} 个",
    "read.outside_source": "该路径指向来源文件夹之外",
    "read.now_link": "该文件现在是符号链接（不跟随链接）",
    "read.folder_now_link": "路径上的某个文件夹现在是符号链接或文件",
    "read.now_folder": "该路径现在是文件夹（不读取管道、设备和套接字）",
    "read.now_special": "该路径现在不是普通文件（不读取管道、设备和套接字）",
    "read.changed_while_opening": "打开文件时文件发生了变化",
    "web.unreadable": "无法读取网页（{error}）",
    "net.too_large": "响应大于 {limit} MB",
    "net.encodings": "响应使用了多种内容编码（{encodings}）",
    "net.unsupported_encoding": "不支持的内容编码“{encoding}”",
    "net.damaged": "压缩的响应已损坏",
    "document.no_retrievable_content": "无可检索内容",
    "document.source_removed": "该文档的来源已被移除",
    "chunk.not_found": "该文档中没有这个分块",
    "embedding.timeout_seconds": "向量服务未及时响应（{seconds} 秒）",
    "embedding.unreadable": "无法读取向量服务的响应（{error}）",
    "embedding.wrong_dimensions": "向量服务返回了 {got} 维向量，应为 {expected} 维",
    "embedding.absurd_values": "向量服务返回了非有限或异常的数值",
    "embedding.constant_vector": "向量服务返回了空向量（全零或常数）",
    "vector.partial": "{count} 个分块还没有向量，只能通过全文检索找到",
    "vector.filling": "向量目前覆盖 {covered}/{total} 篇文档；向量化完成前，其余文档只能通过全文检索找到",
    "vector.interrupted": "已中断：构建期间应用停止了",
    "rebuild.dimensions": "服务返回了 {got} 维向量，索引是 {expected} 维",
    "rebuild.embedding_stopped": "向量服务连续 {count} 个文档失败（{error}）；{left} 个文档未重建，保留原版本",
    "rebuild.one_failed": "1 个文档失败；已有旧版本的文档保留旧版本（第一个：{detail}）",
    "rebuild.failed": "{count} 个文档失败；已有旧版本的文档保留旧版本（第一个：{detail}）",
    "rebuild.kept_previous": "{error}（旧版本仍可检索）",
    "graph.no_entities": "问题中没有找到图谱里的实体",
    "graph.search_failed": "无法检索知识图谱（{error}）",
    "graph.task_off": "这个知识库的知识图谱已关闭",
    "graph.model_unavailable": "此版本尚不支持模型抽取；请选择本地策略",
    "graph.entity_not_found": "实体不存在",
    "chat.reply_unreadable": "对话模型的回复：{error}",
    "rerank.bad_scores": "重排服务返回的分数不是有限值或超出范围",
    "rerank.unreadable": "无法读取重排服务的响应（{error}）",
    "reference.stale": "此引用已失效：该段落已被删除或停用，或其文档已变化。",
    "reference.no_opener": "这台电脑上没有可用来打开文件的程序（未找到 {program}）",
    "reference.no_file_manager": "这台电脑上没有可用来在文件夹中显示文件的程序",
    "reference.reveal_failed": "{program} 未能在文件夹中显示它（退出状态 {exit_code}）",
    "reference.opener_failed": "{program} 未能打开它（退出状态 {exit_code}）：这台电脑上没有程序接手",
    "chat.regenerate_kept": "未能重新生成回答（{reason}）；原来的回答仍保留",
    "chat.not_searched_empty_scope": "未检索：本对话的知识范围中没有选择任何知识库",
    "chat.tool_refused": "模型的检索被拒绝：它要求检索本对话知识范围之外的知识库；回答未对照你的文档",
    "diagnostics.cannot_write": "无法写入该文件（{detail}）",
    "source.path_unusable": "无法使用该路径（{detail}）",
    "source.link_loop": "符号链接循环或名称无效",
    "invalid.retrieval_settings": "检索设置无效：{detail}",
    "invalid.rerank_needs_url_model": "重排服务需要填写服务地址和模型",
    "backend.locked": "另一个后台服务正在使用 {folder}",
    "backend.invalid_response": "后台服务返回了无效的响应",
    "graph.off": "这个知识库未启用知识图谱",
    "graph.unknown_entity_type": "未知的实体类型“{type}”：请选择本库本体中的类型",
    "graph.unknown_relation_type": "未知的关系类型“{type}”：请选择本库本体中的类型",
    "graph.incompatible_endpoints": "“{relation}”关系不能连接 {head} 与 {tail}",
    "graph.self_relation": "关系需要两个不同的实体",
    "graph.relation_exists": "该关系已存在",
    "graph.entity_not_in_library": "该知识库中没有这个实体",
    "graph.relation_not_found": "该知识库中没有这个关系",
    "graph.name_taken": "已有另一个{type}名为“{name}”：请改为合并两者",
    "graph.merge_across_types": "只能合并同一类型的实体：请先修改其中一个的类型",
    "graph.merge_self": "实体不能合并到自身",
    "graph.retype_breaks_relations": "改为{type}后，有 {count} 个关系的两端将不符合其类型的约束",
    "graph.ontology_type_in_use": "实体类型“{type}”仍被 {count} 个人工创建或编辑的实体使用",
    "graph.ontology_relation_in_use": "关系类型“{type}”仍被 {count} 个人工创建或编辑的关系使用",
    "graph.ontology_breaks_relations": "“{type}”的新端点约束将不再允许 {count} 个人工创建或编辑的关系",
    "rerank.not_configured": "未配置重排服务",
    "rerank.timeout": "重排服务未在 {seconds} 秒内响应",
    "rerank.unreachable": "无法连接重排服务（{error}）",
    "rerank.http_status": "重排服务返回 HTTP {status}",
    "rerank.too_large": "重排服务的响应过大",
    "rerank.invalid": "重排服务返回了无效的结果",
    "rerank.incomplete": "重排服务没有为每个候选打分",
    "zero.empty_library": "所选知识库还没有可检索的内容。",
    "zero.empty_library.next": "在“文档与来源”中添加文件、文件夹或网页，并等待同步完成。",
    "zero.index_unavailable": "没有可运行的检索通道：{reasons}。",
    "zero.index_unavailable.next": "在“文档与来源”中检查索引状态，启用全文检索，或重建向量索引。",
    "zero.no_channel": "没有可运行的通道",
    "zero.filtered": "{count} 个向量匹配低于最低相似度，且没有其他匹配。",
    "zero.filtered.next": "在检索设置中调低最低向量相似度，然后重新检索。",
    "zero.no_match": "所选知识库中没有与这个问题匹配的内容。",
    "zero.no_match.next": "换个关键词、同义词或更短的问题；确认选择了正确的知识库。",
    "zero.nothing_relevant": "没有足够相关的内容：最佳结果的相关度为 {best}，低于本库的最低相关度 {floor}。",
    "zero.nothing_relevant.next": "换一种说法提问、检查所选知识库，或在检索设置中调低最低相关度。",
    "channel.reason": "{channel}：{reason}",
    "graph.no_chat_model": "模型抽取需要对话模型（设置 → 模型连接）",
    "graph.model_failed": "对话模型未能抽取知识图谱：{reason}",
    "graph.answers_all_rejected": "对话模型的回答均无法使用（{count} 个被拒绝；第一个：{reason}），已保留原有知识图谱",
    "graph.answers_some_rejected": "对话模型有 {count} 个回答被拒绝（第一个：{reason}），这些片段保留原有图谱",
    "graph.answer_rejected": "对话模型的回答被拒绝（{reason}），该片段保留原有图谱",
    "graph.answer_empty": "回答为空",
    "graph.answer_not_json": "回答不是 JSON 对象",
    "graph.answer_shape": "回答中缺少实体列表和关系列表",
    "graph.answer_nothing_valid": "回答中的内容均不符合本体或不在该片段中",
    "graph.answer_too_deep": "回答的嵌套层级超过 {limit} 层",
    "graph.answer_stream": "回答的数据流无效",
    "graph.answer_too_long": "回答超过 {limit} 个字符",
    "graph.run_empty": "对话模型在读取的 {count} 个片段中没有识别出任何内容，已保留原有知识图谱",
    "chat.timeout": "对话模型未及时响应",
    "chat.timeout_seconds": "对话模型未在 {seconds} 秒内响应",
    "chat.unreachable": "无法连接对话模型（{error}）",
    "chat.http_status": "对话模型返回 HTTP {status}",
    "chat.invalid_stream": "对话模型返回了无效的流",
    "chat.nothing_to_test": "未配置对话模型：没有可测试的内容",
    "chat.regenerate_no_question": "此对话还没有可以重新回答的问题",
    "chat.regenerate_busy": "上一个回答仍在生成中，请先停止它",
    "chat.not_a_chat_model": "该地址有响应，但不是对话模型（没有返回对话流）",
    "models.timeout": "服务未及时响应",
    "models.unreachable": "无法连接服务（{error}）",
    "models.http_status": "服务返回 HTTP {status}",
    "models.too_large": "服务的模型列表过大",
    "models.no_list": "服务没有返回模型列表",
    "test.with_hint": "{error} — {hint}",
    "test.service_says": "{error}；服务的原话：{says}",
    "hint.check_key": "请检查 API 密钥",
    "hint.check_key_permissions": "请检查 API 密钥及其权限",
    "hint.check_url_model": "请检查服务地址和模型名称",
    "hint.check_service": "请检查地址，并确认服务已经启动",
    "hint.check_url_list": "请检查服务地址（并非每个服务都提供模型列表：可直接输入模型名称）",
    "reference.stale_open": "引用已失效：未打开任何内容",
    "reference.web_only": "只能打开 http(s) 网页：未打开任何内容",
    "reference.file_gone": "来源文件已被移动或删除：未打开任何内容",
    "reference.not_regular": "保存的文件已被替换为链接或不是普通文件：未打开任何内容",
    "reference.outside": "保存的文件现在指向来源之外：未打开任何内容",
    "datapath.off": "语义检索已关闭：只使用全文检索，不发送任何文本。",
    "datapath.local": "内置的 multilingual-e5-small 模型在这台电脑上运行；文本不会离开这台电脑。",
    "datapath.deterministic": "这台电脑上的哈希向量器（仅用于测试）；文本不会离开这台电脑。",
    "datapath.remote": "分块文本和问题会发送到 {url}（模型 {model}）。",
    "datapath.remote_unset": "分块文本和问题会发送到上面填写的地址。",
    "datapath.remote_no_model": "分块文本和问题会发送到 {url}（尚未填写模型）。",
    "invalid.chat_needs_url_model": "对话模型需要填写服务地址和模型",
    "invalid.embedding_needs_url_model": "远程向量模型需要填写服务地址和模型",
    "invalid.url_scheme": "服务地址必须是 http(s) 地址",
    "invalid.url_credentials": "服务地址中不能包含凭据（@ 前的用户名或密钥）；请把密钥填在 API 密钥中",
    "invalid.url_query": "服务地址中不能带查询（?…）或片段（#…）；密钥请填在 API 密钥中",
    "key.elsewhere": "已保存的 API 密钥属于 {origin}；要发送到 {target}，请重新输入密钥（已保存的密钥不会自动发往其他地址）",
    "key.elsewhere_unknown": "已保存的 API 密钥属于另一个地址；要发送到 {target}，请重新输入密钥（已保存的密钥不会自动发往其他地址）",
    "invalid.no_channel_weight": "至少一个通道权重（全文、向量、图谱）必须大于 0",
    "invalid.no_runnable_channel": (
        "没有可运行且权重大于 0 的通道：请给全文检索设置权重，或在已配置向量模型时给向量设置权重（知识图谱未启用）"
    ),
    "invalid.no_runnable_channel_graph_on": (
        "没有可运行且权重大于 0 的通道：请给全文检索、知识图谱或（已配置向量模型时）向量设置权重"
    ),
    "invalid.overlap_share": "最多为目标长度的 40%（{limit}）",
    "invalid.child_vs_parent": "必须小于父块长度（{limit}）",
    "invalid.empty": "不能为空",
    "invalid.control_characters": "不能包含控制字符",
    "invalid.too_many_characters": "最多 {limit} 个字符",
    "invalid.request": "请求无效（{prefix}）：{fields}：{problem}",
    "backend.not_running": "后台服务未运行",
    "backend.closed": "后台服务关闭了连接",
    "backend.stopped": "后台服务已停止",
    "backend.shutting_down": "后台服务正在关闭",
    "backend.starting": "后台服务正在启动",
    "backend.cannot_start": "无法启动后台服务：{detail}",
    "backend.could_not_start": "后台服务无法启动：{detail}",
    "data.read_only": "数据目录无法写入（{detail}）；请检查其权限，或用 --data-dir 选择其他目录",
    "data.corrupt_database": (
        "数据库文件已损坏（{detail}）；请从备份恢复，或将 goodbuddy-kb.sqlite3 移走后以空库启动"
    ),
    "data.disk_full": "数据目录所在磁盘已满；请释放空间后重试",
    "data.unusable": "数据目录无法使用（{detail}）",
    "data.newer": (
        "此数据目录由更新版本的 GoodBuddy KB 写入（数据版本 {found}；本版本最高支持 {known}）；"
        "它未被改动：请用那个版本或更新的版本打开"
    ),
    "data.removed_meanwhile": "任务运行期间，知识库或来源已被删除",
    "diagnostics.exists": "已存在同名文件；请换一个名称，或选择替换（--force）",
    "diagnostics.not_a_file": "该路径是链接、文件夹或设备，不是文件；只能替换普通文件",
    "backend.unreachable": "无法连接后台服务：{detail}",
    "backend.no_handshake": "后台服务没有响应握手",
    "storage.conflict": "这项更改与已保存的数据冲突",
    "storage.unavailable": "数据库不可用：{detail}",
    "storage.error": "数据库错误",
    "internal": "内部错误",
}

#: pydantic's problem types (``validation.<type>``) with its context values as parameters.
VALIDATION: dict[str, tuple[str, str]] = {
    "validation.less_than_equal": ("不能大于 {le}", "must be at most {le}"),
    "validation.greater_than_equal": ("不能小于 {ge}", "must be at least {ge}"),
    "validation.less_than": ("必须小于 {lt}", "must be less than {lt}"),
    "validation.greater_than": ("必须大于 {gt}", "must be greater than {gt}"),
    "validation.string_too_long": ("最多 {max_length} 个字符", "at most {max_length} characters"),
    "validation.string_too_short": (
        "至少 {min_length} 个字符",
        "at least {min_length} characters",
    ),
    "validation.too_long": ("最多 {max_length} 项", "at most {max_length} items"),
    "validation.too_short": ("至少 {min_length} 项", "at least {min_length} items"),
    "validation.missing": ("必填", "required"),
    "validation.extra_forbidden": ("不认识的字段", "unknown field"),
    "validation.int_type": ("必须是整数", "must be a whole number"),
    "validation.int_parsing": ("必须是整数", "must be a whole number"),
    "validation.float_type": ("必须是数字", "must be a number"),
    "validation.float_parsing": ("必须是数字", "must be a number"),
    "validation.bool_type": ("必须是开或关", "must be on or off"),
    "validation.string_type": ("必须是文本", "must be text"),
    "validation.literal_error": ("必须是 {expected} 之一", "must be one of {expected}"),
    "validation.value_error": ("{error}", "{error}"),
    "validation.assertion_error": ("{error}", "{error}"),
}


def template(code: str) -> str | None:
    """The template of ``code`` in the current language, or None if it has none."""
    zh = language() == "zh"
    if code in VALIDATION:
        return VALIDATION[code][0 if zh else 1]
    if code in CATALOGUE:
        return ZH.get(code) if zh else CATALOGUE[code]
    return None


def say(code: str | None, params: Mapping[str, Any] | None, fallback: str | None) -> str:
    """A coded message in the user's language; the ``fallback`` sentence for an unknown code."""
    text = template(code) if code else None
    if text is None:
        return say_text(fallback) if fallback and code is None else (fallback or "")
    values = {}
    for name, raw in (params or {}).items():
        value = str(raw)
        if name in NESTED_PARAMS and is_technical(value):
            value = technical_phrase(code or "", value)
        elif name in NESTED_PARAMS:
            value = say_text(value)
        elif name == "channel":
            value = tr_or(f"channel.{value}", value)
        values[name] = value
    try:
        return fill(text, **values)
    except (KeyError, IndexError):
        return fallback or text


#: A program's name for a failure standing where a reason goes: an exception's class name
#: ("PdfStreamError", "BadZipFile", "ConnectError"). People read a sentence instead; the name
#: stays in the tooltip (:func:`technical_names`) and in the diagnostics export.
TECHNICAL = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[A-Z]\w*(?:Error|Exception|Warning)")
#: Codes whose technical reason is about the file being read (the others: a connection, or
#: anything else).
FILE_CODES = ("parse.", "ocr.", "read.", "web.unreadable")


def is_technical(value: str) -> bool:
    return TECHNICAL.fullmatch(value.strip()) is not None


def technical_phrase(code: str, name: str) -> str:
    """What a technical failure name means for a person, in the user's language."""
    if code.startswith(FILE_CODES):
        key = "error.technical.file"
    elif "Timeout" in name:
        key = "error.technical.timeout"
    elif "Connect" in name:  # refused, or no such host ("the connection failed" said nothing)
        key = "error.technical.refused"
    elif any(word in name for word in ("Network", "Protocol", "Proxy", "Read", "Write")):
        key = "error.technical.connection"
    else:
        key = "error.technical.other"
    return tr_or(key, name)


def technical_names(model: object, field: str) -> list[str]:
    """The technical failure names behind the text field ``field`` of a contract model (for a
    tooltip), including those of nested catalogue sentences."""
    found: list[str] = []

    def walk(params: Mapping[str, Any] | None) -> None:
        for name, raw in (params or {}).items():
            value = str(raw)
            if name not in NESTED_PARAMS:
                continue
            if is_technical(value):
                found.append(value.strip())
            else:
                nested = classify(value)
                walk(nested.params if nested is not None else None)

    walk(getattr(model, f"{field}_params", None))
    return found


def say_text(english: str | None) -> str:
    """An English catalogue sentence (or a ``; ``-list of them) in the user's language; any
    other text comes back as it is (file names, model answers, messages outside the catalogue)."""
    if not english:
        return ""
    coded = classify(english)
    if coded is not None:
        return say(coded.code, coded.params, english)
    if "; " in english:
        parts = [say_text(part) for part in english.split("; ")]
        return ("；" if language() == "zh" else "; ").join(parts)
    name, colon, sentence = english.partition(": ")
    if colon and classify(sentence) is not None:  # "broken.pdf: the PDF could not be read …"
        return f"{name}{'：' if language() == 'zh' else ': '}{say_text(sentence)}"
    return english


def say_field(model: object, field: str) -> str:
    """The text field ``field`` of a contract model through its ``{field}_code``/``_params``."""
    return say(
        getattr(model, f"{field}_code", None),
        getattr(model, f"{field}_params", None),
        getattr(model, field, None),
    )


def say_error(error: KbError) -> str:
    """A backend error for a person: a field problem names the field, a coded one is
    translated, anything else reads as the backend wrote it."""
    fields = error.details.get("fields") if isinstance(error.details, dict) else None
    if isinstance(fields, list) and fields and isinstance(fields[0], dict):
        first = fields[0]
        if first.get("code"):
            problem = say(first.get("code"), first.get("params"), first.get("problem"))
            field = str(first.get("field") or "").rsplit(".", 1)[-1]
            label = tr_or(f"field.{field}", field)
            return f"{label}: {problem}" if label else problem
    return say(error.message_code, error.message_params, error.message)
