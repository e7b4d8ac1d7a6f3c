"""The MCP server's link to a real backend: a search whose caller is cancelled is stopped in the
backend too, its late reply is dropped, and the next search gets its own answer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.external import ExternalSearchRequest
from goodbuddy_kb.contracts.methods import SETTINGS_UPDATE
from goodbuddy_kb.mcp_server.link import BackendLink
from tests.bridge.helpers import library_with_docs, session, use_remote
from tests.servers.embedserver import Script, openai_server

pytestmark = pytest.mark.integration


def test_a_cancelled_search_is_stopped_in_the_backend(data_dir: Path, tmp_path: Path) -> None:
    script = Script()
    with openai_server(script) as base, session(data_dir) as (_backend, client):
        use_remote(client, base)
        library_id = library_with_docs(client, tmp_path / "docs")
        client.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(library_id=library_id, external_access=True),
        )
        script.delay_s = 2.0  # the query embedding now takes two seconds

        async def main() -> None:
            link = BackendLink(data_dir)
            try:
                slow = asyncio.ensure_future(link.search(ExternalSearchRequest(query="topic1x3")))
                await asyncio.sleep(0.5)
                slow.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await slow
                assert link.last_cancel is not None
                assert await link.last_cancel, "the backend still had the search, and stopped it"
                script.delay_s = 0.0
                found = await link.search(ExternalSearchRequest(query="topic2x3"))
                assert found.retrieval.query == "topic2x3"
                assert found.retrieval.results[0].document_path == "doc2.md"
                assert not link.started_backend
            finally:
                link.close_stream()
                link.close()

        asyncio.run(main())
