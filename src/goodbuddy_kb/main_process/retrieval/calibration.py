"""Calibrated relevance: the probability, learned on the development sets, that a result is
relevant, from features that mean the same in every query and library — the vector similarity
above the library's background mean for this query (the margin, × MARGIN_SCALE), query-term
coverage and the longest phrase run. The margin transferred between libraries of different
sizes better than the z-score did on the development sets. (Title
terms were tried and left out: their weight came from one set's file names.) With the vector
channel the relevance is the larger of the two models' answers. A logistic model (coefficients from ``bench/tune_retrieval.py``);
a second one without the vector term serves when the vector channel did not run.

The per-library ``minimumRelevance`` floor is compared against this number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

#: Intercept, then the coefficients of :func:`feature_vector`'s terms (margin, coverage,
#: phrase), fitted by ``bench/tune_retrieval.py fit`` on the development sets.
WITH_VECTOR = (-7.6658, 5.3483, 0.0, 1.2651)
LEXICAL_ONLY = (-4.4587, 0.0, 4.4965, 0.0)
MARGIN_SCALE = 10.0
#: Scaled margins beyond these bounds add nothing (a hit cannot become "more than certain").
MARGIN_RANGE = (-2.0, 3.0)


def feature_vector(
    features: Mapping[str, float], vector_margin: float | None, with_vector: bool
) -> list[float]:
    """``vector_margin``: similarity − the background mean (unscaled)."""
    m = 0.0 if vector_margin is None or not with_vector else vector_margin * MARGIN_SCALE
    m = min(MARGIN_RANGE[1], max(MARGIN_RANGE[0], m))
    return [m, features.get("coverage", 0.0), features.get("phrase", 0.0)]


def _probability(model: tuple[float, ...], x: list[float]) -> float:
    logit = model[0] + sum(c * v for c, v in zip(model[1:], x, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))


def relevance(features: Mapping[str, float], vector_margin: float | None) -> float:
    """0–1; ``vector_margin`` None means the vector channel did not run for this query.

    With a vector margin, the larger of the two models' answers: either kind of evidence is
    enough (a tiny library has no background to stand out from, yet an exact lexical match in it
    is still relevant)."""
    lexical = _probability(LEXICAL_ONLY, feature_vector(features, None, False))
    if vector_margin is None:
        return lexical
    return max(lexical, _probability(WITH_VECTOR, feature_vector(features, vector_margin, True)))
