"""``StreamClient`` (the asyncio bridge client of the MCP server) against a real backend over
the real socket: the handshake, typed calls, the wire rules, overlapping calls, cancellation of
external searches, and a backend that goes away."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.bridge.streams import StreamClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.errors import (
    CancelledError,
    InvalidRequestError,
    UnauthorizedError,
    UnavailableError,
)
from goodbuddy_kb.contracts.external import (
    ExternalCancelRequest,
    ExternalLibrariesRequest,
    ExternalSearchRequest,
)
from goodbuddy_kb.contracts.methods import (
    EXTERNAL_CANCEL,
    EXTERNAL_LIBRARIES,
    EXTERNAL_SEARCH,
    LIBRARY_CREATE,
    RETRIEVE,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.wire import EXTERNAL_CLIENT, encode_frame, request_message
from tests.bridge.helpers import library_with_docs, session, use_remote
from tests.servers.embedserver import Script, openai_server

pytestmark = pytest.mark.integration


def external(backend: BackendProcess) -> StreamClient:
    endpoint = backend.endpoint
    return StreamClient(endpoint.server_name, endpoint.secret, EXTERNAL_CLIENT)


def expose(client: BlockingClient, library_id: str) -> None:
    client.call(
        SETTINGS_UPDATE, lib.SettingsUpdateRequest(library_id=library_id, external_access=True)
    )


def test_calls_overlap_and_a_wrong_secret_is_refused(
    backend: BackendProcess, client: BlockingClient
) -> None:
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Notes")).library.id
    expose(client, library_id)
    assert StreamClient.supported(backend.endpoint.server_name)

    async def main() -> None:
        tool = await external(backend).open()
        try:
            listed = await asyncio.gather(
                *(tool.call(EXTERNAL_LIBRARIES, ExternalLibrariesRequest()) for _ in range(5))
            )
            assert [[x.name for x in each.libraries] for each in listed] == [["Notes"]] * 5
            # The table's own validation, before anything is sent.
            with pytest.raises(InvalidRequestError):
                await tool.call(
                    EXTERNAL_SEARCH, ExternalSearchRequest.model_construct(query="", top_k=3)
                )
            # Held to the external methods, like every external connection.
            with pytest.raises(UnauthorizedError):
                await tool.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="x"))
            assert tool.connected
        finally:
            tool.close()
        endpoint = backend.endpoint
        with pytest.raises(UnauthorizedError):
            await StreamClient(endpoint.server_name, "0" * 64, EXTERNAL_CLIENT).open()

    asyncio.run(main())


def test_a_backend_that_goes_away_fails_the_waiting_call(data_dir: Path) -> None:
    backend = BackendProcess.start(data_dir)

    async def main() -> None:
        tool = await external(backend).open()
        waiting = asyncio.get_running_loop().run_in_executor(None, backend.kill)
        await waiting
        with pytest.raises(UnavailableError):
            await tool.call(EXTERNAL_LIBRARIES, ExternalLibrariesRequest())
        assert not tool.connected
        tool.close()

    try:
        asyncio.run(main())
    finally:
        if backend.alive():
            backend.stop()


def test_external_cancel_stops_an_external_search_and_nothing_else(
    data_dir: Path, tmp_path: Path
) -> None:
    script = Script()
    with openai_server(script) as base, session(data_dir) as (backend, client):
        use_remote(client, base)
        library_id = library_with_docs(client, tmp_path / "docs")
        expose(client, library_id)
        script.delay_s = 2.0  # each query embedding now takes two seconds

        # The window's own search, with an id: an external client cannot stop it.
        window_id = uuid.uuid4().hex
        window_search = r.RetrieveRequest(
            library_ids=[library_id], query="topic1x3", request_id=window_id
        ).to_wire()
        client.send_raw(encode_frame(request_message(901, RETRIEVE.name, window_search)))

        async def main() -> tuple[BaseException | object, float, bool, bool]:
            tool = await external(backend).open()
            try:
                search_id = uuid.uuid4().hex
                search = asyncio.ensure_future(
                    tool.call(
                        EXTERNAL_SEARCH,
                        ExternalSearchRequest(query="topic2x3", request_id=search_id),
                    )
                )
                await asyncio.sleep(0.5)  # both searches now wait on the embedding service
                not_ours = await tool.call(
                    EXTERNAL_CANCEL, ExternalCancelRequest(request_id=window_id)
                )
                started = time.perf_counter()
                ours = await tool.call(EXTERNAL_CANCEL, ExternalCancelRequest(request_id=search_id))
                try:
                    outcome: BaseException | object = await search
                except CancelledError as exc:
                    outcome = exc
                return outcome, time.perf_counter() - started, not_ours.cancelled, ours.cancelled
            finally:
                tool.close()

        outcome, waited, cancelled_window, cancelled_search = asyncio.run(main())
        assert cancelled_search and not cancelled_window
        assert isinstance(outcome, CancelledError), outcome
        assert waited < 3.0, "it ends once the embedding call returns, without scanning"
        reply = client.read_message(timeout=10)
        while reply.get("id") != 901:
            reply = client.read_message(timeout=10)
        assert "result" in reply, "the window's search ran to its end"
        assert reply["result"]["results"][0]["documentPath"] == "doc1.md"
