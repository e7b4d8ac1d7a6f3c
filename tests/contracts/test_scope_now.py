"""A kept chat scope among the libraries there are now: the one rule the window's scope
button and a regenerate both follow."""

from __future__ import annotations

from goodbuddy_kb.contracts.chat import scope_now
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST


def test_a_scope_that_held_every_library_takes_in_new_ones_while_there_is_room() -> None:
    assert scope_now(["a", "b"], ["a", "b"], ["a", "b", "c"]) == ["a", "b", "c"]
    assert scope_now(["a"], ["a", "b"], ["a", "b", "c"]) == ["a"], "a narrowed scope stays"
    assert scope_now([], ["a"], ["a", "c"]) == [], "an emptied one too"
    assert scope_now(["a", "gone"], ["a", "gone"], ["a"]) == ["a"], "a deleted library leaves"
    many = [f"l{i}" for i in range(MAX_LIBRARIES_PER_REQUEST + 5)]
    # a regenerate asked for every library there was, past what one request may search
    joined = scope_now(["l0"], ["l0"], many)
    assert joined == many[:MAX_LIBRARIES_PER_REQUEST]
