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
    group_of: Mapping[str, str] | None = None,
    group_weights: Mapping[str, Mapping[str, float]] | None = None,
) -> list[tuple[str, float]]:
    """Fuse per-channel rankings (best first, 1-based ranks) into one ``(id, score)`` list.

    ``group_of`` / ``group_weights``: an item of a group (a library) is weighted by its group's
    channel weights instead of ``weights`` — each library's settings apply to its own items."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, str]] = {}  # best rank and the channel that gave it
    for channel in sorted(rankings):  # a fixed order keeps float sums identical run to run
        ranked = rankings[channel]
        default = weights.get(channel, 0.0)
        seen: set[str] = set()
        for rank, item in enumerate(ranked, start=1):
            if item in seen:
                continue  # a channel counts an item once, at its best rank
            seen.add(item)
            group = group_of.get(item) if group_of is not None else None
            weight = (
                group_weights[group].get(channel, 0.0)
                if group is not None and group_weights is not None and group in group_weights
                else default
            )
            if weight <= 0:
                continue
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            best[item] = min(best.get(item, (rank, channel)), (rank, channel))
    # Ties (the same rank in two equally weighted channels) break by the better single-channel
    # rank, then the channel name, and only then the id, so that rebuilding an index (new ids)
    # does not reorder equal results.
    return sorted(scores.items(), key=lambda pair: (-pair[1], *best[pair[0]], pair[0]))
