"""Contracts of model connections (the global embedding provider) and vector indexes."""

from __future__ import annotations

from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import Field, model_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.messages import Reason, code_fields

#: local = the bundled multilingual-e5-small (app-managed, no network); deterministic = a
#: hashing embedder for tests and evaluation gates; none = semantic search off.
EmbeddingKind = Literal["local", "openai-compatible", "ollama", "deterministic", "none"]


class EmbeddingConnection(ContractModel):
    kind: EmbeddingKind = "local"
    base_url: str | None = Field(None, max_length=2_000)
    model: str | None = Field(None, max_length=200)
    dimensions: int | None = Field(None, ge=8, le=8_192)
    batch_size: int = Field(32, ge=1, le=512)
    timeout_s: float = Field(30.0, ge=1.0, le=600.0)

    @model_validator(mode="after")
    def _remote_needs_endpoint(self) -> EmbeddingConnection:
        if self.kind in ("openai-compatible", "ollama") and not (self.base_url and self.model):
            raise ValueError(
                "the service address and the model are required for a remote embedding provider"
            )
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("the service address must start with http:// or https://")
        return self

    def data_path(self) -> Reason:
        return data_path(self.kind, self.base_url, self.model)


def data_path(kind: str, base_url: str | None, model: str | None) -> Reason:
    """Where document text goes with this provider, in plain words (shown beside the setting,
    for the saved connection and for the form as it is being edited)."""
    if kind == "none":
        return Reason("datapath.off")
    if kind == "local":
        return Reason("datapath.local")
    if kind == "deterministic":
        return Reason("datapath.deterministic")
    if not base_url:
        return Reason("datapath.remote_unset")
    if not model:
        return Reason("datapath.remote_no_model", url=base_url)
    return Reason("datapath.remote", url=base_url, model=model)


class EmbeddingInfo(ContractModel):
    """What the GUI may know: never the key, only whether one is stored."""

    connection: EmbeddingConnection
    has_api_key: bool
    #: The origin the stored key was saved for (``service_origin``); None without a key
    key_origin: str | None = None
    #: Plain words: which model, and where document text is sent.
    data_path: str
    fingerprint: str | None


class EmbeddingGetRequest(ContractModel):
    pass


def check_service_url(url: str | None) -> None:
    """A service address holds no credentials: a user name, password or key in it was saved and
    shown as the address ("no API key" beside it) and sent as Basic authentication, and a query
    ended up before the path the client adds. The key goes in the API key field."""
    if not url:
        return
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            "the service address must not hold credentials (a name or key before @);"
            " give the key as the API key"
        )
    if parts.query or parts.fragment:
        raise ValueError(
            "the service address must not have a query (?…) or a fragment (#…);"
            " give a key as the API key"
        )


def service_origin(url: str | None) -> str | None:
    """A service address's origin — scheme, host and port (the scheme's default filled in) — the
    unit a stored API key is bound to: a key saved for one origin is never sent to another on its
    own (``main_process/key_origin.py``). None for no address or one that does not parse."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    port = port or (443 if scheme == "https" else 80)
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


class ServiceRequest(ContractModel):
    """A request carrying a service address to save or to call (``connection.base_url`` or
    ``base_url``): refused when the address holds credentials (``check_service_url``)."""

    @model_validator(mode="after")
    def _plain_address(self) -> ServiceRequest:
        connection = getattr(self, "connection", None)
        if connection is not None:
            check_service_url(getattr(connection, "base_url", None))
        check_service_url(getattr(self, "base_url", None))
        return self


class EmbeddingUpdateRequest(ServiceRequest):
    connection: EmbeddingConnection
    #: Write-only. A new key replaces the stored one; "" removes it; omitted keeps it.
    api_key: str | None = Field(None, max_length=4_000)


class EmbeddingTestRequest(ServiceRequest):
    """Tests exactly this connection (the form's values) without saving anything.

    ``connection`` omitted: the saved connection. ``api_key`` omitted: the stored key; "" tests
    without a key; a value is used for this test only and never stored."""

    connection: EmbeddingConnection | None = None
    api_key: str | None = Field(None, max_length=4_000)


class EmbeddingTestResponse(ContractModel):
    ok: bool
    dimensions: int | None
    latency_ms: float | None
    error: str | None
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("error")


VectorIndexState = Literal["none", "building", "ready", "failed"]
#: The bundled embedding model's name, part of its fingerprint (so never reworded); the GUI
#: shows its suffix in the user's language.
BUNDLED_MODEL_NAME = "multilingual-e5-small"
BUNDLED_MODEL_SUFFIX = " (4-bit, bundled)"
BUNDLED_MODEL = BUNDLED_MODEL_NAME + BUNDLED_MODEL_SUFFIX


def split_model_label(label: str) -> tuple[str, str, str | None]:
    """An index's or provider's label ``kind: model @ endpoint`` as its three parts."""
    kind, _, rest = label.partition(": ")
    if not rest:
        return "", label, None
    model, _, where = rest.partition(" @ ")
    return kind, model, where or None


class VectorIndexInfo(ContractModel):
    state: VectorIndexState
    compatible: bool
    reason: str | None
    #: The model the index was built with.
    model_label: str | None
    #: The model configured now (Settings → Model connections); None when semantic search is off.
    configured_label: str | None = None
    vectors: int
    retrievable_chunks: int
    last_failure: str | None
    #: The index still serves searches (the bundled model's other encoder built it) but a
    #: rebuild with today's encoder is offered (``reason`` says why).
    rebuild_offered: bool = False
    #: A vectorisation of the library is queued or running (its missing vectors are on the way).
    vectorising: bool = False
    reason_code: str | None = None
    reason_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("reason")


class VectorStatusRequest(ContractModel):
    library_id: EntityId


class VectorRebuildRequest(ContractModel):
    library_id: EntityId


class VectorRebuildResponse(ContractModel):
    task_id: EntityId


class RerankConnection(ContractModel):
    """A Cohere/Jina-compatible `/v1/rerank` service used by the learned rerank mode."""

    base_url: str | None = Field(None, max_length=2_000)
    model: str | None = Field(None, max_length=200)
    timeout_s: float = Field(15.0, ge=1.0, le=120.0)

    @model_validator(mode="after")
    def _http_only(self) -> RerankConnection:
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("the service address must start with http:// or https://")
        return self


class RerankInfo(ContractModel):
    connection: RerankConnection
    has_api_key: bool
    #: The origin the stored key was saved for (``service_origin``); None without a key
    key_origin: str | None = None
    configured: bool


class RerankGetRequest(ContractModel):
    pass


class RerankUpdateRequest(ServiceRequest):
    connection: RerankConnection
    api_key: str | None = Field(None, max_length=4_000)


class RerankTestRequest(ServiceRequest):
    """Tests this rerank connection with a tiny real `/v1/rerank` call; nothing is saved.
    Omitted fields mean the saved connection and the stored key, as for the embedding test."""

    connection: RerankConnection | None = None
    api_key: str | None = Field(None, max_length=4_000)


class RerankTestResponse(ContractModel):
    ok: bool
    #: The service's relevance scores for the test documents, in their order.
    scores: list[float] | None
    latency_ms: float | None
    error: str | None
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("error")


class ModelListRequest(ServiceRequest):
    """The models an endpoint offers (OpenAI-compatible ``/v1/models``, Ollama ``/api/tags``),
    for the chat or the embedding form. Omitted key: the one stored for that purpose."""

    purpose: Literal["chat", "embedding"]
    kind: Literal["openai-compatible", "ollama"]
    base_url: str = Field(min_length=1, max_length=2_000)
    api_key: str | None = Field(None, max_length=4_000)


class ModelListResponse(ContractModel):
    ok: bool
    models: list[str] = Field(default_factory=list, max_length=1_000)
    error: str | None = None
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("error")
