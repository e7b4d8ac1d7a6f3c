"""The bundled model's own similarity in the calibrated relevance: a passage on the question's
topic stands as far above a library of other topics as one that answers it, but not as close to
the question (``calibration.SIMILARITY_CENTER``)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from goodbuddy_kb.main_process.lexical.tokens import build_query
from goodbuddy_kb.main_process.retrieval import calibration
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.retrieval.stages import RelevanceStage

#: A paraphrase's best passage: none of the question's words, the vector's first pick.
UNWORDED = {"coverage": 0.0, "weightedCoverage": 0.0, "windowCoverage": 0.0, "fused": 1.0}


def first(
    family: str, margin: float, similarity: float | None, closest: float | None = None
) -> float:
    return calibration.relevance_list([UNWORDED], [margin], family, None, [similarity], [closest])[
        0
    ]


def test_the_bundled_model_reads_how_close_the_passage_is_to_the_question() -> None:
    """The same margin over the library's background: a passage at the similarity a paraphrase's
    answer has (cnsd-sts-b's median 0.95) reads as relevant, one at the similarity an unanswerable
    question's best passage has (cmrc2018-trial-noanswer's median 0.85) does not."""
    floor = 0.2  # the default minimum relevance
    answered = first("bundled", 0.05, 0.95)
    topical = first("bundled", 0.05, 0.85)
    assert answered >= 0.3 and topical < floor, (answered, topical)
    assert first("bundled", 0.05, 0.90) > topical


def test_the_closest_sentence_counts_beside_the_passage_as_a_whole() -> None:
    """The same passage-level evidence: a passage one of whose sentences stands close to the
    question (0.1 above the background: the answer) is shown, one whose closest sentence stands
    no closer than the passage does (0.03) is not."""
    near, far = first("bundled", 0.05, 0.9, 0.1), first("bundled", 0.05, 0.9, 0.03)
    assert near >= 0.3 and far < 0.2, (near, far)
    assert first("bundled", 0.05, 0.9, None) == first("bundled", 0.05, 0.9, 0.05), (
        "unread, the whole passage's margin stands in"
    )


def test_closeness_counts_only_as_far_as_the_passage_stands_out_from_other_documents() -> None:
    """A passage at 0.95 with another document's passage as close (0.94: a sentence saying
    nearly the same of something else, cnsd-sts-b's near duplicates) reads no more relevant than
    one at the center; with its nearest rival at 0.85 it keeps the lift; a rival closer than
    itself takes no more away than the center does (closeness below it still counts against)."""

    def shown(similarity: float, rival: float | None) -> float:
        return calibration.relevance_list(
            [UNWORDED], [0.05], "bundled", None, [similarity], [None], [rival]
        )[0]

    alone = shown(0.95, None)
    assert shown(0.95, 0.85) == alone
    assert shown(0.95, 0.94) < shown(0.95, 0.90) < alone
    assert shown(0.95, 0.97) == shown(0.85, None) == shown(0.95, 0.95)
    assert shown(0.80, 0.70) == shown(0.80, None) < shown(0.85, None)


def test_the_stage_reads_the_rival_off_every_candidate_of_another_document() -> None:
    """The rival is the closest passage of another document among all the candidates, not only
    those shown, and another passage of the same document is no rival."""

    def ranked(*rows: tuple[str, str, float]) -> list[Candidate]:
        out = []
        for cid, doc, sim in rows:
            c = Candidate(cid * 8, {"vector": 1}, sim, 1.0, 1, vector_z=(sim - 0.8) / 0.02)
            c.content, c.document_title, c.document_id = "年假 规定", doc, doc
            c.features = dict(UNWORDED)
            out.append(c)
        return out

    def first(rows: list[Candidate]) -> float:
        stage = RelevanceStage(1, 0.2, False, (0.8, 0.02), "bundled")
        return stage.run(rows, build_query("年假")).shown[0].relevance

    own = first(ranked(("a", "d1", 0.95), ("b", "d1", 0.94), ("c", "d2", 0.85)))
    crowded = first(ranked(("a", "d1", 0.95), ("b", "d1", 0.85), ("c", "d2", 0.94)))
    assert own > crowded, (own, crowded)


def test_another_provider_similarity_means_nothing_to_the_bundled_scale() -> None:
    """Another provider's similarities have a scale of their own: only the margin counts."""
    assert (
        first("other", 0.1, 0.95, 0.2) == first("other", 0.1, 0.5, 0.0) == first("other", 0.1, None)
    )


def candidate(name: str, z: float) -> Candidate:
    c = Candidate(name * 8, {"vector": 1}, None, 1.0, 1, vector_z=z)
    c.content, c.document_title, c.features = "年假 规定", name, dict(UNWORDED)
    return c


def test_the_relevance_stage_reads_the_similarity_off_the_margin_and_the_background() -> None:
    """The stage has each result's margin (z × the background's deviation) and the background
    mean; their sum is the similarity the bundled model gave, so a background closer to the
    question lifts the same margin."""

    def shown(family: str, mean: float) -> float:
        stage = RelevanceStage(5, 0.2, False, (mean, 0.02), family)
        out = stage.run([candidate("a", 5.0)], build_query("年假"))
        return out.shown[0].relevance

    assert shown("bundled", 0.85) > shown("bundled", 0.75)
    assert shown("other", 0.85) == shown("other", 0.75)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.floats(0.0, 1.0),
            st.floats(-0.3, 0.5),
            st.one_of(st.none(), st.floats(0.5, 1.0)),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_relevance_with_similarities_never_rises_down_the_list(
    rows: list[tuple[float, float, float | None]],
) -> None:
    feats = [{**UNWORDED, "coverage": c, "weightedCoverage": c} for c, _, _ in rows]
    values = calibration.relevance_list(
        feats, [m for _, m, _ in rows], "bundled", None, [s for *_, s in rows]
    )
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a >= b for a, b in itertools.pairwise(values))
