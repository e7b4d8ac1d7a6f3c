"""Graph contracts: the relation endpoint rule every layer asks (``RelationType.allows``)."""

from __future__ import annotations

from goodbuddy_kb.contracts.graph import RelationType


def relation(heads: list[str], tails: list[str]) -> RelationType:
    return RelationType(
        key="owns", name_zh="负责", name_en="owns", head_types=heads, tail_types=tails
    )


def test_listed_endpoint_types_limit_each_end() -> None:
    owns = relation(["person", "organization"], ["policy"])
    assert owns.allows("organization", "policy")
    assert not owns.allows("policy", "policy"), "the head's type is not listed"
    assert not owns.allows("person", "person"), "the tail's type is not listed"
    assert owns.allows_head("person") and not owns.allows_tail("person")


def test_an_empty_list_allows_any_type_at_that_end() -> None:
    assert relation([], []).allows("anything", "else")
    assert relation([], ["policy"]).allows("term", "policy")
    assert not relation([], ["policy"]).allows("term", "term")
    assert relation(["term"], []).allows("term", "system")
