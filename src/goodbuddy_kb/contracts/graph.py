"""Contracts of the knowledge graph: a per-library ontology (entity and relation types), graph
settings, entities, relations and the evidence that ties each to a span of a chunk's content."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId

GraphStrategy = Literal["off", "local", "model"]
#: The strategy a library made from now on starts with: local extraction is offline and cheap.
#: Libraries made before it (migration 0023) keep "off" until a person turns the graph on.
NEW_LIBRARY_STRATEGY: GraphStrategy = "local"
Extractor = Literal["local", "model", "manual"]
#: How the model strategy asks for its answers' shape, strictest first: a JSON schema of the
#: ontology, plain JSON mode, or only the instructions.
JsonMode = Literal["json_schema", "json_object", "plain"]
TypeKey = str
MAX_TYPES = 64
MAX_ALIASES = 32
MAX_CUES = 64
MAX_PATTERNS = 48
#: An entity's name or alias. Every name and alias becomes a key of the multi-pattern matcher,
#: so each is bounded (a 200,000-character alias crashed the matcher's native code).
MAX_NAME_CHARACTERS = 200
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARACTERS)]
#: A type's alias or discovery cue (a word: 部, Department, 在哪).
Word = Annotated[str, Field(min_length=1, max_length=60)]
#: A relation pattern ("{head}位于{tail}").
Pattern = Annotated[str, Field(min_length=1, max_length=200)]


class EntityType(ContractModel):
    """An entity type; ``suffixes``/``prefixes`` are the local extractor's discovery cues
    (e.g. organisation: 部、处、中心、Department)."""

    key: TypeKey = Field(min_length=1, max_length=40, pattern=r"^[a-z][a-z0-9_]*$")
    name_zh: str = Field(min_length=1, max_length=40)
    name_en: str = Field(min_length=1, max_length=60)
    aliases: list[Word] = Field(default_factory=list, max_length=MAX_ALIASES)
    description: str = Field("", max_length=400)
    suffixes: list[Word] = Field(default_factory=list, max_length=MAX_CUES)
    prefixes: list[Word] = Field(default_factory=list, max_length=MAX_CUES)


class RelationType(ContractModel):
    """A relation type; ``patterns`` are explicit phrases with ``{head}`` and ``{tail}``
    (e.g. "{tail}由{head}审批", "{head} approves {tail}"); ``head_types``/``tail_types`` limit
    the endpoints (empty = any type)."""

    key: TypeKey = Field(min_length=1, max_length=40, pattern=r"^[a-z][a-z0-9_]*$")
    name_zh: str = Field(min_length=1, max_length=40)
    name_en: str = Field(min_length=1, max_length=60)
    aliases: list[Word] = Field(default_factory=list, max_length=MAX_ALIASES)
    description: str = Field("", max_length=400)
    head_types: list[TypeKey] = Field(default_factory=list, max_length=MAX_TYPES)
    tail_types: list[TypeKey] = Field(default_factory=list, max_length=MAX_TYPES)
    patterns: list[Pattern] = Field(default_factory=list, max_length=MAX_PATTERNS)

    @model_validator(mode="after")
    def _patterns_name_both_ends(self) -> RelationType:
        for pattern in self.patterns:
            if pattern.count("{head}") != 1 or pattern.count("{tail}") != 1:
                raise ValueError("each pattern names {head} and {tail} exactly once")
        return self

    def allows(self, head_type: TypeKey, tail_type: TypeKey) -> bool:
        """The endpoint rule: whether an entity of ``head_type`` may head this relation to one
        of ``tail_type`` (an empty list of endpoint types allows any type)."""
        return self.allows_head(head_type) and self.allows_tail(tail_type)

    def allows_head(self, type_key: TypeKey) -> bool:
        return not self.head_types or type_key in self.head_types

    def allows_tail(self, type_key: TypeKey) -> bool:
        return not self.tail_types or type_key in self.tail_types


class Ontology(ContractModel):
    entity_types: list[EntityType] = Field(min_length=1, max_length=MAX_TYPES)
    relation_types: list[RelationType] = Field(default_factory=list, max_length=MAX_TYPES)

    @model_validator(mode="after")
    def _consistent(self) -> Ontology:
        keys = [t.key for t in self.entity_types]
        if len(set(keys)) != len(keys):
            raise ValueError("entity type keys must be unique")
        rel_keys = [t.key for t in self.relation_types]
        if len(set(rel_keys)) != len(rel_keys):
            raise ValueError("relation type keys must be unique")
        known = set(keys)
        for relation in self.relation_types:
            unknown = (set(relation.head_types) | set(relation.tail_types)) - known
            if unknown:
                raise ValueError(
                    f"relation type {relation.key} names unknown entity types: "
                    + ", ".join(sorted(unknown))
                )
        return self


class GraphSettings(ContractModel):
    strategy: GraphStrategy = "off"
    max_entities_per_chunk: int = Field(20, ge=1, le=200)
    max_relations_per_chunk: int = Field(20, ge=0, le=200)
    min_confidence: float = Field(0.5, ge=0.0, le=1.0)
    #: Model strategy: at most this many chunks are sent to the chat model per run (the rest
    #: wait for the next run); chunks already extracted from the same text, model and ontology
    #: are never sent again.
    model_max_chunks: int = Field(200, ge=1, le=100_000)
    #: Model strategy: requests in flight at once (1–4).
    model_concurrency: int = Field(2, ge=1, le=4)
    #: Model strategy: the longest one request may take in all, in seconds.
    model_timeout_s: float = Field(60.0, ge=1.0, le=600.0)
    #: Model strategy: retries of a failed request (with exponential backoff).
    model_retries: int = Field(2, ge=0, le=5)


class GraphRunSummary(ContractModel):
    """What one extraction run did: for the model strategy, the requests it sent and every
    answer part it rejected, by reason."""

    run_id: str
    strategy: GraphStrategy
    model: str | None = None
    #: Chunks whose extraction finished in this run.
    chunks: int = 0
    #: Requests sent to the chat model (retries included).
    model_calls: int = 0
    #: Chunks skipped because their text, the model and the ontology did not change.
    unchanged: int = 0
    #: Chunks left for a later run by the per-run cap.
    capped: int = 0
    #: Chunks whose requests failed (the document's graph status says why).
    failed_chunks: int = 0
    #: Accepted entity mentions and relation mentions (a relation stated twice counts twice).
    entities: int = 0
    relations: int = 0
    #: The library's graph after a local run: its entities and relations (a relation between
    #: names kept only where related, or stated again, is one relation or none).
    total_entities: int | None = None
    total_relations: int | None = None
    #: Rejected answer parts: an entity or relation type outside the ontology, endpoints the
    #: relation type does not allow, a mention the chunk does not contain, a malformed answer,
    #: more than the per-chunk maximum.
    rejected_unknown_type: int = 0
    rejected_endpoints: int = 0
    rejected_mention: int = 0
    rejected_malformed: int = 0
    rejected_over_limit: int = 0
    #: Whole answers rejected, by the reason's message code ("graph.answer_*"): their chunks
    #: kept their previous extraction and are asked again next run.
    rejected_answers: dict[str, int] = Field(default_factory=dict)
    #: Model strategy: how the answers' shape was asked for — a JSON schema of the ontology,
    #: or, when the server refused one (HTTP 400/422), plain JSON mode ("json_object") or only
    #: the instructions ("plain").
    json_mode: JsonMode | None = None


class GraphInfo(ContractModel):
    library_id: EntityId
    settings: GraphSettings
    ontology: Ontology
    #: The ontology or strategy changed since the last extraction: re-extract to apply it.
    needs_rebuild: bool
    entities: int
    relations: int
    evidence: int
    #: Requests a model extraction would send now (chunks not yet extracted from their current
    #: text with this model and ontology, up to the per-run cap); None while no chat model is
    #: configured.
    estimated_model_calls: int | None = None
    #: The last finished extraction run of this library.
    last_run: GraphRunSummary | None = None


class GraphGetRequest(ContractModel):
    library_id: EntityId


class GraphUpdateRequest(ContractModel):
    library_id: EntityId
    settings: GraphSettings | None = None
    ontology: Ontology | None = None


class Entity(ContractModel):
    id: EntityId
    type_key: TypeKey
    name: str
    aliases: list[str]
    description: str
    locked_fields: list[str]
    mentions: int
    #: Who made the entity; a person's (``manual``) survives every re-extraction.
    created_by: Extractor = "local"


class Relation(ContractModel):
    id: EntityId
    type_key: TypeKey
    head_id: EntityId
    head_name: str
    tail_id: EntityId
    tail_name: str
    confidence: float
    extractor: Extractor
    #: A person created or retyped it: extraction never changes or removes it.
    locked: bool = False


class EvidenceSpan(ContractModel):
    chunk_id: EntityId
    document_id: EntityId
    start: int
    end: int
    text: str
    confidence: float
    extractor: Extractor
    #: The document's path in its source (the "view chunk" dialog's title).
    document_path: str = ""
    #: The mention with up to 40 characters of its chunk on either side.
    context: str = ""


class EntitiesListRequest(ContractModel):
    library_id: EntityId
    search: str | None = Field(None, max_length=200)
    type_key: TypeKey | None = None
    offset: int = Field(0, ge=0, le=10_000_000)
    limit: int = Field(100, ge=1, le=500)


class EntitiesListResponse(ContractModel):
    entities: list[Entity]
    total: int


class EntityGetRequest(ContractModel):
    library_id: EntityId
    entity_id: EntityId


#: Evidence spans given per relation in an entity's detail, at most.
MAX_RELATION_EVIDENCE = 5


class RelationEvidence(ContractModel):
    """Where the text states one relation: the spans extraction read it from."""

    relation_id: EntityId
    spans: list[EvidenceSpan] = Field(default_factory=list, max_length=MAX_RELATION_EVIDENCE)


class EntityDetail(ContractModel):
    entity: Entity
    relations: list[Relation]
    #: The entity's own mentions.
    evidence: list[EvidenceSpan]
    #: Each relation's evidence (a relation a person made has none).
    relation_evidence: list[RelationEvidence] = Field(default_factory=list)


class RelationsListRequest(ContractModel):
    library_id: EntityId
    offset: int = Field(0, ge=0, le=10_000_000)
    limit: int = Field(100, ge=1, le=500)


class RelationsListResponse(ContractModel):
    relations: list[Relation]
    total: int


class GraphExtractRequest(ContractModel):
    library_id: EntityId


class GraphExtractResponse(ContractModel):
    task_id: EntityId


# -- manual editing ----------------------------------------------------------------------------
#: The entity fields a person's edit locks against extraction.
LockedField = Literal["name", "type", "aliases", "description"]


class EntityCreateRequest(ContractModel):
    library_id: EntityId
    type_key: TypeKey
    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=MAX_ALIASES)
    description: str = Field("", max_length=400)


class EntityUpdateRequest(ContractModel):
    """Rename, retype, describe, add or remove aliases; every field given is locked."""

    library_id: EntityId
    entity_id: EntityId
    name: Name | None = None
    type_key: TypeKey | None = None
    description: str | None = Field(None, max_length=400)
    add_aliases: list[Name] = Field(default_factory=list, max_length=MAX_ALIASES)
    remove_aliases: list[Name] = Field(default_factory=list, max_length=MAX_ALIASES)
    #: On a rename, the old name stays an alias (its mentions keep matching); otherwise
    #: extraction is told never to bring the old name back.
    keep_old_name: bool = True


class EntityMergeRequest(ContractModel):
    """``merged_ids`` fold into ``entity_id``: their names become its aliases, their evidence
    and relations move to it. Only entities of one type merge."""

    library_id: EntityId
    entity_id: EntityId
    merged_ids: list[EntityId] = Field(min_length=1, max_length=50)


class EntityDeleteRequest(ContractModel):
    library_id: EntityId
    entity_id: EntityId


class EntityDeleteResponse(ContractModel):
    entity_id: EntityId
    name: str
    relations_removed: int


class RelationCreateRequest(ContractModel):
    library_id: EntityId
    type_key: TypeKey
    head_id: EntityId
    tail_id: EntityId


class RelationUpdateRequest(ContractModel):
    """Retype a relation (its endpoints stay); the old type is never re-extracted for them."""

    library_id: EntityId
    relation_id: EntityId
    type_key: TypeKey


class RelationDeleteRequest(ContractModel):
    library_id: EntityId
    relation_id: EntityId


class RelationDeleteResponse(ContractModel):
    relation_id: EntityId


class NeighbourhoodRequest(ContractModel):
    library_id: EntityId
    entity_id: EntityId
    hops: int = Field(2, ge=1, le=2)
    limit: int = Field(200, ge=2, le=200)


class GraphNode(ContractModel):
    id: EntityId
    name: str
    type_key: TypeKey
    #: 0 for the entity asked about, then 1 or 2.
    hops: int


class GraphEdge(ContractModel):
    id: EntityId
    type_key: TypeKey
    head_id: EntityId
    tail_id: EntityId
    confidence: float
    extractor: Extractor
    locked: bool


class NeighbourhoodResponse(ContractModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    #: More neighbours exist than ``limit`` allowed (the strongest relations were kept).
    truncated: bool
