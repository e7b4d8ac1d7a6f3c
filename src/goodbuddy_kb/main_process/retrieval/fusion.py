"""Weighted reciprocal rank fusion (RRF), a pure function.

Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank
Learning Methods", SIGIR 2009: score(d) = Σ_c w_c / (k + rank_c(d)), with k = 60. A channel of
weight 0 contributes nothing (it is not requested). Ties break by the best single-channel rank,
then the channel name, then the id, so the order is stable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

RRF_K = 60


def weighted_rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    k: int = RRF_K,
) -> list[tuple[str, float]]:
    """Fuse per-channel rankings (best first, 1-based ranks) into one ``(id, score)`` list."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, str]] = {}  # best rank and the channel that gave it
    for channel in sorted(rankings):  # a fixed order keeps float sums identical run to run
        ranked = rankings[channel]
        weight = weights.get(channel, 0.0)
        if weight <= 0:
            continue
        seen: set[str] = set()
        for rank, item in enumerate(ranked, start=1):
            if item in seen:
                continue  # a channel counts an item once, at its best rank
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            best[item] = min(best.get(item, (rank, channel)), (rank, channel))
    # Ties (the same rank in two equally weighted channels) break by the better single-channel
    # rank, then the channel name, and only then the id, so that rebuilding an index (new ids)
    # does not reorder equal results.
    return sorted(scores.items(), key=lambda pair: (-pair[1], *best[pair[0]], pair[0]))
