"""Per-library settings, version 1, exactly as PRD §7.3 (retrieval) and §8.1 (chunking)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.limits import MAX_TOP_K

#: Overlap may use at most this share of the target length (PRD §8.1).
MAX_OVERLAP_SHARE = 0.4

ChunkingMode = Literal["fixed", "structure", "parent-child"]
#: ``adaptive``: query-adaptive, score-aware fusion (recommended, the default: it measures
#: better on every development set, README "Fusion"); ``rrf``: plain weighted RRF, the spec's
#: order when rerank is off.
FusionMethod = Literal["adaptive", "rrf"]
#: Chosen on the development sets: see ARCHITECTURE.md (retrieval stages) for the trade-off.
DEFAULT_MINIMUM_RELEVANCE = 0.2


class KnowledgeRetrievalSettings(ContractModel):
    """How a library is searched. Weight 0 means "do not request this channel"."""

    version: Literal[1] = 1
    top_k: int = Field(6, ge=1, le=MAX_TOP_K)
    minimum_vector_similarity: float = Field(0.0, ge=0.0, le=1.0)
    fts_weight: float = Field(1.0, ge=0.0, le=2.0)
    vector_weight: float = Field(1.0, ge=0.0, le=2.0)
    graph_weight: float = Field(0.8, ge=0.0, le=2.0)
    candidate_multiplier: int = Field(4, ge=2, le=10)
    context_max_characters: int = Field(16_000, ge=2_000, le=48_000)
    adjacent_chunk_count: int = Field(0, ge=0, le=2)
    local_rerank_enabled: bool = False
    #: When even the best result's calibrated relevance (0–1, the same scale in every query) is
    #: below this, nothing is shown and the answer is "nothing relevant enough".
    minimum_relevance: float = Field(DEFAULT_MINIMUM_RELEVANCE, ge=0.0, le=1.0)
    #: How the channels' rankings are fused (a request's ``fusion`` overrides it for one query).
    fusion: FusionMethod = "adaptive"

    @model_validator(mode="after")
    def _one_channel_requested(self) -> KnowledgeRetrievalSettings:
        if self.fts_weight <= 0 and self.vector_weight <= 0 and self.graph_weight <= 0:
            raise ValueError(
                "at least one channel weight (ftsWeight, vectorWeight, graphWeight) "
                "must be greater than 0"
            )
        return self


class KnowledgeChunkingSettings(ContractModel):
    """How a library's documents are cut into chunks. Changing it needs an explicit rebuild."""

    version: Literal[1] = 1
    mode: ChunkingMode = "structure"
    target_characters: int = Field(1_600, ge=400, le=8_000)
    overlap_characters: int = Field(160, ge=0)
    parent_characters: int = Field(4_800, ge=1_600, le=16_000)
    child_characters: int = Field(900, ge=300, le=4_000)

    @field_validator("overlap_characters")
    @classmethod
    def _overlap_within_share(cls, value: int, info: ValidationInfo) -> int:
        target = info.data.get("target_characters")
        if isinstance(target, int) and value > int(target * MAX_OVERLAP_SHARE):
            raise ValueError(
                f"must be at most 40% of the target length ({int(target * MAX_OVERLAP_SHARE)})"
            )
        return value

    @field_validator("child_characters")
    @classmethod
    def _child_below_parent(cls, value: int, info: ValidationInfo) -> int:
        parent = info.data.get("parent_characters")
        if isinstance(parent, int) and value >= parent:
            raise ValueError(f"must be smaller than the parent length ({parent})")
        return value
