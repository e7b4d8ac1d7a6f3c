"""Helpers for the graph tests (plain functions): the travel and finance documents, turning a
library's local graph on and extracting it, and the check that every piece of evidence still
points into an enabled chunk's text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITY_CREATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_RELATION_CREATE,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    RETRIEVE,
    SOURCE_ADD,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call

TRAVEL = """# 差旅报销制度

## 审批

差旅报销制度由财务部审批。超过五千元的费用须经总经理办公室审批。

## 住宿

出差住宿标准：一线城市每晚不超过 600 元。
"""


FINANCE = """# 部门职责

财务部隶属于行政中心。报销系统依赖统一认证平台。

The Finance Department approves the Travel Policy.
"""


def turn_off(d: Dispatcher, library_id: str) -> None:
    """A new library's graph is local; the tests that start from "off" turn it off first."""
    info = call(d, GRAPH_GET.name, {"libraryId": library_id})
    call(
        d,
        GRAPH_UPDATE.name,
        {"libraryId": library_id, "settings": {**info["settings"], "strategy": "off"}},
    )


def folder_library(d: Dispatcher, folder: Path, name: str = "KB") -> str:
    """A new library with its graph off and ``folder`` added as its source (unwatched); the
    caller waits for the import."""
    library_id = str(call(d, LIBRARY_CREATE.name, {"name": name})["library"]["id"])
    turn_off(d, library_id)
    call(
        d,
        SOURCE_ADD.name,
        {"libraryId": library_id, "kind": "folder", "location": str(folder), "watch": False},
    )
    return library_id


class HandMadeGraph:
    """A library of ``notes`` (file name → text) whose graph is what a person entered: the
    model strategy runs nothing by itself, so a test does not depend on local extraction."""

    def __init__(self, d: Dispatcher, services: Services, folder: Path, notes: dict[str, str]):
        folder.mkdir()
        for name, text in notes.items():
            (folder / name).write_text(text, encoding="utf-8")
        self.d = d
        self.library_id = folder_library(d, folder, "Notes")
        services.tasks.wait_idle()
        settings = call(d, GRAPH_GET.name, {"libraryId": self.library_id})["settings"]
        call(
            d,
            GRAPH_UPDATE.name,
            {"libraryId": self.library_id, "settings": {**settings, "strategy": "model"}},
        )

    def entity(self, type_key: str, name: str) -> str:
        made = call(
            self.d,
            GRAPH_ENTITY_CREATE.name,
            {"libraryId": self.library_id, "typeKey": type_key, "name": name},
        )
        return str(made["entity"]["id"])

    def relation(self, type_key: str, head: str, tail: str) -> None:
        call(
            self.d,
            GRAPH_RELATION_CREATE.name,
            {"libraryId": self.library_id, "typeKey": type_key, "headId": head, "tailId": tail},
        )


def turn_on(d: Dispatcher, services: Services, library_id: str) -> dict[str, Any]:
    info = call(d, GRAPH_GET.name, {"libraryId": library_id})
    assert info["settings"]["strategy"] == "off"
    changed = call(
        d,
        GRAPH_UPDATE.name,
        {"libraryId": library_id, "settings": {**info["settings"], "strategy": "local"}},
    )
    assert changed["needsRebuild"], "a strategy change is never pretended to be applied"
    call(d, GRAPH_EXTRACT.name, {"libraryId": library_id})
    services.tasks.wait_idle()
    return call(d, GRAPH_GET.name, {"libraryId": library_id})


def extracted_library(
    d: Dispatcher, services: Services, folder: Path, docs: dict[str, str], name: str = "Theirs"
) -> str:
    """``docs`` written into ``folder``, imported as a folder source of a new library whose
    local graph is then switched on and extracted; the library's id."""
    folder.mkdir()
    for file_name, text in docs.items():
        (folder / file_name).write_text(text, encoding="utf-8")
    library_id = folder_library(d, folder, name)
    services.tasks.wait_idle()
    turn_on(d, services, library_id)
    return library_id


def assert_consistent(conn: Any) -> None:
    stale = conn.execute(
        "SELECT count(*) FROM graph_evidence v LEFT JOIN chunks c ON c.seq = v.chunk_seq"
        " WHERE c.seq IS NULL OR c.enabled = 0"
    ).fetchone()[0]
    assert stale == 0
    for content, start, end, name in conn.execute(
        'SELECT c.content, v.start, v."end", e.name FROM graph_evidence v JOIN chunks c'
        " ON c.seq = v.chunk_seq JOIN graph_entities e ON e.id = v.entity_id"
    ):
        assert content[start:end].casefold() in {name.casefold()} | alias_names(conn, name)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def alias_names(conn: Any, name: str) -> set[str]:
    return {
        r[0].casefold()
        for r in conn.execute(
            "SELECT a.alias FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id"
            " WHERE e.name = ?",
            (name,),
        )
    }


def ask(d: Dispatcher, library_id: str, query: str, **extra: Any) -> dict[str, Any]:
    """Retrieval over the library with no relevance floor: the order is what the graph tests ask
    about (the calibrated relevance knows lexical and vector features, not graph paths)."""
    res: dict[str, Any] = call(
        d,
        RETRIEVE.name,
        {
            "libraryIds": [library_id],
            "query": query,
            "overrides": {"minimumRelevance": 0.0},
            **extra,
        },
    )
    return res
