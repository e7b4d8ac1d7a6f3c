"""A person's graph edits through the dispatcher with a real database: locks hold against
re-extraction and re-syncs, deletions stay deleted, every edit is checked against the ontology,
and ids of another library read as not found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY,
    GRAPH_ENTITY_CREATE,
    GRAPH_ENTITY_DELETE,
    GRAPH_ENTITY_MERGE,
    GRAPH_ENTITY_UPDATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_NEIGHBOURHOOD,
    GRAPH_RELATION_CREATE,
    GRAPH_RELATION_DELETE,
    GRAPH_RELATION_UPDATE,
    GRAPH_RELATIONS,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    SOURCE_SYNC,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call, fail
from tests.main_process.graph.helpers import assert_consistent, turn_on


def extract(d: Dispatcher, services: Services, library_id: str) -> None:
    call(d, GRAPH_EXTRACT.name, {"libraryId": library_id})
    services.tasks.wait_idle()


def entities(d: Dispatcher, library_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = call(
        d, GRAPH_ENTITIES.name, {"libraryId": library_id, "limit": 500}
    )["entities"]
    return found


def named(d: Dispatcher, library_id: str, name: str) -> list[dict[str, Any]]:
    return [e for e in entities(d, library_id) if e["name"] == name or name in e["aliases"]]


def relations(d: Dispatcher, library_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = call(
        d, GRAPH_RELATIONS.name, {"libraryId": library_id, "limit": 500}
    )["relations"]
    return found


def test_a_rename_is_locked_and_survives_re_extraction_and_a_resync(
    dispatcher: Dispatcher, services: Services, kb: str, tmp_path: Path
) -> None:
    turn_on(dispatcher, services, kb)
    (finance,) = named(dispatcher, kb, "财务部")
    detail = call(
        dispatcher,
        GRAPH_ENTITY_UPDATE.name,
        {"libraryId": kb, "entityId": finance["id"], "name": "财务管理部"},
    )
    assert detail["entity"]["name"] == "财务管理部"
    assert detail["entity"]["lockedFields"] == ["name"]
    assert "财务部" in detail["entity"]["aliases"], "the old name keeps matching as an alias"
    extract(dispatcher, services, kb)
    again = named(dispatcher, kb, "财务部")
    assert [e["id"] for e in again] == [finance["id"]], "no second 财务部 was extracted"
    assert again[0]["name"] == "财务管理部" and again[0]["lockedFields"] == ["name"]
    assert again[0]["mentions"] >= 2
    assert any(
        r["headName"] == "财务管理部" and r["typeKey"] == "approves"
        for r in relations(dispatcher, kb)
    )
    # the source file changes and is re-synced: the lock still holds
    (tmp_path / "kb" / "finance.md").write_text(
        "# 部门\n\n财务部隶属于行政中心。\n", encoding="utf-8"
    )
    call(dispatcher, SOURCE_SYNC.name, {"libraryId": kb})
    services.tasks.wait_idle()
    (kept,) = named(dispatcher, kb, "财务部")
    assert kept["name"] == "财务管理部"
    assert_consistent(services.db.get())


def test_a_wrong_name_dropped_without_alias_is_never_extracted_again(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    (finance,) = named(dispatcher, kb, "财务部")
    call(
        dispatcher,
        GRAPH_ENTITY_UPDATE.name,
        {"libraryId": kb, "entityId": finance["id"], "name": "财务处", "keepOldName": False},
    )
    extract(dispatcher, services, kb)
    assert named(dispatcher, kb, "财务部") == []
    assert [e["id"] for e in named(dispatcher, kb, "财务处")] == [finance["id"]]


def test_deleted_entities_and_relations_stay_deleted(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    (policy,) = named(dispatcher, kb, "差旅报销制度")
    gone = call(dispatcher, GRAPH_ENTITY_DELETE.name, {"libraryId": kb, "entityId": policy["id"]})
    assert gone["name"] == "差旅报销制度" and gone["relationsRemoved"] >= 1
    belongs = next(r for r in relations(dispatcher, kb) if r["typeKey"] == "belongs_to")
    call(dispatcher, GRAPH_RELATION_DELETE.name, {"libraryId": kb, "relationId": belongs["id"]})
    extract(dispatcher, services, kb)
    assert named(dispatcher, kb, "差旅报销制度") == []
    assert not any(
        r["typeKey"] == "belongs_to" and r["headId"] == belongs["headId"]
        for r in relations(dispatcher, kb)
    )
    # a person may bring a deleted name back themselves
    created = call(
        dispatcher,
        GRAPH_ENTITY_CREATE.name,
        {"libraryId": kb, "typeKey": "policy", "name": "差旅报销制度"},
    )
    assert created["entity"]["createdBy"] == "manual" and created["evidence"]
    assert all(v["extractor"] == "manual" for v in created["evidence"])
    assert all(v["text"] == "差旅报销制度" for v in created["evidence"])
    assert_consistent(services.db.get())


def test_manual_entities_and_relations_survive_re_extraction(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    person = call(
        dispatcher,
        GRAPH_ENTITY_CREATE.name,
        {"libraryId": kb, "typeKey": "person", "name": "张敏", "aliases": ["Zhang Min"]},
    )["entity"]
    assert person["lockedFields"] == ["aliases", "name", "type"]
    (office,) = named(dispatcher, kb, "总经理办公室")
    rel = call(
        dispatcher,
        GRAPH_RELATION_CREATE.name,
        {"libraryId": kb, "typeKey": "belongs_to", "headId": person["id"], "tailId": office["id"]},
    )
    assert rel["locked"] and rel["extractor"] == "manual" and rel["confidence"] == 1.0
    # an extracted relation retyped by a person keeps its evidence as the person's
    (approval,) = [
        r
        for r in relations(dispatcher, kb)
        if r["typeKey"] == "approves" and r["headName"] == "财务部"
    ]
    retyped = call(
        dispatcher,
        GRAPH_RELATION_UPDATE.name,
        {"libraryId": kb, "relationId": approval["id"], "typeKey": "owns"},
    )
    assert retyped["typeKey"] == "owns" and retyped["locked"]
    for _ in range(2):
        extract(dispatcher, services, kb)
    by_id = {r["id"]: r for r in relations(dispatcher, kb)}
    assert by_id[rel["id"]]["typeKey"] == "belongs_to"
    assert by_id[approval["id"]]["typeKey"] == "owns"
    assert not any(
        r["typeKey"] == "approves"
        and r["headId"] == approval["headId"]
        and r["tailId"] == approval["tailId"]
        for r in by_id.values()
    ), "the old type is not extracted again"
    conn = services.db.get()
    kept = conn.execute(
        "SELECT extractor, count(*) FROM graph_evidence WHERE relation_id = ? GROUP BY extractor",
        (approval["id"],),
    ).fetchall()
    assert [tuple(r) for r in kept] == [("manual", 1)]
    assert named(dispatcher, kb, "Zhang Min")[0]["id"] == person["id"]
    assert_consistent(conn)


def test_every_edit_is_checked_against_the_ontology(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    (finance,) = named(dispatcher, kb, "财务部")
    (policy,) = named(dispatcher, kb, "差旅报销制度")
    refused = fail(
        dispatcher,
        GRAPH_RELATION_CREATE.name,
        {"libraryId": kb, "typeKey": "approves", "headId": policy["id"], "tailId": finance["id"]},
    )
    assert refused["code"] == "invalid_request"
    assert refused["message_code"] == "graph.incompatible_endpoints"
    assert refused["message_params"] == {
        "relation": "approves",
        "head": "policy",
        "tail": "organization",
    }
    unknown = fail(
        dispatcher,
        GRAPH_ENTITY_CREATE.name,
        {"libraryId": kb, "typeKey": "spaceship", "name": "Enterprise"},
    )
    assert unknown["message_code"] == "graph.unknown_entity_type"
    assert (
        fail(
            dispatcher,
            GRAPH_RELATION_CREATE.name,
            {"libraryId": kb, "typeKey": "likes", "headId": finance["id"], "tailId": policy["id"]},
        )["message_code"]
        == "graph.unknown_relation_type"
    )
    # retyping the policy to a location would break its "approves" relation
    broken = fail(
        dispatcher,
        GRAPH_ENTITY_UPDATE.name,
        {"libraryId": kb, "entityId": policy["id"], "typeKey": "location"},
    )
    assert broken["message_code"] == "graph.retype_breaks_relations"
    assert (
        fail(
            dispatcher,
            GRAPH_ENTITY_MERGE.name,
            {"libraryId": kb, "entityId": finance["id"], "mergedIds": [policy["id"]]},
        )["message_code"]
        == "graph.merge_across_types"
    )
    assert (
        fail(
            dispatcher,
            GRAPH_ENTITY_UPDATE.name,
            {"libraryId": kb, "entityId": finance["id"], "name": "行政中心"},
        )["message_code"]
        == "graph.name_taken"
    )
    # an ontology change may not strand what a person made
    person = call(
        dispatcher, GRAPH_ENTITY_CREATE.name, {"libraryId": kb, "typeKey": "person", "name": "李雷"}
    )["entity"]
    call(
        dispatcher,
        GRAPH_RELATION_CREATE.name,
        {"libraryId": kb, "typeKey": "approves", "headId": person["id"], "tailId": policy["id"]},
    )
    ontology = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["ontology"]
    approves = next(r for r in ontology["relationTypes"] if r["key"] == "approves")
    approves["headTypes"] = ["organization"]
    stranded = fail(dispatcher, GRAPH_UPDATE.name, {"libraryId": kb, "ontology": ontology})
    assert stranded["message_code"] == "graph.ontology_breaks_relations"
    ontology["entityTypes"] = [t for t in ontology["entityTypes"] if t["key"] != "person"]
    approves["headTypes"] = ["organization"]
    for r in ontology["relationTypes"]:
        r["headTypes"] = [k for k in r["headTypes"] if k != "person"]
        r["tailTypes"] = [k for k in r["tailTypes"] if k != "person"]
    in_use = fail(dispatcher, GRAPH_UPDATE.name, {"libraryId": kb, "ontology": ontology})
    assert in_use["message_code"] == "graph.ontology_type_in_use"
    # nothing was changed by the refusals
    assert call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["ontology"] != ontology


def test_ids_of_another_library_read_as_not_found(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    (finance,) = named(dispatcher, kb, "财务部")
    other = call(dispatcher, LIBRARY_CREATE.name, {"name": "Other"})["library"]["id"]
    for method, params in (
        (GRAPH_ENTITY_UPDATE, {"entityId": finance["id"], "name": "X"}),
        (GRAPH_ENTITY_DELETE, {"entityId": finance["id"]}),
        (GRAPH_ENTITY, {"entityId": finance["id"]}),
        (GRAPH_NEIGHBOURHOOD, {"entityId": finance["id"]}),
        (GRAPH_RELATION_DELETE, {"relationId": relations(dispatcher, kb)[0]["id"]}),
    ):
        refused = fail(dispatcher, method.name, {"libraryId": other, **params})
        assert refused["code"] == "not_found", method.name
    assert named(dispatcher, kb, "财务部")[0]["name"] == "财务部"


def test_merge_moves_names_evidence_and_relations(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    (finance,) = named(dispatcher, kb, "财务部")
    (english,) = named(dispatcher, kb, "Finance Department")
    merged = call(
        dispatcher,
        GRAPH_ENTITY_MERGE.name,
        {"libraryId": kb, "entityId": finance["id"], "mergedIds": [english["id"]]},
    )
    assert "Finance Department" in merged["entity"]["aliases"]
    assert merged["entity"]["mentions"] == finance["mentions"] + english["mentions"]
    assert "aliases" in merged["entity"]["lockedFields"]
    extract(dispatcher, services, kb)
    assert [e["id"] for e in named(dispatcher, kb, "Finance Department")] == [finance["id"]]
    picture = call(
        dispatcher, GRAPH_NEIGHBOURHOOD.name, {"libraryId": kb, "entityId": finance["id"]}
    )
    ids = {n["id"] for n in picture["nodes"]}
    assert picture["nodes"][0]["id"] == finance["id"] and picture["nodes"][0]["hops"] == 0
    assert {e["headId"] for e in picture["edges"]} | {e["tailId"] for e in picture["edges"]} <= ids
    assert any(e["typeKey"] == "approves" for e in picture["edges"])
    assert not picture["truncated"]
    assert_consistent(services.db.get())
