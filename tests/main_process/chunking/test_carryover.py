"""Which manual chunk work a new chunking keeps (pure: no database)."""

from __future__ import annotations

from goodbuddy_kb.main_process.chunking.carryover import (
    ManualChunk,
    ManualState,
    Tally,
    carry_over,
)
from goodbuddy_kb.main_process.chunking.drafts import ChunkDraft, canonical_index_text, checksum


def draft(
    cid: str, content: str, role: str = "standalone", parent: str | None = None
) -> ChunkDraft:
    text = canonical_index_text(content, None)
    return ChunkDraft(
        cid,
        0,
        role,
        parent,
        None,
        (),
        {},
        "paragraph",
        content,
        text,
        checksum(text),  # type: ignore[arg-type]
    )


def test_nothing_manual_changes_nothing() -> None:
    drafts = [draft("a", "alpha")]
    plan = carry_over(ManualState(), drafts)
    assert plan.drafts == drafts and plan.lost == Tally() and plan.carried == Tally()


def test_same_id_keeps_edit_disabled_and_deletion() -> None:
    state = ManualState(
        edited={"a": "alpha, corrected"},
        disabled=(ManualChunk("b", "standalone", "beta"),),
        deleted=(ManualChunk("c", "standalone", "gamma"),),
    )
    plan = carry_over(state, [draft("a", "alpha"), draft("b", "beta"), draft("c", "gamma")])
    assert [(d.id, d.content, d.enabled) for d in plan.drafts] == [
        ("a", "alpha, corrected", True),
        ("b", "beta", False),
    ]
    assert plan.drafts[0].checksum == checksum("alpha, corrected")
    assert plan.carried == Tally(1, 1, 1) and plan.lost == Tally()
    assert [c.id for c in plan.deletions] == ["c"]


def test_a_new_chunking_keeps_what_its_text_allows() -> None:
    state = ManualState(
        edited={"old-a": "alpha, corrected"},
        disabled=(ManualChunk("old-b", "standalone", "beta  text"),),
        deleted=(ManualChunk("old-c", "standalone", "gamma"),),
    )
    new = [draft("n1", "beta\ntext."), draft("n2", "gamma")]
    plan = carry_over(state, new)
    assert [(d.id, d.enabled) for d in plan.drafts] == [("n1", False)], (
        "the disabled text is most of n1 (white space aside); n2 is the deleted text"
    )
    assert plan.carried == Tally(0, 1, 1) and plan.lost == Tally(edited=1)
    assert [(c.id, c.content) for c in plan.deletions] == [("n2", "gamma")]


def test_disabled_text_that_is_a_small_part_of_a_new_chunk_does_not_switch_it_off() -> None:
    small = ManualChunk("b", "standalone", "Chapter 4: allowances are 100 a day.")
    rest = "Chapter 1: scope. Chapter 2: approval. Chapter 3: hotels cost at most 650 a night. "
    plan = carry_over(ManualState(disabled=(small,)), [draft("n1", rest + small.content)])
    assert [d.enabled for d in plan.drafts] == [True], "chapters 1-3 must stay searchable"
    assert plan.lost == Tally(disabled=1) and plan.carried == Tally()
    # two disabled passages that together make up most of a chunk switch it off
    other = ManualChunk("c", "standalone", rest.strip())
    plan = carry_over(ManualState(disabled=(small, other)), [draft("n1", rest + small.content)])
    assert [d.enabled for d in plan.drafts] == [False]
    assert plan.carried == Tally(disabled=2) and plan.lost == Tally()


def test_text_that_comes_back_in_pieces_is_lost_text_that_is_gone_is_not() -> None:
    state = ManualState(
        disabled=(
            ManualChunk("b", "standalone", "one two three four"),
            ManualChunk("z", "standalone", "vanished text"),
        ),
        deleted=(ManualChunk("c", "standalone", "five six seven"),),
    )
    new = [draft("n1", "one two"), draft("n2", "three four five"), draft("n3", "six seven")]
    plan = carry_over(state, new)
    assert all(d.enabled for d in plan.drafts) and len(plan.drafts) == 3
    assert plan.lost == Tally(disabled=1, deleted=1) and plan.carried == Tally()
    assert plan.deletions == []


def test_a_deleted_parent_leaves_its_children_standalone() -> None:
    state = ManualState(deleted=(ManualChunk("p", "parent", "whole section"),))
    new = [draft("p", "whole section", "parent"), draft("k", "whole", "child", "p")]
    plan = carry_over(state, new)
    assert [(d.id, d.role, d.parent_id) for d in plan.drafts] == [("k", "standalone", None)]
    assert plan.carried == Tally(deleted=1)
