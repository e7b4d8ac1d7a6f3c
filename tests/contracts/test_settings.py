"""Settings contracts: PRD §7.3 and §8.1 defaults, ranges and cross-field rules."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from goodbuddy_kb.contracts.errors import invalid_request_from
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings, KnowledgeRetrievalSettings


def test_retrieval_defaults_match_the_prd() -> None:
    assert KnowledgeRetrievalSettings().to_wire() == {
        "version": 1,
        "topK": 6,
        "minimumVectorSimilarity": 0.0,
        "ftsWeight": 1.0,
        "vectorWeight": 1.0,
        "graphWeight": 0.8,
        "candidateMultiplier": 4,
        "contextMaxCharacters": 16000,
        "adjacentChunkCount": 0,
        "localRerankEnabled": False,
        "minimumRelevance": 0.2,
        "fusion": "adaptive",
    }


def test_chunking_defaults_match_the_prd() -> None:
    assert KnowledgeChunkingSettings().to_wire() == {
        "version": 1,
        "mode": "structure",
        "targetCharacters": 1600,
        "overlapCharacters": 160,
        "parentCharacters": 4800,
        "childCharacters": 900,
    }


def fields_of(model: type[Any], data: dict[str, Any]) -> list[str]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return [f["field"] for f in invalid_request_from(info.value).details["fields"]]


@pytest.mark.parametrize(
    ("field", "bad", "good"),
    [
        ("topK", 0, 1),
        ("topK", 21, 20),
        ("minimumVectorSimilarity", 1.01, 1),
        ("minimumVectorSimilarity", -0.1, 0),
        ("ftsWeight", 2.5, 2),
        ("vectorWeight", -1, 0),
        ("graphWeight", 2.01, 2),
        ("candidateMultiplier", 1, 2),
        ("candidateMultiplier", 11, 10),
        ("contextMaxCharacters", 1999, 2000),
        ("contextMaxCharacters", 48001, 48000),
        ("adjacentChunkCount", 3, 2),
    ],
)
def test_retrieval_ranges(field: str, bad: Any, good: Any) -> None:
    assert fields_of(KnowledgeRetrievalSettings, {field: bad}) == [field]
    KnowledgeRetrievalSettings.model_validate({field: good})


@pytest.mark.parametrize(
    ("field", "bad", "good"),
    [
        ("targetCharacters", 399, 400),
        ("targetCharacters", 8001, 8000),
        ("parentCharacters", 1599, 1600),
        ("parentCharacters", 16001, 16000),
        ("childCharacters", 299, 300),
        ("childCharacters", 4001, 4000),
        ("mode", "semantic", "parent-child"),
    ],
)
def test_chunking_ranges(field: str, bad: Any, good: Any) -> None:
    assert fields_of(KnowledgeChunkingSettings, {field: bad}) == [field]
    KnowledgeChunkingSettings.model_validate({field: good, "parentCharacters": 16000})


def test_all_weights_zero_is_refused_and_one_is_enough() -> None:
    zero = {"ftsWeight": 0, "vectorWeight": 0, "graphWeight": 0}
    with pytest.raises(ValidationError, match="ftsWeight, vectorWeight, graphWeight"):
        KnowledgeRetrievalSettings.model_validate(zero)
    assert (
        KnowledgeRetrievalSettings.model_validate({**zero, "vectorWeight": 0.1}).vector_weight
        == 0.1
    )


def test_overlap_at_most_forty_percent_of_target() -> None:
    KnowledgeChunkingSettings.model_validate({"targetCharacters": 1000, "overlapCharacters": 400})
    assert fields_of(
        KnowledgeChunkingSettings, {"targetCharacters": 1000, "overlapCharacters": 401}
    ) == ["overlapCharacters"]


def test_child_must_be_smaller_than_parent() -> None:
    assert fields_of(
        KnowledgeChunkingSettings, {"parentCharacters": 2000, "childCharacters": 2000}
    ) == ["childCharacters"]
    KnowledgeChunkingSettings.model_validate({"parentCharacters": 2000, "childCharacters": 1999})


@pytest.mark.parametrize(
    "data",
    [
        {"topK": "6"},
        {"topK": 6.5},
        {"localRerankEnabled": "true"},
        {"ftsWeight": float("nan")},
        {"unknownField": 1},
        {"version": 2},
    ],
)
def test_wrong_types_unknown_fields_and_versions_are_refused(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        KnowledgeRetrievalSettings.model_validate(data)


def test_settings_round_trip_through_json() -> None:
    s = KnowledgeRetrievalSettings(top_k=12, local_rerank_enabled=True)
    assert KnowledgeRetrievalSettings.model_validate_json(s.model_dump_json(by_alias=True)) == s
