"""How the Knowledge graph tab's things read, without widgets: type names from the ontology,
the lock mark and its explanation, and a relation told from one of its ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.ui.graph.texts import (
    LOCK,
    entity_type_name,
    lock_mark,
    locked_text,
    relation_here,
    relation_text,
)
from goodbuddy_kb.ui.i18n import language, set_language

ONTOLOGY = g.Ontology(
    entity_types=[
        g.EntityType(key="organization", name_zh="组织/部门", name_en="Organisation"),
        g.EntityType(key="policy", name_zh="制度", name_en="Policy"),
    ],
    relation_types=[
        g.RelationType(key="owns", name_zh="负责", name_en="owns", head_types=["organization"])
    ],
)


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    before = language()
    set_language("en")
    yield
    set_language(before)


FINANCE, POLICY = "1" * 32, "2" * 32


def entity(**fields: object) -> g.Entity:
    base: dict[str, object] = {
        "id": FINANCE,
        "type_key": "organization",
        "name": "财务部",
        "aliases": [],
        "description": "",
        "locked_fields": [],
        "mentions": 1,
    }
    return g.Entity.model_validate(base | fields)


def relation(head: str = FINANCE, tail: str = POLICY) -> g.Relation:
    return g.Relation(
        id="3" * 32,
        type_key="owns",
        head_id=head,
        head_name="财务部",
        tail_id=tail,
        tail_name="差旅报销制度",
        confidence=0.9,
        extractor="local",
    )


def test_type_names_come_from_the_ontology_else_the_key() -> None:
    assert entity_type_name(ONTOLOGY, "policy") == "Policy"
    assert entity_type_name(ONTOLOGY, "gone") == "gone"
    assert entity_type_name(None, "policy") == "policy"


def test_the_lock_marks_a_persons_edit_and_names_its_fields() -> None:
    assert lock_mark(entity()) == "" and locked_text(entity()) == ""
    renamed = entity(locked_fields=["name"])
    assert lock_mark(renamed) == LOCK and "name" in locked_text(renamed)
    assert lock_mark(entity(created_by="manual")) == LOCK


def test_a_relation_reads_from_the_end_it_is_shown_at() -> None:
    r = relation()
    assert relation_text(ONTOLOGY, r) == "财务部 —owns→ 差旅报销制度"
    assert relation_here(ONTOLOGY, r, FINANCE) == "—owns→ 差旅报销制度"
    assert relation_here(ONTOLOGY, r, POLICY) == "财务部 —owns→"
    assert relation_here(ONTOLOGY, r, None) == relation_text(ONTOLOGY, r)
    looped = relation(FINANCE, FINANCE)
    assert relation_here(ONTOLOGY, looped, FINANCE) == relation_text(ONTOLOGY, looped)
