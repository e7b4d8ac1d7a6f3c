"""The graph through the dispatcher with a real database: extraction, the retrieval channel,
consistency with chunk edits, disables, deletes and re-syncs, and settings."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_RELATIONS,
    GRAPH_UPDATE,
    RETRIEVE,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph.channel import relation_cues
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage import chunks
from tests.dispatch import call, fail
from tests.main_process.graph.helpers import assert_consistent, turn_on


def test_graph_off_is_reported_and_changes_nothing(dispatcher: Dispatcher, kb: str) -> None:
    res = call(dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "差旅报销制度谁审批"})
    assert any(
        d["channel"] == "graph"
        and d["reason"] == "the knowledge graph is not enabled for this library"
        for d in res["diagnostics"]["degradedChannels"]
    )
    assert "graph" not in res["diagnostics"]["usedChannels"]


def test_local_extraction_builds_a_graph_and_the_channel_uses_it(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    info = turn_on(dispatcher, services, kb)
    assert info["entities"] >= 4 and info["relations"] >= 2 and not info["needsRebuild"]
    names = {
        e["name"]: e["typeKey"]
        for e in call(dispatcher, GRAPH_ENTITIES.name, {"libraryId": kb, "limit": 500})["entities"]
    }
    assert names["财务部"] == "organization" and names["差旅报销制度"] == "policy"
    assert names["Finance Department"] == "organization"
    relations = call(dispatcher, GRAPH_RELATIONS.name, {"libraryId": kb})["relations"]
    assert any(
        r["headName"] == "财务部" and r["typeKey"] == "approves" and r["tailName"] == "差旅报销制度"
        for r in relations
    )
    assert any(r["headName"] == "财务部" and r["typeKey"] == "belongs_to" for r in relations)
    # evidence offsets point at the mention in the chunk's content
    finance = next(
        e
        for e in call(dispatcher, GRAPH_ENTITIES.name, {"libraryId": kb, "search": "财务部"})[
            "entities"
        ]
        if e["name"] == "财务部"
    )
    detail = call(dispatcher, GRAPH_ENTITY.name, {"libraryId": kb, "entityId": finance["id"]})
    assert detail["evidence"] and all(v["text"] == "财务部" for v in detail["evidence"])
    res = call(dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "差旅报销制度谁审批"})
    d = res["diagnostics"]
    assert "graph" in d["usedChannels"] and d["candidateCounts"]["graph"] >= 1
    assert "差旅报销制度" in d["graphEntities"]
    top = res["results"][0]
    assert "graph" in top["channelRanks"] and "审批" in top["snippet"]
    assert any("approves" in reason for reason in top["graphReasons"])


def test_a_name_spelled_with_a_small_variation_is_found_as_a_near_miss(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    # 统一身份认证平台 is not the entity's name (统一认证平台): the alias match finds nothing,
    # the full text over names does, and the diagnostics say so
    res = call(
        dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "哪个系统依赖统一身份认证平台"}
    )
    d = res["diagnostics"]
    assert d["graphNearMisses"] == ["统一认证平台"] and "统一认证平台" in d["graphEntities"]
    graph_hits = [r for r in res["results"] if "graph" in r["channelRanks"]]
    assert graph_hits and "报销系统依赖统一认证平台" in graph_hits[0]["snippet"]
    assert any("统一认证平台" in reason for reason in graph_hits[0]["graphReasons"])
    # a plural in English
    res = call(
        dispatcher,
        RETRIEVE.name,
        {"libraryIds": [kb], "query": "what do the finance departments approve"},
    )
    assert res["diagnostics"]["graphNearMisses"] == ["Finance Department"]
    # a name the question spells exactly is no near miss
    res = call(dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "统一认证平台归谁"})
    assert res["diagnostics"]["graphNearMisses"] == []
    assert "统一认证平台" in res["diagnostics"]["graphEntities"]


def test_a_question_about_a_neighbours_relation_ranks_that_relations_evidence_first(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    # 差旅报销制度 -approved by-> 财务部 -belongs to-> 行政中心: "隶属于哪个中心" asks for the
    # second relation, whose evidence never names 差旅报销制度
    res = call(
        dispatcher,
        RETRIEVE.name,
        {
            "libraryIds": [kb],
            "query": "差旅报销制度的审批部门隶属于哪个中心",
            "channels": ["graph"],
        },
    )
    top = res["results"][0]
    assert "财务部隶属于行政中心" in top["snippet"]
    # the reason names the path from the question's entity
    assert "差旅报销制度 ←approves— 财务部 —belongs_to→ 行政中心" in top["graphReasons"]
    # without the cue, the plain relation of the named entity comes first
    res = call(
        dispatcher,
        RETRIEVE.name,
        {"libraryIds": [kb], "query": "差旅报销制度", "channels": ["graph"]},
    )
    assert "差旅报销制度由财务部审批" in res["results"][0]["snippet"]


def test_relation_types_are_cued_by_their_words_and_question_words() -> None:
    cues = relation_cues(starter())
    assert {"位于", "在哪", "几楼", "where", "located"} <= cues["located_in"]
    assert {"隶属于", "哪个中心", "reports to"} <= cues["belongs_to"]
    assert "must" not in cues["approves"] and "is" not in cues["located_in"]


def test_edits_disables_and_resyncs_keep_evidence_consistent(
    dispatcher: Dispatcher, services: Services, kb: str, tmp_path: Path
) -> None:
    turn_on(dispatcher, services, kb)
    conn = services.db.get()
    row = conn.execute(
        "SELECT c.id, c.seq FROM chunks c JOIN graph_evidence v ON v.chunk_seq = c.seq LIMIT 1"
    ).fetchone()
    chunks.edit_content(conn, row[0], "改写后的内容", "改写后的内容", "x" * 64)
    assert (
        conn.execute(
            "SELECT count(*) FROM graph_evidence WHERE chunk_seq = ?", (row[1],)
        ).fetchone()[0]
        == 0
    )
    other = conn.execute(
        "SELECT c.id, c.seq FROM chunks c JOIN graph_evidence v ON v.chunk_seq = c.seq LIMIT 1"
    ).fetchone()
    chunks.set_enabled(conn, other[0], False)
    assert (
        conn.execute(
            "SELECT count(*) FROM graph_evidence WHERE chunk_seq = ?", (other[1],)
        ).fetchone()[0]
        == 0
    )
    # the file changes and is re-synced: the graph is re-extracted from the new text
    (tmp_path / "kb" / "finance.md").write_text(
        "# 部门\n\n人事部隶属于行政中心。\n", encoding="utf-8"
    )
    from goodbuddy_kb.contracts.methods import SOURCE_SYNC

    call(dispatcher, SOURCE_SYNC.name, {"libraryId": kb})
    services.tasks.wait_idle()
    names = {
        e["name"]
        for e in call(dispatcher, GRAPH_ENTITIES.name, {"libraryId": kb, "limit": 500})["entities"]
    }
    assert "人事部" in names and "Finance Department" not in names
    assert_consistent(conn)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["edit", "disable", "enable", "delete", "extract"]), st.integers(0, 50)
        ),
        max_size=12,
    )
)
def test_random_maintenance_never_leaves_stale_evidence(
    dispatcher: Dispatcher, services: Services, kb: str, ops: list[tuple[str, int]]
) -> None:
    conn = services.db.get()
    if call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["settings"]["strategy"] == "off":
        turn_on(dispatcher, services, kb)
    for op, n in ops:
        rows = conn.execute(
            "SELECT id, enabled FROM chunks WHERE role != 'parent' ORDER BY seq"
        ).fetchall()
        if not rows:
            break
        chunk_id = rows[n % len(rows)][0]
        if op == "edit":
            text = f"财务部审批第{n}条"
            chunks.edit_content(
                conn, chunk_id, text, text, hashlib.sha256(text.encode()).hexdigest()
            )
        elif op in ("disable", "enable"):
            chunks.set_enabled(conn, chunk_id, op == "enable")
        elif op == "delete":
            conn.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))
        else:
            call(dispatcher, GRAPH_EXTRACT.name, {"libraryId": kb})
            services.tasks.wait_idle()
        assert_consistent(conn)


def test_invalid_ontology_and_unknown_library_are_refused(dispatcher: Dispatcher, kb: str) -> None:
    info = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})
    ontology = info["ontology"]
    ontology["relationTypes"][0]["headTypes"] = ["spaceship"]
    refused = fail(dispatcher, GRAPH_UPDATE.name, {"libraryId": kb, "ontology": ontology})
    assert refused["code"] == "invalid_request" and "spaceship" in refused["message"]
    assert fail(dispatcher, GRAPH_GET.name, {"libraryId": "0" * 32})["code"] == "not_found"
    unchanged = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})
    assert unchanged["ontology"]["relationTypes"][0]["headTypes"] != ["spaceship"]


def test_a_chunk_a_graph_path_answered_is_evidence_however_little_text_it_shares(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    turn_on(dispatcher, services, kb)
    # 财务部隶属于行政中心 shares almost no words with the question: the text alone calls it
    # irrelevant, the path 差旅报销制度 ←approves— 财务部 —belongs_to→ 行政中心 says otherwise
    res = call(
        dispatcher,
        RETRIEVE.name,
        {"libraryIds": [kb], "query": "差旅报销制度的审批部门隶属于哪个中心"},
    )
    shown = [*res["results"], *res["belowFloor"]]
    answer = next(r for r in shown if "财务部隶属于行政中心" in r["snippet"])
    # evidence (above the floor), and likely relevant: about two in three such chunks are
    assert answer in res["results"] and answer["relevance"] >= 0.5, answer
    relevance = [r["relevance"] for r in res["results"]]
    assert relevance == sorted(relevance, reverse=True)  # still never rising down the list
