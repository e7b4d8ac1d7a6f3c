"""Strings of the starter ontology in both languages: the names and descriptions of the entity
and relation types a new library's graph starts with. The ontology stores keys (and the starter's
English description); what a person reads comes from here while a type is still the starter's,
and as they typed it once they changed it (``ui.graph.texts``)."""

from __future__ import annotations

STARTER_STRINGS: dict[str, tuple[str, str]] = {
    "starter.entity.person": ("人员", "Person"),
    "starter.entity.person.description": (
        "人员，由紧挨职务的姓名找到（经理谭一鸣、led by Ann Lee）。",
        "A person, found by name next to a role (经理谭一鸣, led by Ann Lee).",
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
    "starter.entity.process": ("流程/事项", "Process"),
    "starter.entity.process.description": (
        "流程或一项事务（请假申请、访客登记）。",
        "A process or a piece of business (请假申请, 访客登记).",
    ),
    "starter.entity.role": ("职务", "Role"),
    "starter.entity.role.description": (
        "文档中单独出现的职务（财务总监、Managing Director）；紧挨人名的头衔不算。",
        "A post the documents name on its own (财务总监, Managing Director);"
        " a title right next to a person's name is not one.",
    ),
    "starter.entity.project": ("项目", "Project"),
    "starter.entity.project.description": ("项目。", "A project."),
    "starter.entity.term": ("术语", "Term"),
    "starter.entity.term.description": ("有定义的术语或缩写。", "A defined term or abbreviation."),
    "starter.relation.approves": ("审批", "approves"),
    "starter.relation.owns": ("负责", "owns"),
    "starter.relation.belongs_to": ("隶属", "belongs to"),
    "starter.relation.depends_on": ("依赖", "depends on"),
    "starter.relation.part_of": ("组成部分", "part of"),
    "starter.relation.located_in": ("位于", "located in"),
    "starter.relation.defined_in": ("定义于", "defined in"),
    "starter.relation.led_by": ("负责人", "led by"),
    "starter.relation.uses": ("使用", "uses"),
    "starter.relation.member_of": ("成员", "member of"),
    "starter.relation.reports_to": ("汇报", "reports to"),
    "starter.relation.replaced_by": ("替代", "replaced by"),
}
