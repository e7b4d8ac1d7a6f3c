"""Calibrated relevance: the estimated probability that a result is relevant to the question,
learned on the development sets, monotone in the final rank and comparable across languages and
embedding providers.

For the result at final rank r, a logistic score over features that mean the same in every query
and library — the vector similarity above the library's background mean for this query (the
margin, × MARGIN_SCALE), query-term coverage (plain, weighed by idf, and weighed by idf within
one stretch of a few sentences: ``proximity.py``), the longest phrase run, query terms in the title
or heading path, the fused score over the best one, log r and, for the bundled model alone, its
cosine similarity itself (``SIMILARITY_CENTER``) and the margin of the passage's closest piece of a
sentence or two (``closeness.py``, ``CLOSEST_CENTER``) — is taken as the running minimum over
ranks 1..r (a result never looks more relevant than one ranked above it), then mapped to a
probability by an isotonic map fitted on the same sets (so a shown 0.7 is right about 70 % of the
time). One model per embedding family — the bundled model, every other provider (fitted with the
deterministic one) — and one for lexical-only searches. A result written in a script the
question does not use (``scripts.observable``) has no text features to read, not low ones: the
bundled model's family judges it on the vector's evidence alone (``VECTOR_ONLY``, the same terms
with the text's at zero, fitted on the vector channel's own rankings of the same sets). Constants
from ``bench/tune_relevance.py fit``; its ``report`` prints the reliability tables and the
expected calibration error. The idf-weighted coverage's coefficient is read off the coverage
within one stretch (``windowCoverage``), the same evidence where the terms stand together: the
same for a passage shorter than the stretch, lower for a long one whose terms lie apart. A refit
of every coefficient on today's dumps raises cmrc2018-trial's and drcd-dev's calibration error
(0.020 → 0.056, 0.027 → 0.050) while lowering the small graph sets', as it did before the new
term (ARCHITECTURE.md, "The floor").

The per-library ``minimumRelevance`` floor is compared against this number: results below it are
not evidence.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from goodbuddy_kb.main_process.retrieval import calibration_fit as fitted

MARGIN_SCALE = 10.0
#: Scaled margins beyond these bounds add nothing (a hit cannot become "more than certain").
MARGIN_RANGE = (-2.0, 3.0)
#: The bundled model's own cosine similarity of question and passage, read as
#: (similarity − SIMILARITY_CENTER) × SIMILARITY_SCALE within SIMILARITY_RANGE. Unlike the margin
#: it is not measured against this library's background, so it says how closely the passage
#: matches the question in absolute terms: a passage on the question's topic that does not answer
#: it stands as far above a library of other topics as one that does, but not as close to the
#: question. Only the bundled family reads it (one model, one scale of similarities); another
#: provider's similarities have a scale of their own. Above the center it counts only as far as
#: the passage is closer to the question than the closest passage of any other document (its
#: rival): a sentence saying nearly the same of something else ("一个男人在弹吉他" for
#: "一个女人在弹吉他") has rivals as close as itself, and so has the nearest paragraph of an article
#: on the question's topic that does not answer it, while an answer stands out. Read against the
#: center alone, a passage at 0.95 went to 0.90 relevance and was right 58 % of the time on
#: cnsd-sts-b searched without the question's own sentence (calibration error 0.091; 0.043 with
#: the rival), and the no-answer sets' first results were shown for 17.5 % and 15.8 % of the
#: unanswerable questions at the 0.2 floor (15.0 % and 13.3 %), on the development sets' dumps.
SIMILARITY_CENTER = 0.85
SIMILARITY_SCALE = 20.0
SIMILARITY_RANGE = (-2.0, 3.0)
#: How far the passage's closest piece (``closeness.py``: a sentence or two) stands above the
#: library's background for this question, read as (margin − CLOSEST_CENTER) × SIMILARITY_SCALE
#: within SIMILARITY_RANGE; a result whose pieces were not read reads the whole passage's margin
#: there. A margin, not the similarity itself: the bundled model's similarities run lower in
#: English than in Chinese (an unanswerable question's closest piece 0.81 against 0.87 in the
#: fixtures), and so does the background (0.79 against 0.81).
CLOSEST_CENTER = 0.065

Model = tuple[float, ...]


class _Scored(Protocol):
    chunk_id: str
    relevance: float


C = TypeVar("C", bound=_Scored)
#: (score, probability) knots of an isotonic map, score ascending.
Knots = tuple[tuple[float, float], ...]

WITH_VECTOR: dict[str, Model] = fitted.WITH_VECTOR
WITH_VECTOR_MAP: dict[str, Knots] = fitted.WITH_VECTOR_MAP
LEXICAL_ONLY: Model = fitted.LEXICAL_ONLY
LEXICAL_ONLY_MAP: Knots = fitted.LEXICAL_ONLY_MAP
#: The vector's evidence alone (the same terms, the text's at zero), for a result written in a
#: script the question does not use: its text features are missing there, not low.
VECTOR_ONLY: dict[str, Model] = fitted.VECTOR_ONLY
VECTOR_ONLY_MAP: dict[str, Knots] = fitted.VECTOR_ONLY_MAP


def family(embedding_kind: str | None) -> str:
    """The calibration family of the libraries' embedding provider kind."""
    return "bundled" if embedding_kind == "local" else "other"


def relevance_features(
    features: Mapping[str, float],
    vector_margin: float | None,
    rank: int,
    similarity: float | None = None,
    closest_margin: float | None = None,
    family_name: str = "other",
    rival: float | None = None,
) -> list[float]:
    """``vector_margin``: similarity − the background mean (unscaled), None without vectors;
    ``similarity``: the model's cosine similarity itself, ``closest_margin`` the margin of the
    passage's closest piece (None: not read, the whole passage's margin stands in) and ``rival``
    the similarity of the closest passage of another document (None: there is none), all read by
    the bundled family alone, where the vector ran."""
    m = 0.0 if vector_margin is None else vector_margin * MARGIN_SCALE
    m = min(MARGIN_RANGE[1], max(MARGIN_RANGE[0], m))
    sim = near = 0.0
    if family_name == "bundled" and vector_margin is not None and similarity is not None:
        sim = _scaled(similarity, SIMILARITY_CENTER)
        if sim > 0 and rival is not None:
            sim = min(sim, max(0.0, (similarity - rival) * SIMILARITY_SCALE))
        near = _scaled(
            closest_margin if closest_margin is not None else vector_margin, CLOSEST_CENTER
        )
    return [
        m,
        features.get("coverage", 0.0),
        features.get("weightedCoverage", features.get("coverage", 0.0)),
        features.get("windowCoverage", features.get("weightedCoverage", 0.0)),
        features.get("phrase", 0.0),
        features.get("title", 0.0),
        features.get("fused", 0.0),
        math.log(rank),
        sim,
        near,
    ]


def _scaled(similarity: float, center: float) -> float:
    value = (similarity - center) * SIMILARITY_SCALE
    return min(SIMILARITY_RANGE[1], max(SIMILARITY_RANGE[0], value))


def _score(model: Model, x: Sequence[float]) -> float:
    return model[0] + sum(c * v for c, v in zip(model[1:], x, strict=True))


def _mapped(knots: Knots, s: float) -> float:
    """Linear interpolation between the knots, constant beyond them."""
    xs = [k[0] for k in knots]
    i = bisect_left(xs, s)
    if i == 0:
        return knots[0][1]
    if i == len(knots):
        return knots[-1][1]
    (x0, y0), (x1, y1) = knots[i - 1], knots[i]
    return y0 + (y1 - y0) * (s - x0) / (x1 - x0) if x1 > x0 else y1


def relevance_list(
    features: Sequence[Mapping[str, float]],
    margins: Sequence[float | None],
    family_name: str,
    seen: Sequence[float] | None = None,
    similarities: Sequence[float | None] | None = None,
    closest_margins: Sequence[float | None] | None = None,
    rivals: Sequence[float | None] | None = None,
) -> list[float]:
    """The relevance of each result, in final rank order (never rising down the list).
    ``margins`` all None means the vector channel did not run for this query. ``seen``: how far
    the text features could see each result (``scripts.observable``; absent: wholly). A result
    they could not see is judged on the vector's evidence alone, in that proportion.
    ``similarities``: each result's cosine similarity to the question, read by the bundled
    family alone (``SIMILARITY_CENTER``), and ``closest_margins`` each one's closest piece's
    margin (``closeness.py``; shorter than the list: the rest were not read); ``rivals`` each
    one's rival's similarity (``relevance_features``)."""
    with_vector = any(m is not None for m in margins)
    model = WITH_VECTOR[family_name] if with_vector else LEXICAL_ONLY
    knots = WITH_VECTOR_MAP[family_name] if with_vector else LEXICAL_ONLY_MAP
    alone = VECTOR_ONLY.get(family_name) if with_vector else None
    out: list[float] = []
    lowest = math.inf
    for rank, (f, m) in enumerate(zip(features, margins, strict=True), start=1):
        sim = similarities[rank - 1] if similarities is not None else None
        near = (
            closest_margins[rank - 1]
            if closest_margins is not None and rank <= len(closest_margins)
            else None
        )
        rival = rivals[rank - 1] if rivals is not None else None
        x = relevance_features(f, m, rank, sim, near, family_name, rival)
        p = _mapped(knots, _score(model, x))
        share = 1.0 if seen is None or alone is None else max(0.0, min(1.0, seen[rank - 1]))
        if share < 1.0 and alone is not None and m is not None:
            blind = [x[0], 0.0, 0.0, 0.0, 0.0, 0.0, x[6], x[7], x[8], x[9]]
            p = share * p + (1 - share) * _mapped(
                VECTOR_ONLY_MAP[family_name], _score(alone, blind)
            )
        lowest = min(lowest, p)
        out.append(max(0.0, min(1.0, lowest)))
    return out


#: The share of the chunks a graph path reached that are relevant, when the path went from a
#: name the question spells out to what it asks for (company-graph-dev with the local graph:
#: 15 of 23). A separate piece of evidence from the features above, which read only the text.
PATH_ANSWER = 0.65


def with_paths(
    shown: Sequence[C],
    answers: frozenset[str],
    bridges: frozenset[str] = frozenset(),
    on_way: frozenset[str] = frozenset(),
) -> list[C]:
    """``shown`` with the chunks a graph path answered given the path's evidence too (either
    piece of evidence makes the chunk relevant: 1 − (1 − r)(1 − PATH_ANSWER)), then in order of
    relevance, so that the relevance still never rises down the list and the context is spent
    on what most likely answers.

    ``bridges``: the graph's other chunks (those that only name the question's entities, their
    relations or their neighbours). Where a path answers, such a chunk is the step to the
    answer, not the answer (on company-graph-dev and the graph fixtures none of the 7 that
    ranked first held it; "Who runs the team that owns Confluence?" put the tool list above
    the team's page at 0.90). Its relevance is capped at the lowest of the path's answers and
    it is listed below them, but not pushed under the floor: the chat needs the step to
    explain the answer.

    ``on_way``: the chunks stating an answer on the path to a deeper one, where a question asks
    two things in a chain ("OA系统归哪个团队管？这个团队所在的部门在哪栋楼办公？": the team
    that owns the system). They answer its first part: the path's evidence counts for them too,
    capped at the deeper answers' and listed below them (the chat was given the building
    without the team: 0.03, under the floor)."""
    answered = [c for c in shown if c.chunk_id in answers]
    if answered:
        for c in shown:
            if c.chunk_id in answers or c.chunk_id in on_way:
                c.relevance = 1 - (1 - c.relevance) * (1 - PATH_ANSWER)
        lowest = min(c.relevance for c in answered)
        for c in shown:
            if c.chunk_id not in answers and (c.chunk_id in bridges or c.chunk_id in on_way):
                c.relevance = min(c.relevance, lowest)
    return sorted(
        shown, key=lambda c: (-c.relevance, c.chunk_id not in answers, c.chunk_id not in on_way)
    )


#: The share of the passages the step from the best result reaches that hold the answer, when
#: the search itself ranked the passage second or third (``graph/step.py``; company-graph-dev
#: and the graph fixtures, bundled and deterministic models: 13 of 13; ranked lower, 3 of 16,
#: so those are left as they are).
STEP_ANSWER = 0.8
#: The lowest place (1-based) at which the search must have ranked the step's passage.
STEP_PLACE = 3


def step_choice(shown: Sequence[C], reached: Sequence[str]) -> str | None:
    """Of the passages the step from the best result reached, the one the search ranked
    highest, if it stands second or third (the search agrees with the step); else None."""
    listed = [c.chunk_id for c in shown[:STEP_PLACE]]
    return next((cid for cid in listed[1:] if cid in reached), None)


def with_step(shown: Sequence[C], chosen: str) -> list[C]:
    """``shown`` with the passage ``chosen`` (``step_choice``) given the step's evidence too
    (1 − (1 − r)(1 − STEP_ANSWER)), then in order of relevance: it most often goes above the
    best result it was reached from, which states the first step only."""
    for c in shown:
        if c.chunk_id == chosen:
            c.relevance = 1 - (1 - c.relevance) * (1 - STEP_ANSWER)
    return sorted(shown, key=lambda c: -c.relevance)
