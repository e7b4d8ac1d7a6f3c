"""The starter ontology a new library is offered: common company-document entity types with
the discovery cues of the local extractor, and relation types with explicit patterns and
endpoint constraints. Every part is editable per library."""

from __future__ import annotations

from goodbuddy_kb.contracts.graph import EntityType, Ontology, RelationType

_ORG = [
    "部",
    "处",
    "科",
    "中心",
    "委员会",
    "办公室",
    "小组",
    "集团",
    "公司",
    "事业部",
    "Department",
    "Committee",
    "Office",
    "Team",
    "Division",
    "Inc",
    "Ltd",
]
_SYSTEM = ["系统", "平台", "网关", "服务", "System", "Platform", "Gateway", "Service"]
_POLICY = [
    "制度",
    "办法",
    "规定",
    "细则",
    "规范",
    "流程",
    "标准",
    "政策",
    "手册",
    "Policy",
    "Procedure",
    "Guideline",
    "Manual",
    "Handbook",
]
_ROLE = ["经理", "主管", "总监", "负责人", "专员", "主任", "Manager", "Director", "Officer", "Lead"]


def starter() -> Ontology:
    return Ontology(
        entity_types=[
            EntityType(
                key="person",
                name_zh="人员",
                name_en="Person",
                suffixes=_ROLE,
                description="A person or a role held by a person.",
            ),
            EntityType(
                key="organization",
                name_zh="组织/部门",
                name_en="Organisation / department",
                suffixes=_ORG,
                description="A company, department, committee or team.",
            ),
            EntityType(
                key="product",
                name_zh="产品",
                name_en="Product",
                description="A product or product line.",
            ),
            EntityType(
                key="system",
                name_zh="系统",
                name_en="System",
                suffixes=_SYSTEM,
                description="A software system, platform or service.",
            ),
            EntityType(
                key="policy",
                name_zh="文件/制度",
                name_en="Document / policy",
                suffixes=_POLICY,
                description="A rule, policy, procedure or manual.",
            ),
            EntityType(
                key="location",
                name_zh="地点",
                name_en="Location",
                suffixes=["市", "省", "园区", "大楼", "办公区", "City", "Campus"],
                description="A place.",
            ),
            EntityType(
                key="term",
                name_zh="术语",
                name_en="Term",
                description="A defined term or abbreviation.",
            ),
        ],
        relation_types=[
            RelationType(
                key="approves",
                name_zh="审批",
                name_en="approves",
                head_types=["person", "organization"],
                tail_types=["policy", "term", "product", "system"],
                patterns=[
                    "{tail}由{head}审批",
                    "{tail}须经{head}审批",
                    "{tail}需经{head}审批",
                    "{head}负责审批{tail}",
                    "{head}审批{tail}",
                    "{tail} is approved by {head}",
                    "{head} approves {tail}",
                ],
            ),
            RelationType(
                key="owns",
                name_zh="负责",
                name_en="owns",
                head_types=["person", "organization"],
                tail_types=["policy", "system", "product", "term"],
                patterns=[
                    "{tail}由{head}负责",
                    "{head}负责{tail}",
                    "{tail} is owned by {head}",
                    "{head} owns {tail}",
                    "{head} is responsible for {tail}",
                ],
            ),
            RelationType(
                key="belongs_to",
                name_zh="隶属",
                name_en="belongs to",
                head_types=["person", "organization"],
                tail_types=["organization"],
                patterns=[
                    "{head}隶属于{tail}",
                    "{head}属于{tail}",
                    "{head} belongs to {tail}",
                    "{head} reports to {tail}",
                ],
            ),
            RelationType(
                key="depends_on",
                name_zh="依赖",
                name_en="depends on",
                head_types=["system", "product"],
                tail_types=["system", "product"],
                patterns=[
                    "{head}依赖{tail}",
                    "{head}依赖于{tail}",
                    "{head} depends on {tail}",
                    "{head} requires {tail}",
                ],
            ),
            RelationType(
                key="part_of",
                name_zh="组成部分",
                name_en="part of",
                head_types=["system", "product", "organization", "term"],
                tail_types=["system", "product", "organization"],
                patterns=[
                    "{head}是{tail}的一部分",
                    "{head}是{tail}的组成部分",
                    "{head} is part of {tail}",
                ],
            ),
            RelationType(
                key="located_in",
                name_zh="位于",
                name_en="located in",
                head_types=["organization", "system", "person"],
                tail_types=["location"],
                patterns=["{head}位于{tail}", "{head}设在{tail}", "{head} is located in {tail}"],
            ),
            RelationType(
                key="defined_in",
                name_zh="定义于",
                name_en="defined in",
                head_types=["term"],
                tail_types=["policy"],
                patterns=["{head}见{tail}", "{head}依据{tail}", "{head} is defined in {tail}"],
            ),
        ],
    )
