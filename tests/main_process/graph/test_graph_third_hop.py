"""A place asked of a bridge with no place of its own: the bridge is where the organisation it
leads or belongs to is ("Where does Helen Marsh's boss sit?": Helen Marsh —reports_to→ Jason He
←led_by— International Business Department —located_in→ 7th floor, company-graph-dev q25). The
question's interrogative says what it asks last; an answer on the path to a deeper one is the
step to it. Real SQLite through the dispatcher; the graph is a person's (manual edits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.contracts.settings import DEFAULT_MINIMUM_RELEVANCE
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph.hop import asked_types, final_types, passed_types
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.services import Services
from tests.main_process.graph.helpers import HandMadeGraph
from tests.main_process.graph.test_graph_hop import ask

NOTES = {
    "uk.md": "# UK subsidiary\n\nHelen Marsh runs the UK office. Helen Marsh reports to"
    " Jason He.\n",
    "intl.md": "# International Business Department\n\nThe International Business Department is"
    " headed by Jason He. The department sits on the 7th floor of Building A.\n",
    # the team is one row of a long table: the text alone says little of the question
    "owners.md": "# 系统归属\n\n| 系统 | 维护团队 | 开放时间 |\n|---|---|---|\n"
    + "".join(f"| 业务系统{n} | 运维{n}组 | 工作日 |\n" for n in range(1, 30))
    + "| 报账平台 | 应用开发组 | 工作日 |\n",
    "apps.md": "# 应用开发组\n\n应用开发组隶属信息技术部。\n",
    "it.md": "# 信息技术部\n\n信息技术部在B栋3楼办公，部门负责人谭一鸣。\n",
    "northstar.md": "# Project Northstar\n\nProject Northstar is led by David Okafor. The"
    " technical build is done by the HQ Application Development team.\n",
    "hq-apps.md": "# HQ Application Development team\n\nThe HQ Application Development team"
    " is led by Miao Ruolin.\n",
}
PLACE_PATH = (
    "Helen Marsh —reports_to→ Jason He ←led_by— International Business Department"
    " —located_in→ 7th floor of Building A"
)
CHAIN_PATH = "报账平台 ←owns— 应用开发组 —part_of→ 信息技术部 —located_in→ B栋3楼"
TEAM = "HQ Application Development team"


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    graph = HandMadeGraph(dispatcher, services, tmp_path / "notes", NOTES)
    entity, relation = graph.entity, graph.relation
    helen, jason = entity("person", "Helen Marsh"), entity("person", "Jason He")
    intl = entity("organization", "International Business Department")
    relation("reports_to", helen, jason)
    relation("led_by", intl, jason)
    relation("located_in", intl, entity("location", "7th floor of Building A"))
    platform, apps = entity("system", "报账平台"), entity("organization", "应用开发组")
    it, tan = entity("organization", "信息技术部"), entity("person", "谭一鸣")
    relation("owns", apps, platform)
    relation("part_of", apps, it)
    relation("located_in", it, entity("location", "B栋3楼"))
    relation("led_by", it, tan)
    northstar, apps_en = entity("project", "Project Northstar"), entity("organization", TEAM)
    relation("led_by", northstar, entity("person", "David Okafor"))
    relation("owns", apps_en, northstar)
    relation("led_by", apps_en, entity("person", "Miao Ruolin"))
    return graph.library_id


@pytest.mark.parametrize(
    ("query", "final"),
    [
        # the interrogative asks for the place; the boss is the step to it
        ("Where does Helen Marsh's boss sit?", {"location"}),
        ("国际业务部领导在哪里办公", {"location"}),
        # a "who" after a noun opens a relative clause and asks nothing
        (
            "If I take leave, where is the person who signs it off based?",
            {"location"},
        ),
        # two interrogatives: both asked
        ("报账平台归哪个部门管？部门经理是谁？", {"organization", "person"}),
        ("Who is the boss, and where does she sit?", {"person", "location"}),
        # no interrogative of a kind: everything asked
        ("What is the Travel Desk's phone extension?", {"person"}),
    ],
)
def test_the_interrogative_says_what_is_asked_last(query: str, final: set[str]) -> None:
    assert final_types(starter(), query) == final
    assert final <= asked_types(starter(), query)


def test_a_place_asked_of_a_person_is_where_the_unit_they_lead_is(
    dispatcher: Dispatcher, kb: str
) -> None:
    # before: the path stopped at the boss (a person: what "boss" names, not what is asked)
    # and the department's page, which holds the floor, ranked fourth on company-graph-dev
    res = ask(dispatcher, kb, "Where does Helen Marsh's boss sit?")
    top = res["results"][0]
    assert "7th floor" in top["snippet"] and top["graphReasons"][0] == PLACE_PATH
    assert PLACE_PATH in res["diagnostics"]["graphPaths"]
    (step,) = [r for r in res["results"] if "reports to" in r["snippet"]]
    assert step["relevance"] <= top["relevance"]


def test_a_chained_question_ranks_what_it_asks_last_first(dispatcher: Dispatcher, kb: str) -> None:
    res = ask(dispatcher, kb, "报账平台归哪个组管？这个组所在的部门在哪栋楼办公？")
    top = res["results"][0]
    assert "B栋3楼" in top["snippet"] and top["graphReasons"][0] == CHAIN_PATH
    # the team answers the first question, on the way to the second: listed below it, and
    # evidence all the same (at 0.03 the chat was given the building without the team)
    (team,) = [r for r in res["results"] if r["documentPath"] == "owners.md"]
    assert DEFAULT_MINIMUM_RELEVANCE <= team["relevance"] <= top["relevance"]


def test_a_person_is_not_inherited_from_the_unit(dispatcher: Dispatcher, kb: str) -> None:
    # the owning team names no head: its department's head is somebody else's boss, not the
    # contact asked for (company-graph-dev q31 took 谭一鸣 this way)
    res = ask(dispatcher, kb, "报账平台出了问题找谁？")
    assert not [p for p in res["diagnostics"]["graphPaths"] if "谭一鸣" in p]


@pytest.mark.parametrize(
    ("query", "names", "passed"),
    [
        (
            "Who leads the HQ team doing the build for Project Northstar?",
            ["Project Northstar"],
            True,
        ),
        ("审批委员会的主任是谁？", [], True),
        # the kind word right after a name is that name's ("the Coventry office")
        ("Who's the fire warden in the Coventry office?", ["fire warden", "Coventry"], False),
        # or inside it
        ("Where does the Finance Department sit?", ["Finance Department"], False),
        # a one-character suffix (组, 部) says too little on its own
        ("那个组的组长是谁？", [], False),
    ],
)
def test_a_kind_word_standing_alone_names_a_step(
    query: str, names: list[str], passed: bool
) -> None:
    spans = [(query.index(n), query.index(n) + len(n)) for n in names]
    assert bool(passed_types(starter(), query, spans)) is passed


def test_the_head_of_a_unit_the_question_names_is_found_past_it(
    dispatcher: Dispatcher, kb: str
) -> None:
    # before: the project's own lead answered at once, ranked first at 0.96 (company-graph-dev
    # q30), though the question asks who leads the team that builds it
    res = ask(
        dispatcher, kb, "Who leads the HQ team doing the technical build for Project Northstar?"
    )
    top = res["results"][0]
    assert "Miao Ruolin" in top["snippet"]
    assert top["graphReasons"][0] == f"Project Northstar ←owns— {TEAM} —led_by→ Miao Ruolin"
    # a question naming no unit is answered by the project's own relation
    res = ask(dispatcher, kb, "Who leads Project Northstar?")
    assert "David Okafor" in res["results"][0]["snippet"]
    assert res["results"][0]["graphReasons"][0] == "Project Northstar —led_by→ David Okafor"
