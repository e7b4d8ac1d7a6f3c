"""Fusion of the channels' rankings into one list: pure functions, no database.

Two methods:

* ``weighted_rrf`` — reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009):
  score(d) = Σ_c w_c / (k + rank_c(d)), k = 60. Ranks only; kept for comparison ("rrf").
* ``adaptive_fusion`` (the default) — query-adaptive, score-aware fusion. Each channel gets a
  per-query *confidence* in 0–1 from its own score distribution:

  - vector: how far the best hit stands above the library's background similarity for this
    query, in standard deviations (z = (similarity − mean) / std over every scanned row),
    mapped linearly from ``vector_z_low`` (0) to ``vector_z_low + vector_z_span`` (1), mixed
    (``vector_margin_share``) with how far the best hit stands above the tenth, in the same
    deviations (a margin holds in small libraries, where a right answer's z stays small);
  - fts / cjk: the share of the query's terms the best hit covers, mapped linearly from
    ``lexical_low`` (0) to 1, mixed (``lexical_margin_share``) with how far the best hit's
    score stands above the tenth's.

  A candidate's contribution from channel c is
  ``w_c · gain_c · ((1 − s) · (k + 1) / (k + rank) + s · norm_c(d))`` with
  ``gain_c = 1 − g + g · (confidence_c / max_c' confidence_c')^p`` (``p`` = ``sharpness``), where ``norm_c`` is the candidate's score over the
  channel's best (vector: z; lexical: the rescored score), ``s`` = ``score_share`` and ``g`` = ``confidence_share``. So a channel
  that has found something clearly relevant leads, a channel that is guessing follows, and
  where both agree the candidate rises. The user's channel weights ``w_c`` apply on top.
  A candidate the lexical channels could not have matched (written in a script the question
  does not use: ``scripts.py``) has its sum taken over less than every channel's weight.
  The parameters are derived from the development sets by ``bench/tune_retrieval.py``.
  Last, ``arbitrate``: where the vector ran beside the full text, the full text's first pick goes
  above a passage ranked ahead of it that holds clearly less of the question's terms.

Ties break by the best single-channel rank, then the channel name, then the id, so the order
is stable across index rebuilds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

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
            weight = _weight(item, channel, default, group_of, group_weights)
            if weight <= 0:
                continue
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            best[item] = min(best.get(item, (rank, channel)), (rank, channel))
    # Ties (the same rank in two equally weighted channels) break by the better single-channel
    # rank, then the channel name, and only then the id, so that rebuilding an index (new ids)
    # does not reorder equal results.
    return sorted(scores.items(), key=lambda pair: (-pair[1], *best[pair[0]], pair[0]))


def _weight(
    item: str,
    channel: str,
    default: float,
    group_of: Mapping[str, str] | None,
    group_weights: Mapping[str, Mapping[str, float]] | None,
) -> float:
    group = group_of.get(item) if group_of is not None else None
    if group is not None and group_weights is not None and group in group_weights:
        return group_weights[group].get(channel, 0.0)
    return default


@dataclass(frozen=True)
class FusionParams:
    k: float = 10.0
    score_share: float = 0.5
    vector_z_low: float = 2.0
    vector_z_span: float = 3.0
    lexical_low: float = 0.3
    confidence_share: float = 0.5
    #: share of a lexical channel's confidence that comes from how far its best hit stands
    #: above its tenth (the rest from query-term coverage)
    lexical_margin_share: float = 0.0
    #: how sharply the most confident channel takes the lead: a channel's gain uses its
    #: confidence relative to the most confident channel's, raised to this power
    sharpness: float = 1.0
    #: share of the vector channel's confidence that comes from how far its best hit stands
    #: above its tenth (in background standard deviations, mapped linearly from
    #: ``vector_margin_low`` to ``vector_margin_low + vector_margin_span``); the rest from the
    #: best hit's z alone. The margin holds in small libraries, where even a right answer
    #: stands only a couple of deviations above a background of a few dozen chunks.
    vector_margin_share: float = 0.0
    vector_margin_low: float = 0.0
    vector_margin_span: float = 1.0
    #: the least ``sharpness`` when the most confident channel knows its confidence rather than
    #: reading it off its scores (the graph when a path reached what the question asks for): that
    #: channel leads sharply, as a path to the answer is worth more than any score distribution.
    #: A lower value never softens constants that are sharper already (``DEFAULT``'s 16)
    known_sharpness: float = 8.0
    #: ``arbitrate``: how much less of the question's terms (a share, weighed by idf) a passage
    #: ranked above the full text's first pick may hold before the pick goes above it
    coverage_deficit: float = 0.05
    #: ``arbitrate``: the same for a passage of the pick's own document (a neighbouring
    #: paragraph on the same topic, which a vector cannot tell apart from the pick); None: as
    #: ``coverage_deficit``
    same_document_deficit: float | None = None
    #: ``arbitrate``: a passage whose similarity to the question (the model's cosine) reaches
    #: this is never passed: the model reads it as the question said again, and a paraphrase
    #: shares few of its words by being one. None: every passage may be passed
    paraphrase_similarity: float | None = None
    #: The most a channel with no confidence at all counts while another channel has some
    #: (it is guessing); None: as ``confidence_share`` leaves it (1 − ``confidence_share``)
    guessing_gain: float | None = None

    def said_again(self, similarity: float | None) -> bool:
        """Whether the model reads a passage of this similarity to the question as the question
        said again (``paraphrase_similarity``), which ``arbitrate`` never passes."""
        bar = self.paraphrase_similarity
        return bar is not None and similarity is not None and similarity >= bar


#: Derived from the development sets (fixtures zh/en, cmrc2018-trial, cnsd-sts-b-train with the
#: bundled local model, and the fixtures with the deterministic provider, so that the constants
#: hold for more than one embedding model) by ``bench/tune_retrieval.py``; see ARCHITECTURE.md.
#: Used with every embedding model except the bundled one. ``guessing_gain`` 0: a channel with no
#: confidence while another has some counts for nothing (with half its weight, the vector's first
#: guess went above the full text's first on the deterministic provider's cross-language
#: fixtures; ARCHITECTURE.md gives every set's figures).
DEFAULT = FusionParams(
    k=5,
    score_share=0.5,
    vector_z_low=2.5,
    vector_z_span=3.0,
    lexical_low=0.3,
    confidence_share=0.5,
    lexical_margin_share=1.0,
    sharpness=16.0,
    coverage_deficit=0.05,
    guessing_gain=0.0,
)

#: For the bundled local model, whose score distributions the development sets know. First
#: derived on its dumps of fixtures zh/en, cmrc2018-trial and cnsd-sts-b-train (``sharpness`` 8:
#: the more confident channel all but silenced the other); then refitted with drcd-dev,
#: company-graph-dev, the graph fixtures and cmrc2018-trial-noanswer added and every set dumped
#: from libraries each of the model's encoders built (int8 and float32; ``tune_retrieval.py
#: paired``): the less confident channel keeps more of its say (``sharpness`` 3) and the
#: vector's strength counts from a quarter deviation above the background (``vector_z_low``
#: 0.25). On those dumps no set falls more than 0.002 below the sharp constants with the int8
#: encoder (0.004 with float32: cnsd-sts-b MRR@10), drcd-dev gains 0.013 R@5 / 0.018 MRR@10 and
#: company-graph-dev zh 0.065 / 0.012, and a change of encoder moves no set by more than 0.005
#: (0.016 before): the sharp constants turned a 0.01 change of the vector's confidence into
#: another top five. A graph path to the answer still leads sharply (``known_sharpness``).
#: ``paraphrase_similarity``: the model scores a paraphrase of the whole question at 0.95 (the
#: median on cnsd-sts-b), an answering paragraph of a question-answering set at 0.87-0.90. On
#: cnsd-sts-b searched as a user would, without the question's own sentence in the library
#: (``eval retrieval``, by default), the full text's pick passed the paraphrase in 156 of 2,390
#: questions and the right passage in 40: MRR@10 0.860 against the vector alone's 0.882; with
#: 0.92, 0.881. drcd-dev -0.0003 MRR@10, every other set unchanged; 0.90 cost drcd-dev-noanswer
#: 0.0125, 0.94 kept half the loss on cnsd-sts-b.
BUNDLED_MODEL = FusionParams(
    k=5,
    score_share=0.5,
    vector_z_low=0.25,
    vector_z_span=4.0,
    lexical_low=0.3,
    confidence_share=1.0,
    lexical_margin_share=1.0,
    sharpness=3.0,
    vector_margin_share=0.5,
    vector_margin_low=0.5,
    vector_margin_span=0.25,
    coverage_deficit=0.1,
    same_document_deficit=0.05,
    paraphrase_similarity=0.92,
)


def params_for(embedding_kind: str | None) -> FusionParams:
    """The fusion constants for the libraries' embedding provider kind (None: no vectors)."""
    return BUNDLED_MODEL if embedding_kind == "local" else DEFAULT


@dataclass(frozen=True)
class ChannelRanking:
    """One channel's hits, best first, with what its confidence is computed from."""

    channel: str
    ids: list[str]
    #: vector: each hit's z over the background; lexical: each hit's rescored score
    scores: list[float]
    weight: float
    #: lexical: the query-term coverage of the best hit (unused for vector)
    top_coverage: float = 0.0
    #: the channel's own confidence when it knows better than its score distribution (the
    #: graph when it followed a path to what the question asks for)
    known_confidence: float | None = None


def vector_ranking(
    ids: Sequence[str],
    similarities: Sequence[float],
    background_mean: float,
    background_std: float,
    weight: float,
) -> ChannelRanking:
    std = background_std if background_std > 1e-6 else 1.0
    return ChannelRanking(
        "vector", list(ids), [(s - background_mean) / std for s in similarities], weight
    )


def lexical_ranking(
    channel: str, ids: Sequence[str], scores: Sequence[float], top_coverage: float, weight: float
) -> ChannelRanking:
    return ChannelRanking(channel, list(ids), list(scores), weight, top_coverage)


def _clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def vector_strength(z: float, params: FusionParams) -> float:
    """0–1: a vector hit's z over the background, on the confidence scale."""
    return _clip((z - params.vector_z_low) / params.vector_z_span)


MARGIN_RANK = 10
#: A lexical channel's single hit has its margin count fully only when it covers at least this
#: share of the query's terms (less in proportion below). On the development sets' dumps
#: (``tune_retrieval.py``) nothing moves but the questions whose full text matched a stray word
#: (ARCHITECTURE.md, "A stray word"); applied to every hit list shorter than ``MARGIN_RANK`` it
#: cost the deterministic provider's Chinese fixtures one question of their top five.
SPARSE_COVERAGE = 0.2


#: A lexical channel whose best hit covers less than this share of the query's terms matched
#: stray words (an English question's "book" in a Chinese passage's "Room-Booking"): its margin
#: counts in proportion, however many hits it has. Through ``eval --ablation --sample 300`` on
#: every development set: the bundled model's Chinese fixtures MRR@10 0.903 → 0.912 (their
#: paraphrases 0.830 → 0.846), no figure of any set lower; the deterministic provider unchanged.
#: 0.2 cost the deterministic provider's Chinese fixtures 0.017 R@5 on the dumps.
STRAY_COVERAGE = 0.1


def confidence(ranking: ChannelRanking, params: FusionParams) -> float:
    if not ranking.ids:
        return 0.0
    if ranking.known_confidence is not None:
        return ranking.known_confidence
    if ranking.channel == "vector":
        strength = vector_strength(ranking.scores[0], params)
        if params.vector_margin_share <= 0 or len(ranking.scores) < 2:
            return strength
        tenth = ranking.scores[min(len(ranking.scores), MARGIN_RANK) - 1]
        gap = _clip(
            (ranking.scores[0] - tenth - params.vector_margin_low)
            / max(1e-6, params.vector_margin_span)
        )
        m = params.vector_margin_share
        return (1 - m) * strength + m * gap
    coverage = _clip(
        (ranking.top_coverage - params.lexical_low) / max(1e-6, 1 - params.lexical_low)
    )
    top = ranking.scores[0]
    tail = (
        ranking.scores[min(len(ranking.scores), MARGIN_RANK) - 1]
        if len(ranking.scores) > 1
        else 0.0
    )
    margin = _clip((top - tail) / top) if top > 0 else 0.0
    if len(ranking.scores) < 2:
        # A single hit stands above nothing: its margin says only that one passage holds *some*
        # query word ("a" in a Chinese library, asked in English), which counts as far as it
        # covers the question.
        margin *= _clip(ranking.top_coverage / SPARSE_COVERAGE)
    else:
        margin *= _clip(ranking.top_coverage / STRAY_COVERAGE)
    m = params.lexical_margin_share
    return (1 - m) * coverage + m * margin


@dataclass(frozen=True)
class Fused:
    chunk_id: str
    score: float
    #: the candidate's vector z (the last vector hit's for one outside the vector pool);
    #: None when the vector channel did not run
    vector_z: float | None


@dataclass
class FusionResult:
    ranked: list[Fused]
    confidence: dict[str, float] = field(default_factory=dict)


LEXICAL_CHANNELS = frozenset({"fts", "cjk"})
#: The share of the lexical channels' weight not counted against a passage they could not read.
#: All of it (1) put the other language's passages level with passages both channels agree on
#: and cost the Chinese fixtures 0.05 MRR@10; half keeps every mixed development set at or above
#: its figure without it and still brings the other language's answer up (ARCHITECTURE.md).
UNSEEN = 0.5
#: The same share for a passage the vector ranks clearly above every passage the lexical channels
#: could read (``LEAD_MARGIN``): there the one channel that read both prefers it to all they could,
#: and their silence on it says nothing. Bundled model, ``eval --ablation``, hybrid MRR@10: the
#: cross-language fixtures' Chinese questions 0.620 → 0.676 (the vector alone's figure),
#: company-graph-dev zh 0.498 → 0.506 (hybrid + graph 0.803 → 0.807); the fixtures, the graph
#: fixtures, the three held-out graph sets, drcd-dev and its no-answer set unchanged (the other
#: one-language sets have no unseen passage). All of it for every unseen passage (``UNSEEN`` 1)
#: cost the Chinese fixtures 0.05 MRR@10.
UNSEEN_LEAD = 1.0


def adaptive_fusion(
    rankings: Sequence[ChannelRanking],
    params: FusionParams = DEFAULT,
    group_of: Mapping[str, str] | None = None,
    group_weights: Mapping[str, Mapping[str, float]] | None = None,
    observable: Mapping[str, float] | None = None,
) -> FusionResult:
    """Fuse by per-query channel confidence, normalised scores and ranks (module docstring).
    ``group_of`` / ``group_weights`` as in :func:`weighted_rrf`: each library's channel weights
    apply to its own candidates.

    ``observable``: for a candidate written in a script the question does not use (a Chinese
    passage for an English question), how far the lexical channels could have matched it at all,
    0–1 (absent: 1). Their silence on it is then weaker evidence against it: ``UNSEEN`` of the
    weight of the channels that could not see it is left out of its score's denominator, and
    ``UNSEEN_LEAD`` of it where the vector ranks it above every passage they could read."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, str]] = {}
    z_of: dict[str, float] = {}
    found_by: dict[str, set[str]] = {}
    z_floor: float | None = None
    conf: dict[str, float] = {}
    total_weight = 0.0
    active = sorted((r for r in rankings if r.weight > 0), key=lambda r: r.channel)
    confidences = {r.channel: confidence(r, params) for r in active}
    most = max(confidences.values(), default=0.0)
    known_lead = any(
        r.known_confidence is not None and confidences[r.channel] >= most > 0 for r in active
    )
    sharpness = max(params.sharpness, params.known_sharpness) if known_lead else params.sharpness
    for ranking in active:
        c = confidences[ranking.channel]
        conf[ranking.channel] = round(c, 4)
        relative = (c / most) ** sharpness if most > 0 else 1.0
        gain = 1 - params.confidence_share + params.confidence_share * relative
        if params.guessing_gain is not None and c <= 0.0 < most:
            gain = min(gain, params.guessing_gain)
        total_weight += ranking.weight
        top = max(ranking.scores[0], 1e-9) if ranking.scores else 1.0
        seen: set[str] = set()
        for rank, (item, raw) in enumerate(zip(ranking.ids, ranking.scores, strict=True), start=1):
            if item in seen:
                continue
            seen.add(item)
            if ranking.channel == "vector":
                z_of[item] = raw
            norm = _clip(raw / top)
            part = (1 - params.score_share) * (params.k + 1) / (
                params.k + rank
            ) + params.score_share * norm
            weight = _weight(item, ranking.channel, ranking.weight, group_of, group_weights)
            if weight <= 0:
                continue
            scores[item] = scores.get(item, 0.0) + weight * gain * part
            best[item] = min(best.get(item, (rank, ranking.channel)), (rank, ranking.channel))
            found_by.setdefault(item, set()).add(ranking.channel)
        if ranking.channel == "vector" and ranking.scores:
            z_floor = ranking.scores[-1]
    scale = total_weight or 1.0
    lexical = sum(r.weight for r in active if r.channel in LEXICAL_CHANNELS)
    if observable and lexical > 0:
        matched = {item for item, channels in found_by.items() if channels & LEXICAL_CHANNELS}
        lead = _vector_lead(active, matched, observable)
        for item, seen_share in observable.items():
            if item in scores and item not in matched:
                share = UNSEEN_LEAD if item in lead else UNSEEN
                unseen = share * lexical * (1 - max(0.0, min(1.0, seen_share)))
                scores[item] *= scale / max(1e-9, scale - unseen)
    ordered = sorted(scores.items(), key=lambda pair: (-pair[1], *best[pair[0]], pair[0]))
    return FusionResult(
        [
            Fused(cid, s / scale, z_of.get(cid, z_floor) if z_floor is not None else None)
            for cid, s in ordered
        ],
        conf,
    )


#: ``UNSEEN_LEAD``: how far (background deviations) the vector must rank the passage above the
#: first one the lexical channels could read. A lead by less is no preference: pharma's
#: 人事系统归哪个部门维护 had an English passage 0.12 deviations ahead of the Chinese answer; the
#: leads that were right stood 0.5–0.62 ahead.
LEAD_MARGIN = 0.25


def _vector_lead(
    active: Sequence[ChannelRanking], matched: set[str], observable: Mapping[str, float]
) -> set[str]:
    """The vector's hits ranked ``LEAD_MARGIN`` above every passage the lexical channels could
    read (``matched`` by them, or written in the question's script: absent from
    ``observable``)."""
    vector = next((r for r in active if r.channel == "vector"), None)
    if vector is None:
        return set()
    for at, item in enumerate(vector.ids):
        if item not in observable or item in matched:
            bar = vector.scores[at] + LEAD_MARGIN
            return {i for i, z in zip(vector.ids[:at], vector.scores, strict=False) if z >= bar}
    return set(vector.ids)


def arbitrate(
    order: Sequence[str],
    picks: Sequence[str],
    coverage: Callable[[str], float],
    deficit: float,
    exempt: Callable[[str], bool] = lambda _chunk_id: False,
    same_document: Callable[[str, str], bool] = lambda _a, _b: False,
    same_document_deficit: float | None = None,
) -> list[str]:
    """The fused ``order`` with the full-text channels' first pick (of ``picks``, each lexical
    channel's first hit: the one holding most of the question) moved above the first passage
    ranked ahead of it that holds ``deficit`` less of the question's terms (``coverage``: the
    share of them, weighed by idf; ``FusionParams.coverage_deficit``). The
    fusion weighs each channel by how sure it looks; a vector channel sure of a passage on the
    right topic that lacks what the question names (a neighbouring paragraph of the same
    article) outweighs the full text's exact match, and the query's own terms break that tie.

    ``exempt``: whether a passage's terms say nothing here (written in a script the question
    does not use; reached by a graph path), so that the pick never passes it; asked only of the
    passages ranked ahead of the pick. ``same_document``: whether two passages are of one
    document; the pick goes above a passage of its own document that holds
    ``same_document_deficit`` less of the question (a neighbouring paragraph of the right
    article, which the vector prefers by a hair: 1180-29-1 of drcd-dev-noanswer, z 5.38 against
    5.37, held 0.27 of the question's terms against the pick's 0.33)."""
    present = [p for p in picks if p in order]
    if not present:
        return list(order)
    position = {cid: i for i, cid in enumerate(order)}
    pick = max(present, key=lambda p: (coverage(p), -position[p]))
    held = coverage(pick)
    near = deficit if same_document_deficit is None else same_document_deficit
    for i, cid in enumerate(order[: position[pick]]):
        bar = held - (near if same_document(cid, pick) else deficit)
        if not exempt(cid) and coverage(cid) < bar:
            return [*order[:i], pick, *(c for c in order[i:] if c != pick)]
    return list(order)
