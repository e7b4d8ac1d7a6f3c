"""An external-tool connection (the MCP server's) over the real socket: it may call only the
`external:*` methods, so it cannot write knowledge or read an unexposed library another way."""

from __future__ import annotations

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.errors import UnauthorizedError
from goodbuddy_kb.contracts.external import ExternalLibrariesRequest
from goodbuddy_kb.contracts.methods import (
    EXTERNAL_LIBRARIES,
    LIBRARY_CREATE,
    LIBRARY_LIST,
    METHODS,
    RETRIEVE,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.retrieval import RetrieveRequest
from goodbuddy_kb.contracts.wire import EXTERNAL_CLIENT

pytestmark = pytest.mark.integration


def test_an_external_connection_is_held_to_the_external_methods(
    backend: BackendProcess, client: BlockingClient
) -> None:
    private = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Private")).library
    endpoint = backend.endpoint
    with BlockingClient(endpoint.server_name, endpoint.secret, EXTERNAL_CLIENT).open() as tool:
        assert tool.call(EXTERNAL_LIBRARIES, ExternalLibrariesRequest()).libraries == []
        refused = [
            lambda: tool.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Sneaky")),
            lambda: tool.call(LIBRARY_LIST, lib.LibraryListRequest()),
            lambda: tool.call(RETRIEVE, RetrieveRequest(library_ids=[private.id], query="x")),
            lambda: tool.call(
                SETTINGS_UPDATE,
                lib.SettingsUpdateRequest(library_id=private.id, external_access=True),
            ),
        ]
        for attempt in refused:
            with pytest.raises(UnauthorizedError):
                attempt()
        # ...and the connection still serves what it may.
        assert tool.call(EXTERNAL_LIBRARIES, ExternalLibrariesRequest()).libraries == []
    names = [x.name for x in client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries]
    assert names == ["Private"]
    assert not client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries[0].external_access


def test_only_reads_and_the_call_record_are_external() -> None:
    external = {name for name, spec in METHODS.items() if spec.external}
    assert external == {
        "external:libraries",
        "external:search",
        "external:cancel",
        "external:reference",
        "external:calls:record",
    }
    assert [n for n in external if METHODS[n].mutates] == ["external:calls:record"]
