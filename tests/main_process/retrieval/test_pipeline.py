"""`knowledge:retrieve` and the reference methods through the dispatcher, with real data."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.contracts import messages
from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    REFERENCE_CONTEXT,
    REFERENCE_OPEN,
    RERANK_UPDATE,
    RETRIEVE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_LIST,
    SOURCE_REMOVE,
    SOURCE_SYNC,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import ask, call, fail
from tests.main_process.graph.helpers import folder_library, turn_off
from tests.servers.embedserver import Script, openai_server
from tests.servers.httpserver import Reply, serve

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "chunking"


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name in ("policy_zh.md", "manual_en.md", "security_guide.pdf"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    library_id = folder_library(dispatcher, folder)
    services.tasks.wait_idle()
    return library_id


def test_hybrid_retrieval_explains_itself(dispatcher: Dispatcher, kb: str) -> None:
    res = ask(dispatcher, kb, "出差住宿一线城市每晚最多报多少钱", rerank="local")
    d = res["diagnostics"]
    assert d["requestedChannels"] == ["fts", "cjk", "vector", "graph"]
    assert d["usedChannels"] == ["fts", "cjk", "vector"]
    assert [{k: x[k] for k in ("channel", "reason")} for x in d["degradedChannels"]] == [
        {"channel": "graph", "reason": "the knowledge graph is not enabled for this library"}
    ]
    # The same reason travels as a catalogue code for the GUI to translate.
    assert d["degradedChannels"][0]["reasonCode"] == "graph.off"
    assert d["vectorScanned"] > 0 and set(d["timingsMs"]) >= {
        "fts",
        "cjk",
        "vector",
        "rerank",
        "context",
    }
    top = res["results"][0]
    assert "六百元" in top["snippet"] and top["documentPath"] == "policy_zh.md"
    assert top["channelRanks"]["cjk"] == 1 and top["vectorSimilarity"] is not None
    assert 0 <= top["relevance"] <= 1 and top["preRerankRank"] >= 1
    assert len(res["results"]) <= res["settings"]["topK"] == 6
    assert res["context"]["characterCount"] <= res["context"]["budget"] == 16000
    assert res["zeroResult"] is None
    assert (
        ask(dispatcher, kb, "出差住宿一线城市每晚最多报多少钱", rerank="local")["results"]
        == res["results"]
    )


def test_off_keeps_rrf_order(dispatcher: Dispatcher, kb: str) -> None:
    res = ask(dispatcher, kb, "年假 天数 结转")
    assert [r["preRerankRank"] for r in res["results"]] == list(range(1, len(res["results"]) + 1))
    assert res["diagnostics"]["rerank"]["applied"] == "off"


def test_overrides_apply_once_and_are_validated(dispatcher: Dispatcher, kb: str) -> None:
    res = ask(dispatcher, kb, "报销", overrides={"topK": 2, "adjacentChunkCount": 2})
    assert len(res["results"]) <= 2 and res["settings"]["topK"] == 2
    assert call(dispatcher, SETTINGS_GET.name, {"libraryId": kb})["retrieval"]["topK"] == 6
    bad = fail(
        dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "x", "overrides": {"topK": 0}}
    )
    assert (
        bad["code"] == "invalid_request"
        and bad["details"]["fields"][0]["field"] == "overrides.topK"
    )
    assert (
        fail(dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "x" * 4001})["code"]
        == "invalid_request"
    )
    assert (
        fail(dispatcher, RETRIEVE.name, {"libraryIds": [kb] * 21, "query": "x"})["code"]
        == "invalid_request"
    )
    assert (
        fail(dispatcher, RETRIEVE.name, {"libraryIds": ["0" * 32], "query": "x"})["code"]
        == "not_found"
    )


def test_zero_results_are_explained(dispatcher: Dispatcher, kb: str) -> None:
    empty = call(dispatcher, LIBRARY_CREATE.name, {"name": "Empty"})["library"]["id"]
    turn_off(dispatcher, empty)
    alone = ask(dispatcher, empty, "年假")
    assert alone["zeroResult"]["reason"] == "empty_library"
    # An empty library has no vector index to wait for: searched beside another, it does not
    # mark every answer "degraded: vectorisation has not finished".
    both = call(dispatcher, RETRIEVE.name, {"libraryIds": [kb, empty], "query": "年假"})
    assert both["results"]
    reasons = [d["reason"] for d in both["diagnostics"]["degradedChannels"]]
    assert not any("has not finished" in r for r in reasons), reasons
    nothing = ask(dispatcher, kb, "量子色动力学", channels=["fts", "cjk"])
    assert nothing["zeroResult"]["reason"] == "no_match" and nothing["zeroResult"]["nextStep"]
    filtered = ask(
        dispatcher, kb, "年假", overrides={"ftsWeight": 0, "minimumVectorSimilarity": 1.0}
    )
    assert filtered["zeroResult"]["reason"] == "filtered"
    assert filtered["diagnostics"]["filteredBySimilarity"] > 0
    call(dispatcher, EMBEDDING_UPDATE.name, {"connection": {"kind": "none"}})
    unavailable = ask(dispatcher, kb, "年假", overrides={"ftsWeight": 0})
    assert unavailable["zeroResult"]["reason"] == "index_unavailable"
    assert "no embedding model" in unavailable["zeroResult"]["message"]


def test_nothing_relevant_enough_is_its_own_zero_result(dispatcher: Dispatcher, kb: str) -> None:
    found = ask(dispatcher, kb, "年假", overrides={"minimumRelevance": 0.0})
    best = found["diagnostics"]["bestRelevance"]
    assert found["results"] and best == max(r["relevance"] for r in found["results"])
    assert set(found["diagnostics"]["channelConfidence"]) <= {"fts", "cjk", "vector"}
    floor = round(min(1.0, best + 0.01), 2)
    withheld = ask(dispatcher, kb, "年假", overrides={"minimumRelevance": floor})
    zero = withheld["zeroResult"]
    assert withheld["results"] == [] and withheld["context"]["groups"] == []
    assert zero["reason"] == "nothing_relevant"
    assert zero["bestRelevance"] == round(best, 4) and zero["minimumRelevance"] == floor
    assert f"{floor:g}" in zero["message"] and zero["nextStep"]
    assert withheld["diagnostics"]["belowMinimumRelevance"] == len(found["results"])
    # listed apart, greyed in the workbench, never evidence
    assert [r["chunkId"] for r in withheld["belowFloor"]] == [
        r["chunkId"] for r in found["results"]
    ]
    assert all(r["belowFloor"] for r in withheld["belowFloor"])
    # the relevance never rises down the list, so the floor cuts it where it falls under it
    relevances = [r["relevance"] for r in found["results"]]
    assert relevances == sorted(relevances, reverse=True)
    cut = round(best - 0.001, 3)
    shown = ask(dispatcher, kb, "年假", overrides={"minimumRelevance": cut})
    kept = [r for r in relevances if r >= cut]
    assert len(shown["results"]) == len(kept) >= 1
    assert not any(r["belowFloor"] for r in shown["results"])
    below = shown["belowFloor"]
    assert [r["rank"] for r in below] == list(range(len(kept) + 1, len(relevances) + 1))
    assert all(r["relevance"] < cut for r in below)
    evidence = {c for g in shown["context"]["groups"] for c in g["hitChunkIds"]}
    assert not evidence & {r["chunkId"] for r in below}


def test_old_fusion_stays_available_and_diagnostics_name_it(
    dispatcher: Dispatcher, kb: str
) -> None:
    rrf = ask(dispatcher, kb, "年假 天数 结转", fusion="rrf", overrides={"minimumRelevance": 0})
    adaptive = ask(dispatcher, kb, "年假 天数 结转", overrides={"minimumRelevance": 0})
    assert rrf["diagnostics"]["fusion"] == "rrf" and adaptive["diagnostics"]["fusion"] == "adaptive"
    assert all(0 <= v <= 1 for v in adaptive["diagnostics"]["channelConfidence"].values())
    assert adaptive["diagnostics"]["vectorBackground"] is not None


@pytest.mark.integration
def test_embeddings_down_degrades_to_lexical(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = Script()
    with openai_server(script) as base:
        call(
            dispatcher,
            EMBEDDING_UPDATE.name,
            {
                "connection": {"kind": "openai-compatible", "baseUrl": base, "model": "m"},
                "apiKey": "sk-secret-123456789",
            },
        )
        from goodbuddy_kb.contracts.methods import VECTORS_REBUILD

        call(dispatcher, VECTORS_REBUILD.name, {"libraryId": kb})
        services.tasks.wait_idle()
        assert (
            ask(dispatcher, kb, "年假")["diagnostics"]["degradedChannels"][0]["channel"] == "graph"
        )
    res = ask(dispatcher, kb, "年假天数")  # the server is gone now
    degraded = {d["channel"]: d["reason"] for d in res["diagnostics"]["degradedChannels"]}
    assert "could not be embedded" in degraded["vector"] and "sk-secret" not in json.dumps(res)
    assert res["results"] and set(res["diagnostics"]["usedChannels"]) == {"fts", "cjk"}


@pytest.mark.integration
@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(500, b"boom key=sk-live-abcdef1234567890", "text/plain"), "HTTP 500"),
        (Reply(200, b'{"results": [{"index": 99}]}', "application/json"), "invalid answer"),
        (Reply(200, b"not json", "application/json"), "invalid answer"),
        (Reply(200, b"{}", "application/json", delay_s=3.0), "did not answer within"),
    ],
)
def test_learned_rerank_failures_fall_back_to_local(
    dispatcher: Dispatcher, kb: str, reply: Reply, reason: str
) -> None:
    with serve({"/v1/rerank": reply}) as base:
        call(
            dispatcher,
            RERANK_UPDATE.name,
            {
                "connection": {"baseUrl": base, "model": "rr", "timeoutS": 1.0},
                "apiKey": "sk-rerank-key-0001",
            },
        )
        res = ask(dispatcher, kb, "报销流程", rerank="learned")
    rr = res["diagnostics"]["rerank"]
    assert rr["requested"] == "learned" and rr["applied"] == "local"
    assert reason in rr["fallbackReason"] and "sk-" not in rr["fallbackReason"]
    assert res["results"]


@pytest.mark.integration
def test_learned_rerank_orders_by_the_service(dispatcher: Dispatcher, kb: str) -> None:
    def scores(_path: str, body: bytes) -> Reply:
        docs = json.loads(body)["documents"]
        assert len(docs) <= 100 and all(len(d) <= 8000 for d in docs)
        results = [
            {"index": i, "relevance_score": 1.0 if "FIN-2000" in d else 0.1}
            for i, d in enumerate(docs)
        ]
        return Reply(200, json.dumps({"results": results}).encode(), "application/json")

    with serve({"/v1/rerank": scores}) as base:
        call(dispatcher, RERANK_UPDATE.name, {"connection": {"baseUrl": base, "model": "rr"}})
        res = ask(dispatcher, kb, "报销", rerank="learned")
    assert res["diagnostics"]["rerank"]["applied"] == "learned"
    assert "FIN-2000" in res["results"][0]["snippet"] and res["results"][0]["relevance"] == 1.0


def ref(res: dict[str, Any], index: int = 0) -> dict[str, str]:
    r = res["results"][index]
    return {"libraryId": r["libraryId"], "documentId": r["documentId"], "chunkId": r["chunkId"]}


def test_reference_context_and_stale_citations(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    res = ask(dispatcher, kb, "婚假三天")
    context = call(dispatcher, REFERENCE_CONTEXT.name, ref(res))
    assert (
        context["valid"]
        and context["libraryName"] == "KB"
        and context["documentPath"] == "policy_zh.md"
    )
    assert [c["isHit"] for c in context["chunks"]].count(True) == 1
    services.db.get().execute("UPDATE chunks SET enabled = 0 WHERE id = ?", (ref(res)["chunkId"],))
    stale = call(dispatcher, REFERENCE_CONTEXT.name, ref(res))
    assert not stale["valid"] and "no longer valid" in stale["message"]


def test_a_citation_of_a_source_removed_and_added_again_is_valid_again(
    dispatcher: Dispatcher, services: Services, kb: str, tmp_path: Path
) -> None:
    """Added again, the folder's documents and passages have new ids; the citation (ids and the
    checksum of the text it quoted) finds the same text again and opens the file. It said "no
    longer valid" beside the very passage it quoted."""
    opened: list[str] = []
    services.opener = opened.append
    res = ask(dispatcher, kb, "婚假三天")
    cited = {**ref(res), "checksum": res["results"][0]["checksum"]}
    folder = tmp_path / "kb"
    (source,) = call(dispatcher, SOURCE_LIST.name, {"libraryId": kb})["sources"]
    call(dispatcher, SOURCE_REMOVE.name, {"libraryId": kb, "sourceId": source["id"]})
    services.tasks.wait_idle()
    gone = call(dispatcher, REFERENCE_CONTEXT.name, cited)
    assert not gone["valid"] and "no longer valid" in gone["message"]
    add = {"libraryId": kb, "kind": "folder", "location": str(folder), "watch": False}
    call(dispatcher, SOURCE_ADD.name, add)
    services.tasks.wait_idle()
    again = call(dispatcher, REFERENCE_CONTEXT.name, cited)
    assert again["valid"] and again["documentPath"] == "policy_zh.md" and not again["changed"]
    hit = next(c for c in again["chunks"] if c["isHit"])
    assert hit["chunkId"] != cited["chunkId"] and "婚假" in hit["content"]
    assert call(dispatcher, REFERENCE_OPEN.name, cited)["opened"]
    assert opened == [str(folder / "policy_zh.md")]
    # the ids alone (no checksum kept) name nothing any more
    assert not call(dispatcher, REFERENCE_CONTEXT.name, ref(res))["valid"]


def test_reference_open_checks_ownership_and_the_file(
    dispatcher: Dispatcher, services: Services, kb: str, tmp_path: Path
) -> None:
    opened: list[str] = []
    services.opener = opened.append
    res = ask(dispatcher, kb, "婚假三天")
    assert call(dispatcher, REFERENCE_OPEN.name, ref(res)) == {"opened": True, "targetKind": "file"}
    assert opened and opened[0].endswith("policy_zh.md")
    other = call(dispatcher, LIBRARY_CREATE.name, {"name": "Other"})["library"]["id"]
    assert (
        fail(dispatcher, REFERENCE_OPEN.name, {**ref(res), "libraryId": other})["code"]
        == "not_found"
    )
    mismatched = call(dispatcher, REFERENCE_CONTEXT.name, {**ref(res), "documentId": "0" * 32})
    assert not mismatched["valid"], "a chunk id paired with another document is not this citation"
    # the stored file is replaced by a symlink to a file outside the source
    stored = Path(opened[0])
    outside = tmp_path / "outside.md"
    outside.write_text("secret", encoding="utf-8")
    stored.unlink()
    os.symlink(outside, stored)
    refused = fail(dispatcher, REFERENCE_OPEN.name, ref(res))
    assert refused["code"] == "conflict" and "nothing was opened" in refused["message"]
    assert len(opened) == 1


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd"])
def test_stored_urls_other_than_http_are_never_opened(
    dispatcher: Dispatcher, services: Services, kb: str, url: str
) -> None:
    opened: list[str] = []
    services.opener = opened.append
    conn = services.db.get()
    row = conn.execute(
        "SELECT c.id, c.document_id, d.source_id FROM chunks c JOIN documents d ON d.id = c.document_id LIMIT 1"
    ).fetchone()
    conn.execute("UPDATE sources SET kind = 'web', location = ? WHERE id = ?", (url, row[2]))
    conn.execute("UPDATE documents SET relative_path = ? WHERE id = ?", (url, row[1]))
    refused = fail(
        dispatcher, REFERENCE_OPEN.name, {"libraryId": kb, "documentId": row[1], "chunkId": row[0]}
    )
    assert refused["code"] == "conflict" and opened == []


def test_reasons_travel_with_the_codes_they_were_raised_with(
    dispatcher: Dispatcher, kb: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_regex(text: str | None) -> None:
        assert not text, f"read back from its words: {text}"

    monkeypatch.setattr(messages, "classify", no_regex)
    res = ask(dispatcher, kb, "年假", channels=["graph"], rerank="learned")
    (degraded,) = res["diagnostics"]["degradedChannels"]
    assert (degraded["reasonCode"], degraded["reason"]) == ("graph.off", CATALOGUE["graph.off"])
    zero = res["zeroResult"]
    assert zero["messageCode"] == "zero.index_unavailable"
    assert zero["messageParams"] == {"reasons": CATALOGUE["graph.off"]}
    assert zero["nextStepCode"] == "zero.index_unavailable.next"
    found = ask(dispatcher, kb, "年假", rerank="learned", overrides={"minimumRelevance": 0})
    rerank = found["diagnostics"]["rerank"]
    assert rerank["fallbackReasonCode"] == "rerank.not_configured"


def test_a_citation_whose_passage_is_gone_opens_its_document_while_it_stays(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    """A file edited and synced again has new chunks: the answer's citation then opened
    nothing, saying the source was no longer in the libraries, while its file was there."""
    opened: list[str] = []
    services.opener = opened.append
    res = ask(dispatcher, kb, "婚假三天")
    conn = services.db.get()
    conn.execute("DELETE FROM chunks WHERE id = ?", (ref(res)["chunkId"],))
    assert not call(dispatcher, REFERENCE_CONTEXT.name, ref(res))["valid"]
    assert call(dispatcher, REFERENCE_OPEN.name, ref(res)) == {"opened": True, "targetKind": "file"}
    assert opened and opened[0].endswith("policy_zh.md")
    conn.execute("DELETE FROM documents WHERE id = ?", (ref(res)["documentId"],))
    assert fail(dispatcher, REFERENCE_OPEN.name, ref(res))["code"] == "not_found"
    assert len(opened) == 1


def one_file_library(
    dispatcher: Dispatcher, services: Services, folder: Path, name: str, text: str
) -> str:
    """A library of ``folder`` holding the one file ``name``, synced."""
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8")
    library_id = folder_library(dispatcher, folder)
    services.tasks.wait_idle()
    return library_id


def test_a_shortened_chinese_term_counts_as_partly_found(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """Chinese shortens a term by dropping a middle character (年假 for 年休假, 社保 for 社会保险):
    "年假有几天？" met no bigram of rules that say 年休假, and the sample library withheld its
    answer as "nothing relevant enough" (best 0.17). A question's bigram the libraries hold
    nowhere, found with one character between its two, now counts half in the coverage the
    relevance reads; one the libraries do hold is not looked for shortened."""
    folder = tmp_path / "rules"
    text = "# 休假制度\n\n员工每年享有带薪年休假五天。\n\n# 加班\n\n加班须提前申请。\n"
    library_id = one_file_library(dispatcher, services, folder, "leave.md", text)
    res = ask(dispatcher, library_id, "年假")
    top = res["results"][0]
    assert "年休假" in top["snippet"] and top["features"]["coverage"] == 0.5
    (folder / "more.md").write_text("# 补充\n\n年假另见人事通知。\n", encoding="utf-8")
    call(dispatcher, SOURCE_SYNC.name, {"libraryId": library_id})
    services.tasks.wait_idle()
    settings = call(dispatcher, SETTINGS_GET.name, {"libraryId": library_id})["retrieval"]
    call(
        dispatcher,
        SETTINGS_UPDATE.name,
        {"libraryId": library_id, "retrieval": {**settings, "minimumRelevance": 0.0}},
    )
    res = ask(dispatcher, library_id, "年假")
    held = next(r for r in res["results"] if "年休假" in r["snippet"])
    assert held["features"]["coverage"] == 0.0, "the libraries hold 年假 itself: no guessing"


def test_a_passage_under_a_heading_that_names_the_question_counts_it_as_covered(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """The lexical channels match a passage's document title and headings, but the relevance
    read only its text: the sample rules' lodging table, under "三、住宿标准", showed 0.16 for
    "出差住宿标准是多少？" and was left out as below the floor while the scope line that only
    mentions 住宿标准 led (a helper's try). The relevance's coverage reads the headings too."""
    text = "# 差旅制度\n\n## 住宿标准\n\n一线城市每晚上限 600 元，其他城市 450 元。\n"
    library_id = one_file_library(dispatcher, services, tmp_path / "rules", "travel.md", text)
    res = ask(dispatcher, library_id, "住宿标准")
    top = res["results"][0]
    assert "600 元" in top["snippet"] and "住宿标准" not in top["snippet"]
    assert top["features"]["coverage"] == 1.0 and top["features"]["weightedCoverage"] == 1.0
