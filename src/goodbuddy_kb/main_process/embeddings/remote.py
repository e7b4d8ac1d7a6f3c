"""Remote providers over HTTP: OpenAI-compatible `/v1/embeddings` and Ollama `/api/embed`.

Every failure becomes an ``unavailable``/``timeout`` error with a redacted reason; the key
travels only in the Authorization header and never appears in an error.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import numpy as np

from goodbuddy_kb.contracts.errors import TimeoutError_, UnavailableError
from goodbuddy_kb.main_process import netio
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix, l2_normalise

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
#: Largest vector component taken as meaningful (real ones are within a few units; anything
#: near float32's range would overflow the similarity arithmetic).
MAX_ABS_COMPONENT = 1e6


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
        self._timeout = timeout_s
        self._client = netio.client(timeout_s, headers)

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
            # One total deadline for connect, headers and body: a trickling server cannot
            # stretch a request past the configured timeout.
            with (
                netio.deadline(self._timeout),
                self._client.stream("POST", url, json=body) as response,
            ):
                if response.status_code >= 400:
                    error = UnavailableError(
                        f"the embedding service answered HTTP {response.status_code}"
                    )
                    error.says = netio.service_says(response)
                    raise error
                content = netio.read_body(response, MAX_RESPONSE_BYTES)
        except httpx.TimeoutException as exc:
            raise TimeoutError_(
                f"the embedding service did not answer in time ({self._timeout:.0f} s)"
            ) from exc
        except httpx.HTTPError as exc:
            raise UnavailableError(
                f"the embedding service cannot be reached ({exc.__class__.__name__})"
            ) from exc
        except netio.BodyTooLarge as exc:
            raise UnavailableError("the embedding service's answer is too large") from exc
        except netio.BadEncoding as exc:
            raise UnavailableError(f"the embedding service's answer is unreadable ({exc})") from exc
        try:
            return json.loads(content)
        except (ValueError, RecursionError) as exc:
            raise UnavailableError("the embedding service sent malformed JSON") from exc

    def _check(self, vectors: Any, expected: int) -> Matrix:
        try:
            wide = np.asarray(vectors, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise UnavailableError(
                "the embedding service sent vectors that are not numbers"
            ) from exc
        if wide.ndim != 2 or wide.shape[0] != expected:
            raise UnavailableError("the embedding service sent the wrong number of vectors")
        if self._dims is not None and wide.shape[1] != self._dims:
            raise UnavailableError(
                f"the embedding service sent {wide.shape[1]}-dimensional vectors; {self._dims} were expected"
            )
        if not np.isfinite(wide).all() or (np.abs(wide) > MAX_ABS_COMPONENT).any():
            raise UnavailableError("the embedding service sent non-finite or absurd values")
        matrix: Matrix = wide.astype(np.float32)
        if matrix.shape[1] == 0 or (np.ptp(matrix, axis=1) == 0).any():
            # An all-zero or constant vector carries no meaning: every similarity to it is the
            # same, so it would match everything (or nothing) equally.
            raise UnavailableError(
                "the embedding service sent an empty (all-zero or constant) vector"
            )
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
