"""The Knowledge graph tab's strings in zh-CN and en (merged into ``i18n.STRINGS``)."""

from __future__ import annotations

GRAPH_STRINGS: dict[str, tuple[str, str]] = {
    "tab.graph": ("知识图谱", "Knowledge graph"),
    "graph.loading": ("正在读取图谱…", "Loading the graph…"),
    "graph.status": (
        "策略：{strategy} · {entities} 个实体 · {relations} 个关系 · {evidence} 条证据",
        "Strategy: {strategy} · entities: {entities} · relations: {relations} · "
        "evidence spans: {evidence}",
    ),
    "graph.off_note": (
        "知识图谱未启用：不会抽取，检索中的图谱权重暂不生效。在“图谱设置”中选择本地或模型策略。",
        "The knowledge graph is off: nothing is extracted and the graph weight has no effect "
        "in retrieval. Choose the local or model strategy in Graph settings.",
    ),
    "graph.weight": ("检索中的图谱权重：{weight}", "Graph weight in retrieval: {weight}"),
    "graph.estimate": (
        "预计模型调用约 {count} 次",
        "about {count} model {count:plural:call|calls} estimated",
    ),
    "graph.task": ("抽取：{state} · {progress}", "Extraction: {state} · {progress}"),
    "graph.json_mode.json_object": (
        "上次运行：模型服务不接受 JSON Schema，已改用普通 JSON 模式",
        "Last run: the model server refused a JSON schema, so plain JSON mode was used",
    ),
    "graph.json_mode.plain": (
        "上次运行：模型服务不接受 JSON 模式，仅按说明要求 JSON 回答",
        "Last run: the model server refused JSON mode, so only the instructions asked for JSON",
    ),
    "graph.needs_rebuild": (
        "本体或策略已更改，当前图谱尚未按新设置抽取：请重新抽取以应用。",
        "The ontology or strategy changed and the graph does not reflect it yet: "
        "extract again to apply it.",
    ),
    "graph.progress": ("图谱抽取进度", "Graph extraction progress"),
    "graph.extract": ("抽取图谱", "Extract graph"),
    "graph.extract.started": ("已开始抽取图谱。", "Graph extraction started."),
    "graph.settings": ("图谱设置…", "Graph settings…"),
    "graph.ontology": ("本体…", "Ontology…"),
    "graph.search": ("搜索实体", "Search entities"),
    "graph.search.placeholder": ("按名称或别名搜索", "Search by name or alias"),
    "graph.type_filter": ("实体类型", "Entity type"),
    "graph.all_types": ("全部类型", "All types"),
    "graph.entities": ("实体列表", "Entity list"),
    "graph.col.name": ("名称", "Name"),
    "graph.col.type": ("类型", "Type"),
    "graph.col.mentions": ("提及", "Mentions"),
    "graph.col.lock": ("✎", "✎"),
    "graph.col.relation": ("关系", "Relation"),
    "graph.col.confidence": ("置信度", "Confidence"),
    "graph.col.source": ("来源", "Made by"),
    "graph.col.document": ("文档", "Document"),
    "graph.col.evidence": ("证据", "Evidence"),
    "graph.prev": ("上一页", "Previous"),
    "graph.next": ("下一页", "Next"),
    "graph.page": ("{start}–{end} / 共 {total}", "{start}–{end} of {total}"),
    "graph.new_entity": ("新建实体…", "New entity…"),
    "graph.details": ("详情", "Details"),
    "graph.picture": ("关系图", "Neighbourhood"),
    "graph.picture.hint": (
        "滚轮或 +/−/0 缩放，拖动或方向键平移；点击节点（或按 N 选择、回车打开）转到该实体。",
        "Zoom with the wheel or +/−/0, pan by dragging or with the arrow keys; click a node "
        "(or N to pick one, Enter to open it) to go to that entity.",
    ),
    "graph.picture.truncated": (
        "邻域过大：只显示最强关系连接的 {count} 个实体。",
        "A large neighbourhood: only the {count} {count:plural:entity|entities} of the strongest relations are drawn.",
    ),
    "graph.empty": (
        "选择左侧的实体查看详情和关系图。列表为空时：本地策略会在导入文档后自动抽取；"
        "模型策略需点击“抽取图谱”；图谱未启用时请在“图谱设置”中启用。",
        "Choose an entity on the left to see its details and neighbourhood. If the list is "
        "empty: the local strategy extracts by itself as documents are imported, the model "
        "strategy waits for Extract graph, and a graph that is off is turned on in Graph "
        "settings.",
    ),
    "graph.empty.choose": (
        "选择左侧的实体查看详情和关系图。",
        "Choose an entity on the left to see its details and neighbourhood.",
    ),
    "graph.empty.gone": (
        "“{name}”已不在图谱中：列出它之后，一次抽取或编辑将它合并到了别的名称或删除了它。"
        "列表已刷新，请在左侧重新选择。",
        "“{name}” is no longer in the graph: an extraction or an edit merged it into another "
        "name or removed it after it was listed. The list has been read again; choose an "
        "entity on the left.",
    ),
    "graph.empty.gone_unnamed": (
        "这个实体已不在图谱中：列出它之后，一次抽取或编辑将它合并到了别的名称或删除了它。"
        "列表已刷新，请在左侧重新选择。",
        "This entity is no longer in the graph: an extraction or an edit merged it into another "
        "name or removed it after it was listed. The list has been read again; choose an "
        "entity on the left.",
    ),
    "graph.empty.none_found.local": (
        "抽取已完成，但这些文档中没有找到实体。本地抽取只认出写成专名的组织、部门、人员、系统"
        "和制度（如“人力资源部”“张伟”），以及句子中明确写出的关系；简短的笔记里"
        "可能没有。若要从这类文字中抽取，可在“图谱设置”中改用模型抽取。",
        "The extraction finished but found no entity in these documents. The local extraction "
        "recognises organisations, departments, people, systems and policies written as proper "
        "names (such as “Human Resources” or “Zhang Wei”) and the relations a "
        "sentence states plainly; short notes may hold none. To extract from such text, switch "
        "to model extraction in Graph settings.",
    ),
    "graph.empty.none_found.model": (
        "抽取已完成，但模型在这些文档中没有给出可接受的实体。可在“图谱设置”中查看本体的实体"
        "类型和最低置信度，或在“任务中心”查看本次抽取拒绝了哪些回答。",
        "The extraction finished but the model gave no acceptable entity in these documents. "
        "Check the ontology's entity types and the minimum confidence in Graph settings, or "
        "what the run rejected in the Tasks tab.",
    ),
    "graph.fact.type": ("类型：{type}", "Type: {type}"),
    "graph.fact.aliases": ("别名：{aliases}", "Aliases: {aliases}"),
    "graph.fact.mentions": ("提及：{count} 处", "Mentions: {count}"),
    "graph.fact.made_by": ("来源：{who}", "Made by: {who}"),
    "graph.extractor.local": ("本地抽取", "local extraction"),
    "graph.extractor.model": ("模型抽取", "model extraction"),
    "graph.extractor.manual": ("人工", "a person"),
    "graph.locked": (
        "已锁定（人工编辑，抽取不会覆盖）：{fields}",
        "Locked (edited by a person; extraction never overwrites): {fields}",
    ),
    "graph.locked.manual": (
        "人工创建：重新抽取不会删除",
        "Created by a person: re-extraction never removes it",
    ),
    "graph.locked.relation": (
        "人工创建或修改：重新抽取不会更改或删除",
        "Created or retyped by a person: re-extraction never changes or removes it",
    ),
    "graph.unlocked": ("未锁定：由抽取维护", "Not locked: maintained by extraction"),
    "graph.sep": ("、", ", "),
    "graph.path_sep": ("；", "; "),
    "graph.field.locked.name": ("名称", "name"),
    "graph.field.locked.type": ("类型", "type"),
    "graph.field.locked.aliases": ("别名", "aliases"),
    "graph.field.locked.description": ("描述", "description"),
    "graph.rename": ("重命名…", "Rename…"),
    "graph.retype": ("修改类型…", "Change type…"),
    "graph.aliases": ("别名…", "Aliases…"),
    "graph.merge": ("合并…", "Merge…"),
    "graph.delete": ("删除…", "Delete…"),
    "graph.relations": ("关系", "Relations"),
    "graph.evidence": ("证据", "Evidence"),
    "graph.evidence.relation": ("证据：{relation}", "Evidence: {relation}"),
    "graph.evidence.relation_none": (
        "证据：{relation}（由人创建，没有出处）",
        "Evidence: {relation} (made by a person: no source text)",
    ),
    "graph.view_chunk": ("查看分块", "View chunk"),
    "graph.relation.new": ("新建关系…", "New relation…"),
    "graph.relation.retype": ("修改关系类型…", "Change relation type…"),
    "graph.relation.delete": ("删除关系", "Delete relation"),
    "graph.relation.delete.text": (
        "删除关系“{relation}”？重新抽取不会再次生成它。",
        "Delete the relation “{relation}”? Re-extraction will not create it again.",
    ),
    "graph.relation.deleted": ("已删除关系 {relation}。", "Deleted the relation {relation}."),
    "graph.relation.saved": ("已保存关系 {relation}。", "Saved the relation {relation}."),
    "graph.saved": (
        "已保存“{name}”，修改的字段已锁定。",
        "Saved “{name}”; the edited fields are locked.",
    ),
    "graph.merged": ("已合并到“{name}”。", "Merged into “{name}”."),
    "graph.deleted": ("已删除实体“{name}”。", "Deleted the entity “{name}”."),
    "graph.delete.title": ("删除实体", "Delete entity"),
    "graph.delete.text": (
        "删除实体“{name}”及其 {count} 个关系？重新抽取不会再次生成它；文档不受影响。",
        "Delete the entity “{name}” and its {count} {count:plural:relation|relations}? Re-extraction will not create "
        "it again; the documents are not changed.",
    ),
    "graph.delete.confirm": ("删除“{name}”", "Delete “{name}”"),
    "graph.dialog.new": ("新建实体", "New entity"),
    "graph.dialog.rename": ("重命名实体", "Rename entity"),
    "graph.dialog.retype": ("修改实体类型", "Change entity type"),
    "graph.dialog.aliases": ("编辑别名", "Edit aliases"),
    "graph.dialog.of": ("{title}：{name}", "{title}: {name}"),
    "graph.dialog.merge": ("合并实体", "Merge entities"),
    "graph.dialog.relation": ("新建关系", "New relation"),
    "graph.dialog.relation_retype": ("修改关系类型", "Change relation type"),
    "graph.dialog.settings": ("图谱设置", "Graph settings"),
    "graph.dialog.ontology": ("本体：实体类型与关系类型", "Ontology: entity and relation types"),
    "graph.field.name": ("名称", "Name"),
    "graph.field.type": ("类型", "Type"),
    "graph.field.aliases": ("别名", "Aliases"),
    "graph.aliases.placeholder": (
        "用逗号分隔，例如：财务处, Finance",
        "Separated by commas, e.g. Finance, FIN",
    ),
    "graph.keep_old_name": (
        "保留旧名称作为别名（文中的旧名称仍能匹配）",
        "Keep the old name as an alias (mentions of it keep matching)",
    ),
    "graph.merge.note": (
        "选择要并入“{name}”的{type}实体：它们的名称成为别名，证据和关系移到“{name}”。",
        "Choose the {type} entities to fold into “{name}”: their names become aliases, their "
        "evidence and relations move to “{name}”.",
    ),
    "graph.pick_entity": ("选择实体", "Choose an entity"),
    "graph.pick_first": ("请先选择一个实体。", "Choose an entity first."),
    "graph.no_relation_type": (
        "本体中没有允许此类实体参与的关系类型。",
        "The ontology has no relation type this entity's type may take part in.",
    ),
    "graph.field.direction": ("方向", "Direction"),
    "graph.direction.head": ("“{name}”是起点", "“{name}” is the head"),
    "graph.direction.tail": ("“{name}”是终点", "“{name}” is the tail"),
    "graph.field.relation": ("关系类型", "Relation type"),
    "graph.field.other": ("另一端实体", "Other entity"),
    "graph.field.strategy": ("抽取策略", "Strategy"),
    "graph.field.weight": ("检索中的图谱权重", "Graph weight in retrieval"),
    "graph.field.max_entities": ("每个分块最多实体数", "Entities per chunk at most"),
    "graph.field.max_relations": ("每个分块最多关系数", "Relations per chunk at most"),
    "graph.field.min_confidence": ("最低置信度", "Minimum confidence"),
    "graph.min_confidence.note": (
        "检索只沿置信度不低于此值的关系找证据；“知识图谱”页列出抽取到的全部关系。",
        "Retrieval follows only relations at or above this confidence; the Graph tab lists"
        " every relation extracted.",
    ),
    "graph.strategy.off": ("关闭", "Off"),
    "graph.strategy.local": ("本地", "Local"),
    "graph.strategy.model": ("模型", "Model"),
    "graph.strategy.model.unavailable": ("模型（需先配置对话模型）", "Model (needs a chat model)"),
    "graph.strategy.model.needs_chat": (
        "模型抽取由对话模型完成：请先在“设置 → 模型连接”中配置对话模型",
        "A chat model does model extraction: set one up in Settings → Model connections first",
    ),
    "graph.strategy.off.note": (
        "不抽取图谱；图谱通道不参与检索。",
        "No graph is extracted; the graph channel takes no part in retrieval.",
    ),
    "graph.strategy.local.note": (
        "在本机按本体的线索、别名和关系模式抽取，不调用模型，文本不离开这台电脑。",
        "Extracted on this computer from the ontology's cues, aliases and relation patterns; "
        "no model is called and no text leaves this computer.",
    ),
    "graph.strategy.model.note": (
        "逐个分块调用已配置的对话模型（限定在本体内），会产生模型调用费用；开始前显示预计调用次数。",
        "The configured chat model is asked per chunk (restricted to the ontology); this costs "
        "model calls, and their estimated number is shown before you start.",
    ),
    "ontology.entity_types": ("实体类型", "Entity types"),
    "ontology.relation_types": ("关系类型", "Relation types"),
    "ontology.add": ("添加", "Add"),
    "ontology.remove": ("移除", "Remove"),
    "ontology.key": ("键（英文小写）", "Key (lower-case)"),
    "ontology.name_zh": ("中文名", "Chinese name"),
    "ontology.name_en": ("英文名", "English name"),
    "ontology.aliases": ("别名", "Aliases"),
    "ontology.description": ("说明", "Description"),
    "ontology.suffixes": ("名称后缀线索", "Name suffix cues"),
    "ontology.prefixes": ("名称前缀线索", "Name prefix cues"),
    "ontology.head_types": ("起点类型", "Head types"),
    "ontology.tail_types": ("终点类型", "Tail types"),
    "ontology.patterns": ("关系模式（每行一个）", "Patterns (one per line)"),
    "ontology.cues_hint": (
        "本地抽取用后缀/前缀线索发现新名称，例如组织：部、中心、Department。用逗号分隔。",
        "Local extraction discovers new names by these cues, e.g. organisation: 部, 中心, "
        "Department. Separate with commas.",
    ),
    "ontology.endpoints_hint": (
        "不勾选表示任意类型。模式中用 {head} 和 {tail} 标出两端，例如“{tail}由{head}审批”。",
        "None ticked means any type. Patterns name both ends with {head} and {tail}, e.g. "
        "“{head} approves {tail}”.",
    ),
    "ontology.note": (
        "保存后图谱标记为需要重新抽取；人工创建或编辑的实体与关系必须仍符合新本体。",
        "After saving, the graph is marked as needing re-extraction; entities and relations a "
        "person created or edited must still fit the new ontology.",
    ),
    "ontology.invalid": ("本体无效（{where}）：{problem}", "Invalid ontology ({where}): {problem}"),
}
