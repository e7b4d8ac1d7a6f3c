"""Learned rerank through a Cohere/Jina-compatible `/v1/rerank` service.

At most 100 candidates of at most 8,000 characters each; a bounded response; one total deadline.
Any service failure — including non-finite or absurd scores — raises ``RerankFailed`` with a
redacted reason (the caller falls back to local rerank); a user cancel closes the connection and
surfaces as ``cancelled``.
"""

from __future__ import annotations

import json
import math

import httpx

from goodbuddy_kb.contracts.errors import redact
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.main_process import netio
from goodbuddy_kb.main_process.cancel import CancelToken

MAX_CANDIDATES = 100
MAX_CHARACTERS = 8_000
MAX_RESPONSE_BYTES = 2 * 1024 * 1024
#: Largest score magnitude taken as meaningful: services send probabilities (0–1) or logits
#: (about ±20); a score past this bound would flatten every other one when normalised.
MAX_ABS_SCORE = 1_000.0


class RerankFailed(Exception):
    """The service failed; ``reason`` (redacted) keeps its message code unless redaction
    changed its words."""

    def __init__(self, reason: Reason, says: str | None = None) -> None:
        super().__init__(reason)
        redacted = redact(reason, 300)
        self.reason: str = reason if redacted == reason else redacted
        #: the service's own words (``netio.service_says``), for the connection test alone
        self.says = says


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
    try:
        # One total deadline (connect, headers, body); a cancel shuts the socket at once.
        with (
            netio.deadline(timeout_s, cancel),
            netio.client(timeout_s, headers) as client,
            client.stream("POST", url, json=payload) as response,
        ):
            if response.status_code >= 400:
                raise RerankFailed(
                    Reason("rerank.http_status", status=response.status_code),
                    netio.service_says(response),
                )
            body = netio.read_body(response, MAX_RESPONSE_BYTES)
    except httpx.TimeoutException as exc:
        cancel.check()
        raise RerankFailed(Reason("rerank.timeout", seconds=f"{timeout_s:.0f}")) from exc
    except httpx.HTTPError as exc:
        cancel.check()
        raise RerankFailed(Reason("rerank.unreachable", error=exc.__class__.__name__)) from exc
    except netio.BodyTooLarge as exc:
        raise RerankFailed(Reason("rerank.too_large")) from exc
    except netio.BadEncoding as exc:
        raise RerankFailed(Reason("rerank.unreadable", error=exc)) from exc
    cancel.check()
    return _scores(body, len(docs))


def _scores(body: bytes, count: int) -> list[float]:
    """Scores by candidate index; anything non-finite, absurd, missing or malformed is the
    service's failure (the caller falls back to local rerank), never an internal error."""
    try:
        results = json.loads(body)["results"]
        scores = [float("nan")] * count
        for item in results:
            index = int(item["index"])
            if not 0 <= index < count:
                raise ValueError("index out of range")
            scores[index] = float(item["relevance_score"])
    except (ValueError, KeyError, TypeError, RecursionError, OverflowError) as exc:
        raise RerankFailed(Reason("rerank.invalid")) from exc
    if any(math.isnan(s) for s in scores):
        raise RerankFailed(Reason("rerank.incomplete"))
    if not all(math.isfinite(s) and abs(s) <= MAX_ABS_SCORE for s in scores):
        raise RerankFailed(Reason("rerank.bad_scores"))
    return scores
