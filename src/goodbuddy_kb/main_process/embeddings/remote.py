"""Remote providers over HTTP: OpenAI-compatible `/v1/embeddings` and Ollama `/api/embed`.

Every failure becomes an ``unavailable``/``timeout`` error with a redacted reason; the key
travels only in the Authorization header and never appears in an error.
"""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np

from goodbuddy_kb.contracts.errors import TimeoutError_, UnavailableError
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix, l2_normalise

MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class _HttpProvider(EmbeddingProvider):
    path = ""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None,
        dims: int | None,
        batch_size: int,
        timeout_s: float,
    ) -> None:
        self.base = base_url.rstrip("/")
        self.endpoint = self.base
        self.model = model
        self._dims = dims
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s), headers=headers, trust_env=False
        )

    @property
    def dimensions(self) -> int:
        if self._dims is None:
            self._dims = int(self.embed_passages(["dimension probe"]).shape[1])
        return self._dims

    @property
    def known_dimensions(self) -> int | None:
        return self._dims

    def _post(self, body: dict[str, Any]) -> Any:
        url = f"{self.base}{self.path}"
        try:
            response = self._client.post(url, json=body)
        except httpx.TimeoutException as exc:
            raise TimeoutError_("the embedding service did not answer in time") from exc
        except httpx.HTTPError as exc:
            raise UnavailableError(
                f"the embedding service cannot be reached ({exc.__class__.__name__})"
            ) from exc
        if response.status_code >= 400:
            raise UnavailableError(f"the embedding service answered HTTP {response.status_code}")
        if len(response.content) > MAX_RESPONSE_BYTES:
            raise UnavailableError("the embedding service's answer is too large")
        try:
            return response.json()
        except ValueError as exc:
            raise UnavailableError("the embedding service sent malformed JSON") from exc

    def _check(self, vectors: Any, expected: int) -> Matrix:
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise UnavailableError(
                "the embedding service sent vectors that are not numbers"
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != expected:
            raise UnavailableError("the embedding service sent the wrong number of vectors")
        if self._dims is not None and matrix.shape[1] != self._dims:
            raise UnavailableError(
                f"the embedding service sent {matrix.shape[1]}-dimensional vectors; {self._dims} were expected"
            )
        if not np.isfinite(matrix).all():
            raise UnavailableError("the embedding service sent non-finite values")
        return l2_normalise(matrix)

    def embed_query(self, text: str) -> Matrix:
        out: Matrix = self.embed_passages([text])[0]
        return out

    def close(self) -> None:
        self._client.close()


class OpenAICompatibleProvider(_HttpProvider):
    kind = "openai-compatible"
    path = "/embeddings"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.base.endswith("/v1"):
            self.path = "/v1/embeddings"

    def embed_passages(self, texts: list[str]) -> Matrix:
        body: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self._dims is not None:
            body["dimensions"] = self._dims
        payload = self._post(body)
        try:
            data = sorted(payload["data"], key=lambda d: d.get("index", 0))
            vectors = [d["embedding"] for d in data]
        except (KeyError, TypeError, AttributeError) as exc:
            raise UnavailableError("the embedding service's answer has no embeddings") from exc
        return self._check(vectors, len(texts))


class OllamaProvider(_HttpProvider):
    kind = "ollama"
    path = "/api/embed"

    def embed_passages(self, texts: list[str]) -> Matrix:
        payload = self._post({"model": self.model, "input": texts})
        try:
            vectors = payload["embeddings"]
        except (KeyError, TypeError) as exc:
            raise UnavailableError("the Ollama answer has no embeddings") from exc
        return self._check(vectors, len(texts))
