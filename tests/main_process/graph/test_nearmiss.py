"""The near-miss index of the graph channel without a database: small variations of a name,
rarity weighting, descriptions, bounds."""

from __future__ import annotations

from goodbuddy_kb.main_process.graph.nearmiss import MAX_NEAR, NearMissIndex, tokens

ENTITIES = [
    ("fssc", "财务共享中心", ""),
    ("erp", "费用报销系统", ""),
    ("hr", "考勤系统", ""),
    ("auth", "统一认证平台", ""),
    ("pay", "Payments Team", "Runs the card acquiring and settlement services."),
    ("sec", "Security Office", ""),
    ("legal", "法务部", "负责合同审核与诉讼事务的部门"),
]


def test_tokens_are_bigrams_and_folded_words() -> None:
    assert tokens("财务共享中心") == ["财务", "务共", "共享", "享中", "中心"]
    assert tokens("The PAYMENTS team") == ["payment", "team"]


def test_small_variations_of_a_name_are_near_misses() -> None:
    index = NearMissIndex(ENTITIES)
    assert [n.entity_id for n in index.search("财务共享服务中心在哪里")] == ["fssc"]
    assert [n.entity_id for n in index.search("who is on the Payment Team")] == ["pay"]
    assert [n.entity_id for n in index.search("统一身份认证平台归谁管")] == ["auth"]


def test_words_of_a_path_in_the_question_name_no_entity() -> None:
    index = NearMissIndex([("orion", "Orion Gateway", "")])
    assert index.search("/etc/orion/gateway.yaml listen address") == []
    assert index.search("orion_gateway.yaml settings") == []
    assert [n.entity_id for n in index.search("the orion gateways")] == ["orion"]


def test_a_common_token_alone_names_nothing() -> None:
    index = NearMissIndex(ENTITIES)
    # 系统 is in two names: it explains neither
    assert index.search("这个系统怎么登录") == []
    assert index.search("security questions") == []
    assert [n.entity_id for n in index.search("财务共享服务中心", exclude=["fssc"])] == []


def test_descriptions_count_when_the_question_uses_their_words() -> None:
    index = NearMissIndex(ENTITIES)
    found = index.search("合同审核与诉讼找谁")
    assert [(n.entity_id, n.via) for n in found] == [("legal", "description")]
    assert index.search("settlement") == []


def test_results_are_bounded() -> None:
    index = NearMissIndex((f"e{i}", f"数据平台{i:03d}号", "") for i in range(200))
    assert len(index.search("数据平台的编号")) <= MAX_NEAR
