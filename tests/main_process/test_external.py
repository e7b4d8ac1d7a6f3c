"""`external:*` through the dispatcher: exposure, scope and the call record, re-read per call."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts.limits import MAX_EXTERNAL_CALL_RECORDS, MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.methods import (
    EXTERNAL_CALLS_RECORD,
    EXTERNAL_CALLS_SUMMARY,
    EXTERNAL_LIBRARIES,
    EXTERNAL_REFERENCE,
    EXTERNAL_SEARCH,
    LIBRARY_CREATE,
    LIBRARY_LIST,
    SETTINGS_GET,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from tests.dispatch import call, fail


def library(d: Dispatcher, name: str, exposed: bool) -> str:
    library_id = str(call(d, LIBRARY_CREATE.name, {"name": name})["library"]["id"])
    if exposed:
        call(d, SETTINGS_UPDATE.name, {"libraryId": library_id, "externalAccess": True})
    return library_id


def names(d: Dispatcher, **params: Any) -> list[str]:
    return [x["name"] for x in call(d, EXTERNAL_LIBRARIES.name, params)["libraries"]]


def test_new_libraries_are_private_until_switched_on(dispatcher: Dispatcher) -> None:
    library_id = library(dispatcher, "Policies", exposed=False)
    assert call(dispatcher, LIBRARY_LIST.name, {})["libraries"][0]["externalAccess"] is False
    assert call(dispatcher, SETTINGS_GET.name, {"libraryId": library_id})["externalAccess"] is False
    assert names(dispatcher) == []
    assert (
        "no library is available"
        in fail(dispatcher, EXTERNAL_SEARCH.name, {"query": "q"})["message"]
    )
    call(dispatcher, SETTINGS_UPDATE.name, {"libraryId": library_id, "externalAccess": True})
    assert names(dispatcher) == ["Policies"]
    settings = call(dispatcher, SETTINGS_GET.name, {"libraryId": library_id})
    assert settings["externalAccess"] is True and settings["settingsPendingRebuild"] is False


def test_names_resolve_case_insensitively_and_scope_only_narrows(dispatcher: Dispatcher) -> None:
    library(dispatcher, "Policies", exposed=True)
    library(dispatcher, "Manuals", exposed=True)
    library(dispatcher, "Private", exposed=False)
    found = call(dispatcher, EXTERNAL_SEARCH.name, {"query": "q", "libraries": ["policies"]})
    assert [x["name"] for x in found["libraries"]] == ["Policies"]
    assert names(dispatcher, scope=["manuals"]) == ["Manuals"]
    assert names(dispatcher, scope=["Private"]) == [], "a scope cannot widen"
    refused = fail(
        dispatcher,
        EXTERNAL_SEARCH.name,
        {"query": "q", "libraries": ["Policies"], "scope": ["Manuals"]},
    )
    assert refused["code"] == "not_found" and "Policies" in refused["message"]
    hidden = fail(dispatcher, EXTERNAL_SEARCH.name, {"query": "q", "libraries": ["Private"]})
    missing = fail(dispatcher, EXTERNAL_SEARCH.name, {"query": "q", "libraries": ["Nope"]})
    assert hidden["message"].replace("Private", "X") == missing["message"].replace("Nope", "X")


def test_more_exposed_libraries_than_one_search_may_use(dispatcher: Dispatcher) -> None:
    for i in range(MAX_LIBRARIES_PER_REQUEST + 1):
        library(dispatcher, f"L{i:02d}", exposed=True)
    refused = fail(dispatcher, EXTERNAL_SEARCH.name, {"query": "q"})
    assert refused["code"] == "invalid_request" and "at most 20" in refused["message"]
    narrowed = call(dispatcher, EXTERNAL_SEARCH.name, {"query": "q", "libraries": ["L00", "L01"]})
    assert len(narrowed["libraries"]) == 2


def test_reference_ids_are_checked_before_anything_is_read(dispatcher: Dispatcher) -> None:
    private = library(dispatcher, "Private", exposed=False)
    malformed = fail(dispatcher, EXTERNAL_REFERENCE.name, {"citationId": "../etc/passwd"})
    assert malformed["code"] == "invalid_request"
    hidden = fail(
        dispatcher, EXTERNAL_REFERENCE.name, {"citationId": f"{private}:{'b' * 32}:{'c' * 32}"}
    )
    assert hidden["code"] == "not_found" and "not from a library available" in hidden["message"]


def test_the_call_record_is_bounded_and_summarised(dispatcher: Dispatcher) -> None:
    calls = [
        {
            "tool": "knowledge_search",
            "ok": i % 4 != 0,
            "errorCode": None if i % 4 else "not_found",
            "ms": float(i),
        }
        for i in range(200)
    ]
    for _ in range(6):
        assert call(dispatcher, EXTERNAL_CALLS_RECORD.name, {"calls": calls})["recorded"] == 200
    call(
        dispatcher,
        EXTERNAL_CALLS_RECORD.name,
        {"calls": [{"tool": "list_libraries", "ok": True, "ms": 1.5}]},
    )
    summary = call(dispatcher, EXTERNAL_CALLS_SUMMARY.name, {})
    assert summary["totalCalls"] == MAX_EXTERNAL_CALL_RECORDS
    stats = {s["tool"]: s for s in summary["tools"]}
    assert stats["list_libraries"]["calls"] == 1 and stats["list_libraries"]["p50Ms"] == 1.5
    assert stats["knowledge_search"]["calls"] == MAX_EXTERNAL_CALL_RECORDS - 1
    assert stats["get_reference_context"] == {
        "tool": "get_reference_context",
        "calls": 0,
        "errors": 0,
        "p50Ms": None,
        "lastAt": None,
    }
    bad = fail(
        dispatcher, EXTERNAL_CALLS_RECORD.name, {"calls": [{"tool": "rm -rf", "ok": True, "ms": 1}]}
    )
    assert bad["code"] == "invalid_request"
