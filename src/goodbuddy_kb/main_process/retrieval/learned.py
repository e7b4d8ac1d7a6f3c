"""Learned rerank through a Cohere/Jina-compatible `/v1/rerank` service.

At most 100 candidates of at most 8,000 characters each; a bounded response; a timeout. Any
service failure raises ``RerankFailed`` with a redacted reason (the caller falls back to local
rerank); a user cancel closes the connection and surfaces as ``cancelled``.
"""

from __future__ import annotations

import math
import threading

import httpx

from goodbuddy_kb.contracts.errors import CancelledError, redact
from goodbuddy_kb.main_process.cancel import CancelToken

MAX_CANDIDATES = 100
MAX_CHARACTERS = 8_000
MAX_RESPONSE_BYTES = 2 * 1024 * 1024


class RerankFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = redact(reason, 300)


def rerank(
    base_url: str,
    model: str,
    api_key: str | None,
    query: str,
    documents: list[str],
    timeout_s: float,
    cancel: CancelToken,
) -> list[float]:
    """Relevance scores in the order of ``documents`` (only the first 100 are sent)."""
    docs = [d[:MAX_CHARACTERS] for d in documents[:MAX_CANDIDATES]]
    url = base_url.rstrip("/")
    url += "/rerank" if url.endswith("/v1") else "/v1/rerank"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    payload = {"model": model, "query": query, "documents": docs, "top_n": len(docs)}
    outcome: dict[str, object] = {}
    finished = threading.Event()

    def post() -> None:
        # A blocking HTTP call cannot be interrupted from outside; it runs on its own thread so
        # that a cancel ends the request at once (the thread ends at its own timeout).
        try:
            with httpx.Client(
                timeout=httpx.Timeout(timeout_s), headers=headers, trust_env=False
            ) as client:
                outcome["response"] = client.post(url, json=payload)
        except Exception as exc:
            outcome["error"] = exc
        finally:
            finished.set()

    cancel.on_cancel(finished.set)
    threading.Thread(target=post, name="kb-rerank", daemon=True).start()
    finished.wait(timeout_s + 5)
    if cancel.cancelled:
        raise CancelledError(cancel.reason)
    error = outcome.get("error")
    if isinstance(error, httpx.TimeoutException) or not finished.is_set():
        raise RerankFailed(f"the rerank service did not answer within {timeout_s:.0f} s")
    if error is not None:
        raise RerankFailed(f"the rerank service cannot be reached ({error.__class__.__name__})")
    response = outcome["response"]
    assert isinstance(response, httpx.Response)
    body = response.content
    if response.status_code >= 400:
        raise RerankFailed(f"the rerank service answered HTTP {response.status_code}")
    if len(body) > MAX_RESPONSE_BYTES:
        raise RerankFailed("the rerank service's answer is too large")
    try:
        results = response.json()["results"]
        scores = [float("nan")] * len(docs)
        for item in results:
            index = int(item["index"])
            if not 0 <= index < len(docs):
                raise ValueError("index out of range")
            scores[index] = float(item["relevance_score"])
    except (ValueError, KeyError, TypeError) as exc:
        raise RerankFailed("the rerank service sent an invalid answer") from exc
    if any(math.isnan(s) for s in scores):
        raise RerankFailed("the rerank service did not score every candidate")
    return scores
