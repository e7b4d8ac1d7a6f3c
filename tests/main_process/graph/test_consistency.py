"""Property: whatever sequence of chunk edits, disables, enables, deletes, file changes,
document rebuilds and local or model extractions a person runs, no graph evidence ever points at
a missing, disabled or changed chunk — every entity span is exactly a name or alias of its
entity in the chunk's current content, every relation span holds both ends."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    CHUNK_DELETE,
    CHUNK_UPDATE,
    DOCUMENT_REBUILD,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph.matching import normalise_name
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call
from tests.main_process.graph.helpers import folder_library
from tests.servers.extractserver import ExtractScript, Reply, chunk_of, extract_server

NAMES = {
    "财务部": "organization",
    "行政中心": "organization",
    "差旅报销制度": "policy",
    "报销系统": "system",
    "统一认证平台": "system",
    "Finance Department": "organization",
    "Travel Policy": "policy",
}
SENTENCES = [
    "差旅报销制度由财务部审批。",
    "财务部隶属于行政中心。",
    "报销系统依赖统一认证平台。",
    "The Finance Department approves the Travel Policy.",
    "住宿标准为每晚六百元。",
    "超过五千元须经总经理办公室审批。",
]


def document(variant: int) -> str:
    parts = [SENTENCES[(variant + i) % len(SENTENCES)] for i in range(4)]
    return f"# 制度 {variant}\n\n" + "\n\n## 第二节\n\n".join(parts) + "\n"


def model_answer(body: dict[str, Any]) -> Reply:
    """Names the ontology knows, as found in the chunk, plus parts that must be rejected."""
    chunk = chunk_of(body)
    entities = [{"name": n, "type": t} for n, t in NAMES.items() if n in chunk]
    entities.append({"name": "不存在的部门", "type": "organization"})
    relations = []
    if "财务部" in chunk and "差旅报销制度" in chunk:
        relations.append({"head": "财务部", "type": "approves", "tail": "差旅报销制度"})
    return {"answer": {"entities": entities, "relations": relations}}


@pytest.fixture
def model_url() -> Iterator[str]:
    with extract_server(ExtractScript(model_answer)) as url:
        yield url


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path, model_url: str) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    for n in range(3):
        (folder / f"doc{n}.md").write_text(document(n), encoding="utf-8")
    library_id = folder_library(dispatcher, folder)
    call(
        dispatcher,
        CHAT_MODEL_UPDATE.name,
        {"connection": {"kind": "openai-compatible", "baseUrl": model_url, "model": "m"}},
    )
    services.tasks.wait_idle()
    return library_id


def extract(d: Dispatcher, services: Services, library_id: str, strategy: str) -> None:
    info = call(d, GRAPH_GET.name, {"libraryId": library_id})
    settings_ = {**info["settings"], "strategy": strategy, "modelConcurrency": 2}
    call(d, GRAPH_UPDATE.name, {"libraryId": library_id, "settings": settings_})
    call(d, GRAPH_EXTRACT.name, {"libraryId": library_id})
    services.tasks.wait_idle(60)


def assert_consistent(conn: Any) -> None:
    stale = conn.execute(
        "SELECT count(*) FROM graph_evidence v LEFT JOIN chunks c ON c.seq = v.chunk_seq"
        " WHERE c.seq IS NULL OR c.enabled = 0 OR c.role = 'parent'"
    ).fetchone()[0]
    assert stale == 0, "evidence points at a missing, disabled or parent chunk"
    names: dict[str, set[str]] = {}
    for entity_id, name in conn.execute("SELECT id, name FROM graph_entities"):
        names.setdefault(entity_id, set()).add(normalise_name(name))
    for entity_id, alias in conn.execute("SELECT entity_id, alias FROM graph_aliases"):
        names.setdefault(entity_id, set()).add(normalise_name(alias))
    for content, start, end, entity_id in conn.execute(
        'SELECT c.content, v.start, v."end", v.entity_id FROM graph_evidence v'
        " JOIN chunks c ON c.seq = v.chunk_seq WHERE v.entity_id IS NOT NULL"
    ):
        assert 0 <= start < end <= len(content)
        assert normalise_name(content[start:end]) in names[entity_id], (content, start, end)
    for content, start, end, head, tail in conn.execute(
        'SELECT c.content, v.start, v."end", r.head_id, r.tail_id FROM graph_evidence v'
        " JOIN chunks c ON c.seq = v.chunk_seq JOIN graph_relations r ON r.id = v.relation_id"
    ):
        assert 0 <= start < end <= len(content)
        span = normalise_name(content[start:end])
        for end_id in (head, tail):
            assert any(n in span for n in names[end_id]), (span, names[end_id])
    # a chunk remembered as read by the model was read from its current text
    changed = conn.execute(
        "SELECT count(*) FROM graph_model_done m JOIN chunks c ON c.seq = m.chunk_seq"
        " WHERE c.checksum != m.checksum OR c.enabled = 0"
    ).fetchone()[0]
    assert changed == 0
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


OPS = ["edit", "disable", "enable", "delete", "rewrite_and_rebuild", "rebuild", "local", "model"]
_variants = itertools.count(10)


@pytest.mark.integration
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 60)), min_size=1, max_size=10))
def test_maintenance_and_extraction_never_leave_stale_evidence(
    dispatcher: Dispatcher,
    services: Services,
    kb: str,
    tmp_path: Path,
    ops: list[tuple[str, int]],
) -> None:
    conn = services.db.get()
    if call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["settings"]["strategy"] == "off":
        extract(dispatcher, services, kb, "local")
    for op, n in ops:
        rows = conn.execute(
            "SELECT c.id, c.document_id, c.enabled, d.relative_path FROM chunks c"
            " JOIN documents d ON d.id = c.document_id WHERE c.role != 'parent' ORDER BY c.seq"
        ).fetchall()
        if not rows:
            break
        chunk_id, document_id, _enabled, path = rows[n % len(rows)]
        target = {"libraryId": kb, "documentId": document_id, "chunkId": chunk_id}
        if op == "edit":
            # keeps some names, moves others: old offsets would now point at other text
            text = f"第{n}条：{SENTENCES[n % len(SENTENCES)]}另见{list(NAMES)[n % len(NAMES)]}。"
            call(dispatcher, CHUNK_UPDATE.name, {**target, "content": text})
        elif op in ("disable", "enable"):
            call(dispatcher, CHUNK_UPDATE.name, {**target, "enabled": op == "enable"})
        elif op == "delete":
            call(dispatcher, CHUNK_DELETE.name, target)
        elif op in ("rebuild", "rewrite_and_rebuild"):
            if op == "rewrite_and_rebuild":
                body = document(next(_variants))
                (tmp_path / "kb" / path).write_text(
                    re.sub("制度", "规定", body, count=n % 2), "utf-8"
                )
            call(dispatcher, DOCUMENT_REBUILD.name, {"libraryId": kb, "documentId": document_id})
        else:
            extract(dispatcher, services, kb, op)
        services.tasks.wait_idle(60)
        assert_consistent(conn)
