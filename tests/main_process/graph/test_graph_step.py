"""The step from the best result: a question naming no entity of the graph, answered in two
steps (the rule the search finds first names a post; the graph says who holds it). The passage
stating the second step, ranked just below the rule, comes first and reads as likely relevant,
with the relation it states as its reason. Real SQLite through the dispatcher; the graph is a
person's (manual edits), so the test does not depend on what local extraction finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.methods import (
    RERANK_UPDATE,
    RETRIEVE,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call
from tests.main_process.graph.helpers import HandMadeGraph, ask
from tests.servers.httpserver import Reply, serve

NOTES = {
    # the first step: the rule names the post that approves, not the person
    "expense.md": "# 差旅报销规定\n\n差旅报销单笔超过5000元的，部门负责人审批后，还须报财务总监审批。"
    "差旅报销须在出差结束后30天内提交。\n",
    # the second step: who holds the post; it shares few words with the question
    "finance.md": "# 财务部介绍\n\n财务部位于A栋5楼。财务总监由邵雨桐担任，分管预算与费用审核。\n",
    "canteen.md": "# 食堂\n\n食堂每天11:30开放午餐，员工刷工卡就餐。\n",
    "travel.md": "# Travel\n\nTravel bookings go through the travel desk two weeks ahead.\n",
}

QUESTION = "我有一笔8000元的差旅报销，部门负责人批完还要哪位领导审批？"


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    graph = HandMadeGraph(dispatcher, services, tmp_path / "notes", NOTES)
    post, person = graph.entity("role", "财务总监"), graph.entity("person", "邵雨桐")
    graph.relation("led_by", post, person)
    return graph.library_id


def test_the_passage_one_step_from_the_best_result_answers_first(
    dispatcher: Dispatcher, kb: str
) -> None:
    res = ask(dispatcher, kb, QUESTION)
    assert res["diagnostics"]["graphEntities"] == [], "the question names no entity"
    first, second = res["results"][:2]
    assert "邵雨桐" in first["snippet"], res["results"]
    assert first["graphReasons"][0] == "财务总监 —led_by→ 邵雨桐"
    # the diagnostics say what the graph did, beside "no entity in the question"
    assert res["diagnostics"]["graphStep"] == "财务总监 —led_by→ 邵雨桐"
    assert first["relevance"] >= 0.8  # evidence above any floor a person would set
    assert "财务总监审批" in second["snippet"], "the rule stays, right below"
    relevance = [r["relevance"] for r in res["results"]]
    assert relevance == sorted(relevance, reverse=True)


def test_no_step_without_a_question_for_an_entity_type(dispatcher: Dispatcher, kb: str) -> None:
    # "how long" asks for no type of the graph: the rule stays first, nothing is lifted
    res = ask(dispatcher, kb, "差旅报销须在出差结束后多久内提交？")
    assert "30天内提交" in res["results"][0]["snippet"]
    assert all("—led_by→" not in " ".join(r["graphReasons"]) for r in res["results"])
    assert res["diagnostics"]["graphStep"] is None


def test_a_learned_rerank_orders_alone_and_no_step_is_claimed(
    dispatcher: Dispatcher, kb: str
) -> None:
    """The rerank service's score is the relevance: the step lifts nothing there, and neither
    the result nor the diagnostics say it did."""

    def scores(_path: str, body: bytes) -> Reply:
        docs = json.loads(body)["documents"]
        results = [
            {
                "index": i,
                "relevance_score": 0.9 if "财务总监审批" in d else 0.5 if "邵雨桐" in d else 0.1,
            }
            for i, d in enumerate(docs)
        ]
        return Reply(200, json.dumps({"results": results}).encode(), "application/json")

    with serve({"/v1/rerank": scores}) as base:
        call(dispatcher, RERANK_UPDATE.name, {"connection": {"baseUrl": base, "model": "rr"}})
        res = call(
            dispatcher,
            RETRIEVE.name,
            {"libraryIds": [kb], "query": QUESTION, "rerank": "learned"},
        )
    assert res["diagnostics"]["rerank"]["applied"] == "learned"
    assert "财务总监审批" in res["results"][0]["snippet"]
    assert "邵雨桐" in res["results"][1]["snippet"] and res["results"][1]["relevance"] == 0.5
    assert res["diagnostics"]["graphStep"] is None
    assert all("—led_by→" not in " ".join(r["graphReasons"]) for r in res["results"])
