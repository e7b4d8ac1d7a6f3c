"""The embedding provider interface and the fingerprint that ties vectors to their maker.

Fingerprint = provider kind + normalised endpoint + model + dimensions + encoding (prefix scheme,
normalisation). The same model name at a different endpoint is a different fingerprint, so old
vectors are never mixed with new ones.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]


def normalise_endpoint(url: str | None) -> str:
    if not url:
        return ""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    port = parts.port
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host if port in (None, default) else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


def fingerprint(kind: str, endpoint: str | None, model: str, dims: int, encoding: str) -> str:
    key = "\x1f".join((kind, normalise_endpoint(endpoint), model, str(dims), encoding))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def l2_normalise(matrix: Matrix) -> Matrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Matrix = (matrix / norms).astype(np.float32, copy=False)
    return out


class EmbeddingProvider(ABC):
    kind: str
    model: str
    endpoint: str | None = None
    encoding: str = "raw;l2"
    batch_size: int = 32

    @property
    @abstractmethod
    def dimensions(self) -> int: ...

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.kind, self.endpoint, self.model, self.dimensions, self.encoding)

    @property
    def known_dimensions(self) -> int | None:
        """The dimensions when known without asking a remote service."""
        return self.dimensions

    def fingerprint_for(self, version_dims: int | None) -> str:
        """The fingerprint, taking an index's dimensions when this provider's are not known
        without asking its (possibly unreachable) endpoint."""
        dims = self.known_dimensions or version_dims or 0
        return fingerprint(self.kind, self.endpoint, self.model, dims, self.encoding)

    def compatible_with(self, version_fingerprint: str, version_dims: int) -> bool:
        """Whether an index version was built by this provider, without probing its endpoint."""
        return self.fingerprint_for(version_dims) == version_fingerprint

    def variant_for(self, fingerprint: str, dims: int) -> EmbeddingProvider | None:
        """The provider that embeds queries and new chunks for an index version with this
        fingerprint: this one when it built it, a sibling encoding of the same model where the
        provider keeps one (the bundled model's float32 and int8 encoders), else None."""
        return self if self.compatible_with(fingerprint, dims) else None

    def upgrade_offered(self, fingerprint: str, dims: int) -> bool:
        """Whether an index this provider can still serve (through a sibling encoding) was made
        by another encoding than today's: it is offered a rebuild, never rebuilt by itself."""
        return not self.compatible_with(fingerprint, dims) and (
            self.variant_for(fingerprint, dims) is not None
        )

    def fingerprint_serving(self, version_fingerprint: str | None, dims: int | None) -> str:
        """The fingerprint a library's documents are measured against: that of the current
        version's maker when this provider still serves it (:meth:`variant_for`), else its own."""
        if version_fingerprint is not None and dims is not None:
            maker = self.variant_for(version_fingerprint, dims)
            if maker is not None:
                return maker.fingerprint_for(dims)
        return self.fingerprint_for(dims)

    @property
    def label(self) -> str:
        where = f" @ {normalise_endpoint(self.endpoint)}" if self.endpoint else ""
        return f"{self.kind}: {self.model}{where}"

    @property
    def passage_batch(self) -> int:
        """Chunks to hand to one :meth:`embed_passages` call during vectorisation."""
        return self.batch_size

    @abstractmethod
    def embed_passages(self, texts: list[str]) -> Matrix: ...

    @abstractmethod
    def embed_query(self, text: str) -> Matrix: ...

    def embed_passages_now(self, texts: list[str]) -> Matrix:
        """Passages embedded for a search under way (``retrieval/closeness.py``): a provider
        that queues its batches behind an index's runs them at once here."""
        return self.embed_passages(texts)

    def load(self) -> None:
        """Make the provider ready (a local model loads its weights); cheap when it is."""
        return None

    def close(self) -> None:
        return None
