"""Pure retrieval metrics over one query's ranked documents (binary relevance)."""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass
class Judged:
    """One query's outcome: for each ranked result, the relevant doc it satisfies (or None)."""

    hits: list[str | None]
    #: The distinct documents ranked, best first: whether each is a relevant document.
    documents: list[bool]
    relevant: int
    context_hits: int
    context_groups: int
    context_relevant_groups: int
    answerable: bool
    top_relevance: float
    latency_ms: float
    #: Each shown result's relevance, best first (empty for a baseline without one).
    relevances: list[float] = field(default_factory=list)

    @property
    def hits_shown(self) -> bool:
        return bool(self.hits) or bool(self.documents)


def recall_at(j: Judged, k: int) -> float:
    found = {h for h in j.hits[:k] if h is not None}
    return len(found) / j.relevant if j.relevant else 0.0


def mrr_at(j: Judged, k: int) -> float:
    for rank, hit in enumerate(j.hits[:k], start=1):
        if hit is not None:
            return 1.0 / rank
    return 0.0


def hit_at(j: Judged, k: int) -> float:
    """Document level: 1 when a relevant document is among the first ``k`` distinct documents."""
    return 1.0 if any(j.documents[:k]) else 0.0


def ndcg_at(j: Judged, k: int) -> float:
    seen: set[str] = set()
    dcg = 0.0
    for rank, hit in enumerate(j.hits[:k], start=1):
        if hit is not None and hit not in seen:
            seen.add(hit)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(k, j.relevant) + 1))
    return dcg / ideal if ideal else 0.0


@dataclass
class Summary:
    queries: int = 0
    unanswerable: int = 0
    values: dict[str, float] = field(default_factory=dict)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def calibration_error(judged: list[Judged], bins: int = 10) -> float:
    """Expected calibration error of the shown relevance: over every shown result, by tenths
    of relevance, the gap between the mean relevance and the share that is relevant, weighted
    by the results in each tenth."""
    pairs = [(v, h is not None) for j in judged for v, h in zip(j.relevances, j.hits, strict=False)]
    if not pairs:
        return 0.0
    error = 0.0
    for b in range(bins):
        inside = [(v, y) for v, y in pairs if min(bins - 1, int(v * bins)) == b]
        if inside:
            mean = sum(v for v, _ in inside) / len(inside)
            observed = sum(1 for _, y in inside if y) / len(inside)
            error += len(inside) / len(pairs) * abs(mean - observed)
    return error


def monotone_share(judged: list[Judged]) -> float:
    """The share of questions whose shown relevance never rises down the list."""
    if not judged:
        return 1.0
    ok = sum(
        1
        for j in judged
        if all(a >= b for a, b in zip(j.relevances, j.relevances[1:], strict=False))
    )
    return ok / len(judged)


def summarise(judged: list[Judged], no_answer_threshold: float) -> Summary:
    answerable = [j for j in judged if j.answerable]
    unanswerable = [j for j in judged if not j.answerable]
    n = len(answerable) or 1
    values = {
        "recall@5": sum(recall_at(j, 5) for j in answerable) / n,
        "recall@10": sum(recall_at(j, 10) for j in answerable) / n,
        "mrr@10": sum(mrr_at(j, 10) for j in answerable) / n,
        "ndcg@10": sum(ndcg_at(j, 10) for j in answerable) / n,
        "hit@1": sum(hit_at(j, 1) for j in answerable) / n,
        "hit@5": sum(hit_at(j, 5) for j in answerable) / n,
        "context_precision": sum(
            j.context_relevant_groups / j.context_groups if j.context_groups else 0.0
            for j in answerable
        )
        / n,
        "context_recall": sum(j.context_hits / j.relevant for j in answerable) / n,
        # answerable questions whose best result is below the floor: the product would say
        # "nothing relevant enough" although the answer was found
        "withheld_rate": sum(1 for j in answerable if j.top_relevance < no_answer_threshold) / n,
        # an unanswerable question is a false positive when its best result reaches the floor
        "no_answer_fp_rate": (
            sum(1 for j in unanswerable if j.hits_shown and j.top_relevance >= no_answer_threshold)
            / len(unanswerable)
            if unanswerable
            else 0.0
        ),
        "relevance_ece": calibration_error(judged),
        "relevance_monotone": monotone_share(judged),
        "latency_p50_ms": percentile([j.latency_ms for j in judged], 0.5),
        "latency_p95_ms": percentile([j.latency_ms for j in judged], 0.95),
    }
    return Summary(len(judged), len(unanswerable), values)
