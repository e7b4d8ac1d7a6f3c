"""The models an endpoint offers, for the model-connection forms: OpenAI-compatible
``GET /v1/models`` (``data[].id``) and Ollama ``GET /api/tags`` (``models[].name``), one short
request with a redacted, coded error when it cannot answer. Nothing is saved."""

from __future__ import annotations

import httpx

from goodbuddy_kb.contracts.limits import CONNECTION_TEST_TIMEOUT_SECONDS
from goodbuddy_kb.contracts.models import ModelListResponse
from goodbuddy_kb.main_process.connection_test import LIST_HINTS, explain

MAX_MODELS = 1_000
MAX_BYTES = 4 * 1024 * 1024


def models_url(kind: str, base_url: str) -> str:
    base = base_url.rstrip("/")
    if kind == "ollama":
        return f"{base}/api/tags"
    return f"{base}/models" if base.endswith("/v1") else f"{base}/v1/models"


def list_models(kind: str, base_url: str, key: str | None) -> ModelListResponse:
    def failed(error: str) -> ModelListResponse:
        return ModelListResponse(ok=False, error=explain(error, key, hints=LIST_HINTS))

    if not base_url.startswith(("http://", "https://")):
        return failed("the service address must start with http:// or https://")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        with httpx.Client(timeout=CONNECTION_TEST_TIMEOUT_SECONDS, follow_redirects=False) as http:
            response = http.get(models_url(kind, base_url), headers=headers)
    except httpx.TimeoutException:
        return failed("the service did not answer in time")
    except httpx.HTTPError as exc:
        return failed(f"the service cannot be reached ({exc.__class__.__name__})")
    if response.status_code != 200:
        return failed(f"the service answered HTTP {response.status_code}")
    if len(response.content) > MAX_BYTES:
        return failed("the service's model list is too large")
    try:
        data = response.json()
        items = data["models"] if kind == "ollama" else data["data"]
        names = [str(x["name"] if kind == "ollama" else x["id"]) for x in items]
    except (ValueError, KeyError, TypeError):
        return failed("the service sent no model list")
    unique = sorted({n.strip() for n in names if n.strip()}, key=str.lower)
    return ModelListResponse(ok=True, models=unique[:MAX_MODELS])
