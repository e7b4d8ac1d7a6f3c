"""The bundled model's default encoder changing from float32 to int8, over the real socket: a
library float32 built keeps retrieving with float32 query vectors (the same similarities as
before the switch), says it is offered a rebuild, and after the rebuild is int8's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    RETRIEVE,
    VECTORS_REBUILD,
    VECTORS_STATUS,
)
from goodbuddy_kb.main_process.embeddings.e5_int8 import int8_supported
from goodbuddy_kb.main_process.embeddings.local import ENV_ENCODER
from tests.bridge.helpers import library_with, wait_idle

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,  # three backends, the bundled model loaded by each (about 10 s when quiet)
    pytest.mark.skipif(not int8_supported(), reason="no integer dot products here"),
]

QUERY = "一线城市出差每晚住宿上限是多少？"


@contextmanager
def backend(data_dir: Path) -> Iterator[BlockingClient]:
    process = BackendProcess.start(data_dir)
    try:
        with BlockingClient(process.endpoint.server_name, process.endpoint.secret, "t").open() as c:
            yield c
    finally:
        process.stop()


def vector_hit(client: BlockingClient, library_id: str) -> r.RetrievalResult:
    res = client.call(
        RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=QUERY, channels=["vector"])
    )
    assert not res.diagnostics.degraded_channels, res.diagnostics.degraded_channels
    hits = [*res.results, *res.below_floor]  # one small document: maybe under the floor
    assert hits and hits[0].vector_similarity is not None
    return hits[0]


def test_a_float32_library_keeps_serving_after_int8_becomes_the_default(
    opened_log: Path, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_ENCODER, "float32")
    with backend(data_dir) as client:
        client.call(
            EMBEDDING_UPDATE,
            m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="local")),
        )
        library_id = library_with(client, tmp_path / "docs")
        before = vector_hit(client, library_id)
    monkeypatch.setenv(ENV_ENCODER, "int8")  # int8 becomes the default
    with backend(data_dir) as client:
        status = client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
        assert status.compatible and status.rebuild_offered
        assert status.reason_code == "vector.encoder_upgrade"
        served = vector_hit(client, library_id)
        assert served.chunk_id == before.chunk_id
        # the query was embedded by float32, the encoder that built the index
        assert served.vector_similarity == pytest.approx(before.vector_similarity, abs=1e-5)
        client.call(VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
        wait_idle(client)
        status = client.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id))
        assert status.compatible and not status.rebuild_offered and status.reason is None
        rebuilt = vector_hit(client, library_id)
        assert rebuilt.chunk_id == before.chunk_id
        assert rebuilt.vector_similarity != pytest.approx(before.vector_similarity, abs=1e-5)
