"""Chunk maintenance through the dispatcher over real files, a migrated database and the
deterministic embedding provider (a loopback server where a provider must fail): edits,
enable/disable and delete keep every channel consistent; limits and ownership are enforced."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.contracts.limits import MAX_CHUNK_CONTENT_CHARACTERS, MAX_CITATIONS_PER_MESSAGE
from goodbuddy_kb.contracts.methods import (
    CHUNK_DELETE,
    CHUNK_GET,
    CHUNK_UPDATE,
    CHUNKS_LIST,
    DOCUMENTS_LIST,
    EMBEDDING_UPDATE,
    LIBRARY_CREATE,
    REFERENCE_CONTEXT,
    REFERENCE_STATES,
    RETRIEVE,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_SYNC,
    TASKS_LIST,
    VECTORS_REBUILD,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call, fail
from tests.servers.embedserver import Script, openai_server

SECTION = (
    "## Section {n}\n\nParagraph {n} explains the rule topic{d}x{n} for 出差住宿第{n}条规定。\n\n"
)


def write_doc(folder: Path, d: int, sections: int = 4, changed: int | None = None) -> Path:
    path = folder / f"doc{d}.md"
    body = "".join(
        SECTION.format(n=n, d=d).replace("explains", "now explains" if n == changed else "explains")
        for n in range(1, sections + 1)
    )
    path.write_text(f"# Document {d}\n\n{body}", encoding="utf-8")
    return path


class Kb:
    def __init__(self, d: Dispatcher, services: Services, folder: Path) -> None:
        self.d, self.services, self.folder = d, services, folder
        self.library_id = call(d, LIBRARY_CREATE.name, {"name": "Chunks"})["library"]["id"]
        write_doc(folder, 1)
        write_doc(folder, 2)
        call(
            d,
            SOURCE_ADD.name,
            {
                "libraryId": self.library_id,
                "kind": "folder",
                "location": str(folder),
                "watch": False,
            },
        )
        self.wait()

    def wait(self) -> None:
        self.services.tasks.wait_idle()

    def doc(self, path: str) -> dict[str, Any]:
        docs = call(self.d, DOCUMENTS_LIST.name, {"libraryId": self.library_id})
        return next(x for x in docs["documents"] if x["path"] == path)

    def summary(self) -> dict[str, Any]:
        return call(self.d, DOCUMENTS_LIST.name, {"libraryId": self.library_id})["summary"]

    def chunks(self, path: str, **extra: Any) -> dict[str, Any]:
        return call(
            self.d,
            CHUNKS_LIST.name,
            {"libraryId": self.library_id, "documentId": self.doc(path)["id"], **extra},
        )

    def ids(self, path: str, chunk: dict[str, Any]) -> dict[str, str]:
        return {
            "libraryId": self.library_id,
            "documentId": self.doc(path)["id"],
            "chunkId": chunk["id"],
        }

    def update(self, path: str, chunk: dict[str, Any], **change: Any) -> dict[str, Any]:
        return call(self.d, CHUNK_UPDATE.name, {**self.ids(path, chunk), **change})

    def hits(self, channel: str, text: str) -> set[str]:
        conn = self.services.db.get()
        return {h.chunk_id for h in search(conn, channel, [self.library_id], build_query(text), 50)}

    def vector_hits(self, text: str) -> set[str]:
        res = call(
            self.d,
            RETRIEVE.name,
            {
                "libraryIds": [self.library_id],
                "query": text,
                "channels": ["vector"],
                "overrides": {"topK": 20, "minimumVectorSimilarity": 0.0},
            },
        )
        return {r["chunkId"] for r in res["results"]}

    def live_vector(self, chunk_id: str) -> list[tuple[str, str]]:
        """(vector checksum, chunk checksum) of the chunk's live vector rows."""
        return [
            (r[0], r[1])
            for r in self.services.db.get().execute(
                "SELECT v.checksum, c.checksum FROM vector_rows v JOIN chunks c ON c.seq = v.chunk_seq"
                " WHERE c.id = ? AND v.alive = 1",
                (chunk_id,),
            )
        ]


def embed_with(kb: Kb, base: str) -> None:
    """The library's vectors made anew by the embedding service at ``base`` (loopback)."""
    call(
        kb.d,
        EMBEDDING_UPDATE.name,
        {"connection": {"kind": "openai-compatible", "baseUrl": base, "model": "m"}},
    )
    call(kb.d, VECTORS_REBUILD.name, {"libraryId": kb.library_id})
    kb.wait()


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> Kb:
    folder = tmp_path / "docs"
    folder.mkdir()
    return Kb(dispatcher, services, folder)


def test_listing_pages_searches_and_shows_full_content(kb: Kb) -> None:
    listing = kb.chunks("doc1.md", limit=3)
    assert listing["total"] == 4 and len(listing["chunks"]) == 3 and listing["nextCursor"]
    first = listing["chunks"][0]
    assert first["ordinal"] == 0 and first["role"] == "standalone" and first["enabled"]
    assert first["headingPath"] == ["Document 1", "Section 1"] and not first["manuallyEdited"]
    assert first["locator"]["lineStart"] >= 1 and first["characterCount"] == len(
        call(kb.d, CHUNK_GET.name, kb.ids("doc1.md", first))["content"]
    )
    rest = kb.chunks("doc1.md", limit=3, cursor=listing["nextCursor"])
    assert [c["ordinal"] for c in rest["chunks"]] == [3] and rest["nextCursor"] is None
    found = kb.chunks("doc1.md", search="TOPIC1X3")
    assert [c["ordinal"] for c in found["chunks"]] == [2] and found["total"] == 1
    assert kb.chunks("doc1.md", search="第4条")["chunks"][0]["ordinal"] == 3
    assert kb.chunks("doc1.md", search="100%_")["total"] == 0, "wildcards are literal"
    assert listing["document"] == {
        "documentId": kb.doc("doc1.md")["id"],
        "title": "Document 1",
        "path": "doc1.md",
        "retrievableChunks": 4,
        "totalChunks": 4,
        "editedChunks": 0,
        "disabledChunks": 0,
        "deletedChunks": 0,
        "replacedEdits": 0,
    }


def test_edit_rewrites_fulltext_and_cjk_and_revectorises(kb: Kb) -> None:
    chunk = kb.chunks("doc1.md")["chunks"][1]
    assert chunk["id"] in kb.hits("fts", "topic1x2") and chunk["id"] in kb.hits("cjk", "第2条规定")
    old_vector = kb.live_vector(chunk["id"])
    assert len(old_vector) == 1 and old_vector[0][0] == old_vector[0][1]
    result = kb.update("doc1.md", chunk, content="Corrected: zebracrossing rule 斑马线通行守则。")
    assert result["chunk"]["manuallyEdited"] and result["vector"] == "queued"
    assert result["document"]["editedChunks"] == 1 and result["vectorTaskId"]
    assert old_vector[0] not in kb.live_vector(chunk["id"]), "the old vector is gone at once"
    assert chunk["id"] in kb.hits("fts", "zebracrossing") and chunk["id"] in kb.hits(
        "cjk", "斑马线"
    )
    assert chunk["id"] not in kb.hits("fts", "topic1x2")
    assert chunk["id"] not in kb.hits("cjk", "第2条规定")
    assert kb.doc("doc1.md")["editedChunks"] == 1
    kb.wait()
    same = kb.update("doc1.md", chunk, content="Corrected: zebracrossing rule 斑马线通行守则。")
    assert same["vector"] == "not_needed" and same["vectorTaskId"] is None, "no change, no work"
    (vector,) = kb.live_vector(chunk["id"])
    assert vector[0] == vector[1], "the new vector is of the new text"
    assert kb.doc("doc1.md")["status"]["vector"] == "done"
    assert chunk["id"] in kb.vector_hits("Corrected: zebracrossing rule 斑马线通行守则。")
    full = call(kb.d, CHUNK_GET.name, kb.ids("doc1.md", chunk))
    assert full["content"] == "Corrected: zebracrossing rule 斑马线通行守则。"


@pytest.mark.integration
def test_a_chunk_switched_off_while_its_vector_is_made_leaves_nothing_counted(
    kb: Kb, dispatcher: Dispatcher
) -> None:
    """Switched on, then off again while its vector was being made: the vector is dropped
    (it must match a chunk that is searched), and the task counts nothing. It read
    "Completed · 0/1 (0%)", as if it had failed to do its one thing."""
    script = Script()
    with openai_server(script) as base:
        embed_with(kb, base)
        chunk = kb.chunks("doc1.md")["chunks"][1]
        kb.update("doc1.md", chunk, enabled=False)
        script.delay_s = 1.5  # the service is slow: the chunk is switched off meanwhile
        on = kb.update("doc1.md", chunk, enabled=True)
        task_id = on["vectorTaskId"]

        def task() -> dict[str, Any]:
            tasks = call(kb.d, TASKS_LIST.name, {"libraryId": kb.library_id})["tasks"]
            return next(t for t in tasks if t["id"] == task_id)

        deadline = time.monotonic() + 10
        while task()["total"] != 1 and time.monotonic() < deadline:
            time.sleep(0.05)  # counted: the embedding request is on its way
        assert task()["total"] == 1
        kb.update("doc1.md", chunk, enabled=False)
        kb.wait()
    row = task()
    assert (row["state"], row["done"], row["total"]) == ("completed", 0, 0), row
    assert kb.live_vector(chunk["id"]) == [], "no vector for a chunk that is off"


@pytest.mark.integration
def test_a_provider_down_during_revectorisation_keeps_the_edit(
    kb: Kb, dispatcher: Dispatcher
) -> None:
    script = Script()
    with openai_server(script) as base:
        embed_with(kb, base)
        assert kb.doc("doc1.md")["status"]["vector"] == "done"
        script.fail_after = script.calls  # the service breaks now
        chunk = kb.chunks("doc1.md")["chunks"][0]
        result = kb.update("doc1.md", chunk, content="Quokka policy 袋鼠条款 applies.")
        assert result["vector"] == "queued" and result["vectorTaskId"]
        kb.wait()
    doc = kb.doc("doc1.md")
    assert doc["status"]["vector"] == "failed" and "embedding failed" in doc["error"]
    assert "sk-should-never-leak" not in doc["error"]
    assert chunk["id"] in kb.hits("fts", "quokka") and chunk["id"] in kb.hits("cjk", "袋鼠条款")
    assert call(kb.d, CHUNK_GET.name, kb.ids("doc1.md", chunk))["content"].startswith("Quokka")
    assert kb.live_vector(chunk["id"]) == []


def test_disable_takes_the_chunk_out_of_every_channel_and_enable_brings_it_back(kb: Kb) -> None:
    chunk = kb.chunks("doc2.md")["chunks"][2]
    text = call(kb.d, CHUNK_GET.name, kb.ids("doc2.md", chunk))["content"]
    assert chunk["id"] in kb.vector_hits(text)
    off = kb.update("doc2.md", chunk, enabled=False)
    assert not off["chunk"]["enabled"] and off["vector"] == "not_needed"
    assert chunk["id"] not in kb.hits("fts", "topic2x3")
    assert chunk["id"] not in kb.hits("cjk", "第3条规定")
    assert chunk["id"] not in kb.vector_hits(text)
    res = call(
        kb.d,
        RETRIEVE.name,
        {"libraryIds": [kb.library_id], "query": "topic2x3 第3条规定", "overrides": {"topK": 20}},
    )
    assert chunk["id"] not in {r["chunkId"] for r in res["results"]}
    assert all(
        chunk["id"] not in [c["chunkId"] for c in g["chunks"]]
        for g in res["context"]["groups"]
        if "chunks" in g
    )
    assert text not in str(res["context"]), "no context assembly uses a disabled chunk"
    assert {d["channel"] for d in res["diagnostics"]["degradedChannels"]} == {"graph"}
    ref = call(kb.d, REFERENCE_CONTEXT.name, kb.ids("doc2.md", chunk))
    assert not ref["valid"] and "no longer valid" in ref["message"]
    assert kb.doc("doc2.md")["chunkCount"] == 3
    on = kb.update("doc2.md", chunk, enabled=True)
    assert on["chunk"]["enabled"] and on["vector"] == "queued"
    assert chunk["id"] in kb.hits("fts", "topic2x3"), "full text is back at once"
    assert chunk["id"] in kb.hits("cjk", "第3条规定")
    kb.wait()
    assert chunk["id"] in kb.vector_hits(text), "and the vector after re-vectorisation"
    assert call(kb.d, REFERENCE_CONTEXT.name, kb.ids("doc2.md", chunk))["valid"]


def test_deleting_the_last_chunk_leaves_no_retrievable_content(kb: Kb, tmp_path: Path) -> None:
    before = kb.summary()["noRetrievableContent"]
    chunks = kb.chunks("doc2.md")["chunks"]
    for chunk in chunks[:-1]:
        gone = call(kb.d, CHUNK_DELETE.name, kb.ids("doc2.md", chunk))
        assert gone["document"]["retrievableChunks"] > 0
    kb.update("doc2.md", chunks[-1], enabled=False)
    assert kb.doc("doc2.md")["status"]["fulltext"] != "done", "disabled: nothing retrievable"
    kb.update("doc2.md", chunks[-1], enabled=True)
    assert kb.doc("doc2.md")["status"]["fulltext"] == "done"
    last = call(kb.d, CHUNK_DELETE.name, kb.ids("doc2.md", chunks[-1]))
    assert last["document"]["retrievableChunks"] == 0 and last["document"]["totalChunks"] == 0
    doc = kb.doc("doc2.md")
    assert doc["status"]["fulltext"] != "done" and doc["chunkCount"] == 0
    assert doc["deletedChunks"] == len(chunks) and last["document"]["deletedChunks"] == len(chunks)
    assert "no retrievable content" in (doc["error"] or "")
    assert kb.summary()["noRetrievableContent"] == before + 1
    assert (kb.folder / "doc2.md").read_text(encoding="utf-8").startswith("# Document 2")
    gone_ids = {c["id"] for c in chunks}
    assert not gone_ids & (kb.hits("fts", "topic2x1") | kb.hits("cjk", "第1条规定"))
    assert not gone_ids & kb.vector_hits("topic2x1 出差住宿第1条规定")
    deleted_again = fail(kb.d, CHUNK_DELETE.name, kb.ids("doc2.md", chunks[0]))
    assert deleted_again["code"] == "not_found"


def test_limits_and_ownership_change_nothing(
    kb: Kb, dispatcher: Dispatcher, tmp_path: Path
) -> None:
    chunk = kb.chunks("doc1.md")["chunks"][0]
    ids = kb.ids("doc1.md", chunk)
    before = call(kb.d, CHUNK_GET.name, ids)
    too_long = fail(
        kb.d, CHUNK_UPDATE.name, {**ids, "content": "x" * (MAX_CHUNK_CONTENT_CHARACTERS + 1)}
    )
    assert too_long["code"] == "invalid_request"
    assert too_long["details"]["fields"][0]["field"] == "content"
    assert fail(kb.d, CHUNK_UPDATE.name, {**ids, "content": "  \n"})["code"] == "invalid_request"
    assert fail(kb.d, CHUNK_UPDATE.name, ids)["code"] == "invalid_request"
    page = fail(
        kb.d,
        CHUNKS_LIST.name,
        {"libraryId": kb.library_id, "documentId": ids["documentId"], "limit": 201},
    )
    assert page["code"] == "invalid_request" and page["details"]["fields"][0]["field"] == "limit"
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    write_doc(other_folder, 7)
    other = call(kb.d, LIBRARY_CREATE.name, {"name": "Other"})["library"]["id"]
    call(
        kb.d,
        SOURCE_ADD.name,
        {"libraryId": other, "kind": "folder", "location": str(other_folder), "watch": False},
    )
    kb.wait()
    wrong_library = {**ids, "libraryId": other}
    wrong_document = {**ids, "documentId": kb.doc("doc2.md")["id"]}
    for params in (wrong_library, wrong_document, {**ids, "chunkId": "0" * 32}):
        assert fail(kb.d, CHUNK_UPDATE.name, {**params, "enabled": False})["code"] == "not_found"
        assert fail(kb.d, CHUNK_DELETE.name, params)["code"] == "not_found"
        assert fail(kb.d, CHUNK_GET.name, params)["code"] == "not_found"
    assert (
        fail(
            kb.d,
            CHUNKS_LIST.name,
            {"libraryId": other, "documentId": ids["documentId"]},
        )["code"]
        == "not_found"
    )
    assert fail(kb.d, CHUNK_GET.name, {**ids, "chunkId": "nothex"})["code"] == "invalid_request"
    assert call(kb.d, CHUNK_GET.name, ids) == before
    assert chunk["id"] in kb.hits("fts", "topic1x1")


def test_the_states_of_an_answers_citations(kb: Kb, tmp_path: Path) -> None:
    """``knowledge:reference:states``: each citation as it stands now, in the request's order;
    ids that do not belong together read as gone (re-checked, never trusted); more citations
    than an answer can hold are refused."""
    first, second, third = kb.chunks("doc2.md")["chunks"][:3]
    conn = kb.services.db.get()

    def checksum(chunk: dict[str, Any]) -> str:  # as a retrieval result gives it to a citation
        return str(
            conn.execute("SELECT checksum FROM chunks WHERE id = ?", (chunk["id"],)).fetchone()[0]
        )

    cited = [{**kb.ids("doc2.md", x), "checksum": checksum(x)} for x in (first, second, third)]
    states = REFERENCE_STATES.name
    assert call(kb.d, states, {"references": cited})["states"] == ["valid"] * 3
    kb.update("doc2.md", first, content="Corrected: 另有补充。")
    kb.update("doc2.md", second, enabled=False)
    call(kb.d, CHUNK_DELETE.name, kb.ids("doc2.md", third))
    other = call(kb.d, LIBRARY_CREATE.name, {"name": "Other"})["library"]["id"]
    foreign = {**cited[0], "libraryId": other}
    elsewhere = {**cited[0], "documentId": kb.doc("doc1.md")["id"], "checksum": None}
    asked = [*cited, foreign, elsewhere]
    assert call(kb.d, states, {"references": asked})["states"] == [
        "changed",
        "gone",
        "gone",
        "gone",
        "gone",
    ]
    refused = fail(kb.d, states, {"references": [cited[0]] * (MAX_CITATIONS_PER_MESSAGE + 1)})
    assert refused["code"] == "invalid_request"


def test_sync_keeps_edits_of_unchanged_chunks_and_overwrites_changed_ones(kb: Kb) -> None:
    first, second = kb.chunks("doc1.md")["chunks"][:2]
    kb.update("doc1.md", first, content="Edited first section: walrus 海象。")
    kb.update("doc1.md", second, content="Edited second section: narwhal 独角鲸。")
    kb.update("doc1.md", kb.chunks("doc1.md")["chunks"][3], enabled=False)
    write_doc(kb.folder, 1, changed=2)  # section 2's source text changes
    call(kb.d, SOURCE_SYNC.name, {"libraryId": kb.library_id})
    kb.wait()
    after = kb.chunks("doc1.md")["chunks"]
    assert after[0]["id"] == first["id"] and after[0]["manuallyEdited"]
    assert call(kb.d, CHUNK_GET.name, kb.ids("doc1.md", after[0]))["content"].startswith(
        "Edited first"
    )
    assert first["id"] in kb.hits("fts", "walrus"), "the kept edit stays indexed"
    assert after[1]["id"] != second["id"] and not after[1]["manuallyEdited"]
    assert not kb.hits("fts", "narwhal"), "a changed source re-creates its chunk"
    assert not after[3]["enabled"], "a disabled chunk stays disabled across a sync"
    assert kb.doc("doc1.md")["editedChunks"] == 1
    (vector,) = kb.live_vector(first["id"])
    assert vector[0] == vector[1]


def test_parents_and_children(kb: Kb, dispatcher: Dispatcher) -> None:
    call(
        dispatcher,
        SETTINGS_UPDATE.name,
        {
            "libraryId": kb.library_id,
            "chunking": {
                "mode": "parent-child",
                "targetCharacters": 400,
                "overlapCharacters": 0,
                "parentCharacters": 1600,
                "childCharacters": 300,
            },
        },
    )
    # parents pack sibling sections up to 1,600 characters: 60 sections make several parents
    write_doc(kb.folder, 1, sections=60)
    from goodbuddy_kb.contracts.methods import LIBRARY_REBUILD

    call(dispatcher, LIBRARY_REBUILD.name, {"libraryId": kb.library_id})
    kb.wait()
    listing = kb.chunks("doc1.md", limit=200)["chunks"]
    parents = [c for c in listing if c["role"] == "parent"]
    assert parents and parents[0]["childCount"] > 0
    assert listing[0]["role"] == "parent" and len(parents) >= 3
    child = next(c for c in listing if c["role"] == "child")
    assert child["role"] == "child" and child["parentChunkId"] == parents[0]["id"]
    assert child["parentOrdinal"] == parents[0]["ordinal"]
    assert kb.chunks("doc1.md", role="parent")["total"] == len(parents)
    edited = kb.update("doc1.md", parents[0], content="Parent context only 父块。")
    assert edited["vector"] == "not_needed", "parents have no vectors"
    assert not kb.hits("fts", "Parent context only")
    off = kb.update("doc1.md", parents[0], enabled=False)
    assert not off["chunk"]["enabled"]
    ref = call(kb.d, REFERENCE_CONTEXT.name, kb.ids("doc1.md", child))
    assert ref["valid"] and [c["role"] for c in ref["chunks"]] == ["child"], "no disabled parent"
    gone = call(kb.d, CHUNK_DELETE.name, kb.ids("doc1.md", parents[0]))
    assert gone["detachedChildren"] == parents[0]["childCount"]
    after = {c["id"]: c for c in kb.chunks("doc1.md", limit=200)["chunks"]}
    assert (
        after[child["id"]]["role"] == "standalone" and after[child["id"]]["parentChunkId"] is None
    )
    assert child["id"] in kb.hits("fts", "topic1x1")
    call(kb.d, SOURCE_SYNC.name, {"libraryId": kb.library_id})
    write_doc(kb.folder, 1, sections=60, changed=60)  # in the last parent, not the first
    call(kb.d, SOURCE_SYNC.name, {"libraryId": kb.library_id})
    kb.wait()
    again = {c["id"]: c for c in kb.chunks("doc1.md", limit=200)["chunks"]}
    assert parents[0]["id"] not in again, "the parent's text did not change: it stays deleted"
    assert (
        again[child["id"]]["role"] == "standalone" and again[child["id"]]["parentChunkId"] is None
    )


def test_a_document_vectorisation_counts_chunks_and_never_reads_0_of_1(kb: Kb) -> None:
    """The task re-embedding a document counts the chunks it embeds; one that a later change
    left with nothing to embed (a chunk switched on and off again before it ran) completes
    with nothing counted, never "0/1" as if it had failed to do its one thing."""

    def task(task_id: str) -> dict[str, Any]:
        tasks = call(kb.d, TASKS_LIST.name, {"libraryId": kb.library_id})["tasks"]
        return next(t for t in tasks if t["id"] == task_id)

    chunk = kb.chunks("doc1.md")["chunks"][0]
    edited = kb.update("doc1.md", chunk, content="Edited: okapi rule 霍加狓条款。")
    kb.wait()
    done = task(edited["vectorTaskId"])
    assert (done["state"], done["done"], done["total"]) == ("completed", 1, 1)
    assert done["current"] == "doc1.md", "a finished task of one document still names it"
    # Nothing is left to embed now: every chunk of doc1 has a vector of its current text.
    idle = kb.services.tasks.vectorize_document(kb.library_id, kb.doc("doc1.md")["id"])
    kb.wait()
    row = task(idle.id)
    assert (row["state"], row["done"], row["total"], row["failedDocuments"]) == (
        "completed",
        0,
        0,
        0,
    )
