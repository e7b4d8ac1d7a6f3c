"""The method table through the transport-free dispatcher (the socket tests repeat the rules)."""

from __future__ import annotations

from typing import Any

import pytest

from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    LIBRARY_RENAME,
    METHODS,
    SETTINGS_GET,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.wire import request_message
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.handlers import REGISTRY


def call(d: Dispatcher, name: str, params: dict[str, Any]) -> dict[str, Any]:
    return d.dispatch(request_message(1, name, params)).reply


def ok(d: Dispatcher, name: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = call(d, name, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def err(d: Dispatcher, name: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = call(d, name, params)
    assert "error" in reply, reply
    data: dict[str, Any] = reply["error"]["data"]
    return data


def test_every_method_has_exactly_one_handler() -> None:
    assert set(REGISTRY) == set(METHODS)


def test_library_lifecycle(dispatcher: Dispatcher) -> None:
    lib = ok(dispatcher, LIBRARY_CREATE.name, {"name": "  公司制度  "})["library"]
    assert lib["name"] == "公司制度"
    assert err(dispatcher, LIBRARY_CREATE.name, {"name": "公司制度"})["code"] == "conflict"
    other = ok(dispatcher, LIBRARY_CREATE.name, {"name": "Manuals"})["library"]
    names = [x["name"] for x in ok(dispatcher, LIBRARY_LIST.name, {})["libraries"]]
    assert names == ["Manuals", "公司制度"]
    # a case-only rename of a library to its own name is allowed
    renamed = ok(dispatcher, LIBRARY_RENAME.name, {"libraryId": other["id"], "name": "manuals"})
    assert renamed["library"]["name"] == "manuals"
    assert (
        err(dispatcher, LIBRARY_RENAME.name, {"libraryId": other["id"], "name": "公司制度"})["code"]
        == "conflict"
    )
    deleted = ok(dispatcher, LIBRARY_DELETE.name, {"libraryId": lib["id"]})
    assert deleted == {"libraryId": lib["id"], "name": "公司制度"}
    assert err(dispatcher, LIBRARY_DELETE.name, {"libraryId": lib["id"]})["code"] == "not_found"
    assert [x["id"] for x in ok(dispatcher, LIBRARY_LIST.name, {})["libraries"]] == [other["id"]]


def test_settings_update_and_pending_rebuild(dispatcher: Dispatcher) -> None:
    lib = ok(dispatcher, LIBRARY_CREATE.name, {"name": "A"})["library"]
    s = ok(dispatcher, SETTINGS_GET.name, {"libraryId": lib["id"]})
    assert s["retrieval"]["topK"] == 6 and s["settingsPendingRebuild"] is False
    retrieval = {**s["retrieval"], "topK": 10}
    s2 = ok(dispatcher, SETTINGS_UPDATE.name, {"libraryId": lib["id"], "retrieval": retrieval})
    assert s2["retrieval"]["topK"] == 10
    assert s2["settingsPendingRebuild"] is False, "retrieval settings apply at once"
    same = ok(dispatcher, SETTINGS_UPDATE.name, {"libraryId": lib["id"], "chunking": s["chunking"]})
    assert same["settingsPendingRebuild"] is False, "an unchanged chunking setting needs no rebuild"
    chunking = {**s["chunking"], "mode": "parent-child"}
    s3 = ok(dispatcher, SETTINGS_UPDATE.name, {"libraryId": lib["id"], "chunking": chunking})
    assert s3["chunking"]["mode"] == "parent-child" and s3["settingsPendingRebuild"] is True
    assert s3["retrieval"]["topK"] == 10
    listed = ok(dispatcher, LIBRARY_LIST.name, {})["libraries"][0]
    assert listed["settingsPendingRebuild"] is True


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        (LIBRARY_CREATE.name, {"name": ""}, "name"),
        (LIBRARY_CREATE.name, {"name": "x" * 101}, "name"),
        (LIBRARY_CREATE.name, {"name": "bad\x00name"}, "name"),
        (LIBRARY_CREATE.name, {"name": "ok", "extra": 1}, "extra"),
        (LIBRARY_CREATE.name, {}, "name"),
        (SETTINGS_GET.name, {"libraryId": "../../etc"}, "libraryId"),
        (SETTINGS_UPDATE.name, {"libraryId": "0" * 32, "retrieval": {"topK": 0}}, "retrieval.topK"),
    ],
)
def test_invalid_params_name_the_field(
    dispatcher: Dispatcher, method: str, params: dict[str, Any], field: str
) -> None:
    data = err(dispatcher, method, params)
    assert data["code"] == "invalid_request"
    assert field in [f["field"] for f in data["details"]["fields"]]
    assert "bad\x00name" not in str(data), "input values are never echoed"


def test_unknown_method_and_bad_envelope(dispatcher: Dispatcher) -> None:
    assert err(dispatcher, "knowledge:nope", {})["code"] == "not_found"
    reply = dispatcher.dispatch({"id": 1, "method": LIBRARY_LIST.name}).reply
    assert reply["error"]["data"]["code"] == "invalid_request"
    reply = dispatcher.dispatch(
        {"jsonrpc": "2.0", "id": 1, "method": LIBRARY_LIST.name, "params": []}
    ).reply
    assert reply["error"]["data"]["code"] == "invalid_request"


def test_settings_of_unknown_library_is_not_found(dispatcher: Dispatcher) -> None:
    assert err(dispatcher, SETTINGS_GET.name, {"libraryId": "0" * 32})["code"] == "not_found"


def test_corrupt_stored_settings_fall_back_to_defaults(dispatcher: Dispatcher, pool: Any) -> None:
    lib = ok(dispatcher, LIBRARY_CREATE.name, {"name": "Old"})["library"]
    pool.get().execute(
        'UPDATE libraries SET retrieval_settings = \'{"version": 0, "k": 3}\' WHERE id = ?',
        (lib["id"],),
    )
    assert ok(dispatcher, SETTINGS_GET.name, {"libraryId": lib["id"]})["retrieval"]["topK"] == 6
