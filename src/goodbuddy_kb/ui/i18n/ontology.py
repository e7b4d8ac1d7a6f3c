"""Strings of the starter ontology in both languages: the names and descriptions of the entity
and relation types a new library's graph starts with. The ontology stores keys (and the starter's
English description); what a person reads comes from here while a type is still the starter's,
and as they typed it once they changed it (``ui.graph.texts``)."""

from __future__ import annotations

STARTER_STRINGS: dict[str, tuple[str, str]] = {
    "starter.entity.person": ("人员", "Person"),
    "starter.entity.person.description": (
        "人员，或某人担任的职务。",
        "A person or a role held by a person.",
    ),
    "starter.entity.organization": ("组织/部门", "Organisation / department"),
    "starter.entity.organization.description": (
        "公司、部门、委员会或团队。",
        "A company, department, committee or team.",
    ),
    "starter.entity.product": ("产品", "Product"),
    "starter.entity.product.description": ("产品或产品线。", "A product or product line."),
    "starter.entity.system": ("系统", "System"),
    "starter.entity.system.description": (
        "软件系统、平台或服务。",
        "A software system, platform or service.",
    ),
    "starter.entity.policy": ("文件/制度", "Document / policy"),
    "starter.entity.policy.description": (
        "规定、制度、流程或手册。",
        "A rule, policy, procedure or manual.",
    ),
    "starter.entity.location": ("地点", "Location"),
    "starter.entity.location.description": ("地点。", "A place."),
    "starter.entity.term": ("术语", "Term"),
    "starter.entity.term.description": ("有定义的术语或缩写。", "A defined term or abbreviation."),
    "starter.relation.approves": ("审批", "approves"),
    "starter.relation.owns": ("负责", "owns"),
    "starter.relation.belongs_to": ("隶属", "belongs to"),
    "starter.relation.depends_on": ("依赖", "depends on"),
    "starter.relation.part_of": ("组成部分", "part of"),
    "starter.relation.located_in": ("位于", "located in"),
    "starter.relation.defined_in": ("定义于", "defined in"),
}
