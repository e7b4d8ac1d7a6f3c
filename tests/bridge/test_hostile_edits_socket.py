"""Hostile or unlucky edits over the real socket against a real backend process: each gets a clear,
coded refusal or just works, and the backend keeps serving."""

from __future__ import annotations

from typing import Any

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY_CREATE,
    GRAPH_ENTITY_UPDATE,
    LIBRARY_CREATE,
    LIBRARY_LIST,
)
from goodbuddy_kb.contracts.wire import encode_frame, request_message

pytestmark = pytest.mark.integration


def raw(client: BlockingClient, name: str, params: dict[str, Any]) -> dict[str, Any]:
    client.send_raw(encode_frame(request_message(992, name, params)))
    reply = client.read_message(timeout=20)
    while reply.get("id") != 992:
        reply = client.read_message(timeout=20)
    return reply


def new_library(client: BlockingClient, name: str) -> str:
    return client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id


def test_a_huge_alias_is_refused_and_the_backend_lives(
    client: BlockingClient, backend: BackendProcess
) -> None:
    library_id = new_library(client, "Aliases")
    huge = "部" * 200_000
    for method, params in (
        (
            GRAPH_ENTITY_CREATE.name,
            {
                "libraryId": library_id,
                "typeKey": "organization",
                "name": "财务部",
                "aliases": [huge],
            },
        ),
        (
            GRAPH_ENTITY_CREATE.name,
            {"libraryId": library_id, "typeKey": "organization", "name": huge},
        ),
    ):
        reply = raw(client, method, params)
        assert reply["error"]["data"]["code"] == "invalid_request", reply
        assert "200" in reply["error"]["data"]["message"] or reply["error"]["data"]["details"]
    assert backend.alive()
    # A name at the cap is fine, and so is searching afterwards (the matcher is built).
    created = client.call(
        GRAPH_ENTITY_CREATE,
        g.EntityCreateRequest(
            library_id=library_id, type_key="organization", name="财务部", aliases=["财" * 200]
        ),
    )
    reply = raw(
        client,
        GRAPH_ENTITY_UPDATE.name,
        {"libraryId": library_id, "entityId": created.entity.id, "addAliases": [huge]},
    )
    assert reply["error"]["data"]["code"] == "invalid_request", reply
    listed = client.call(GRAPH_ENTITIES, g.EntitiesListRequest(library_id=library_id))
    assert [e.name for e in listed.entities] == ["财务部"]
    assert backend.alive()


def test_first_entity_in_a_library_whose_graph_was_never_opened(client: BlockingClient) -> None:
    library_id = new_library(client, "Fresh graph")
    created = client.call(
        GRAPH_ENTITY_CREATE,
        g.EntityCreateRequest(library_id=library_id, type_key="organization", name="人事部"),
    )
    assert created.entity.name == "人事部"
    listed = client.call(GRAPH_ENTITIES, g.EntitiesListRequest(library_id=library_id))
    assert [e.name for e in listed.entities] == ["人事部"]


def test_a_lone_surrogate_in_a_library_name_is_a_field_error(
    client: BlockingClient, backend: BackendProcess
) -> None:
    # JSON may carry a lone surrogate as an escape; Python decodes it to an unpaired code point.
    frame = (
        b'{"jsonrpc":"2.0","id":993,"method":"'
        + LIBRARY_CREATE.name.encode()
        + b'","params":{"name":"bad\\ud800name"}}'
    )
    client.send_raw(len(frame).to_bytes(4, "big") + frame)
    reply = client.read_message(timeout=20)
    while reply.get("id") != 993:
        reply = client.read_message(timeout=20)
    error = reply["error"]["data"]
    assert error["code"] == "invalid_request", error
    assert "Traceback" not in error["message"] and "name" in str(error["details"])
    assert backend.alive()
    assert client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries == []
