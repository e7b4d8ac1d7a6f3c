"""Parent-child chunks over the real socket (PRD §8.1, US-E3, issue 32): a question answered by
a small child of the policy document brings a parent several times its size as context (the
sibling sections around it), and its citation shows that parent with the child in bold where
it stands."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.methods import REFERENCE_CONTEXT, RETRIEVE, SOURCE_ADD
from goodbuddy_kb.ui.widgets.reference_view import reference_html
from tests.bridge.helpers import chunking, create_library, settle

pytestmark = pytest.mark.integration

POLICY = Path(__file__).resolve().parents[2] / "fixtures" / "chunking" / "policy_zh.md"


def test_a_child_hit_brings_its_larger_parent_and_the_citation_shows_it(
    live: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "policy"
    folder.mkdir()
    shutil.copy(POLICY, folder / "policy_zh.md")
    library_id = create_library(live, "Policy")
    chunking(live, library_id, "parent-child")
    live.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    settle(live, library_id)
    res = live.call(
        RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="一线城市每晚住宿标准")
    )
    top = res.results[0]
    assert "六百元" in top.snippet
    group = next(g for g in res.context.groups if top.chunk_id in g.hit_chunk_ids)
    assert group.kind == "parent"
    # the parent holds the sibling sections around the hit, not only the hit's own section
    assert "六百元" in group.text and "报销单" in group.text and "年假" in group.text
    ref = live.call(
        REFERENCE_CONTEXT,
        r.ReferenceRequest(
            library_id=library_id, document_id=top.document_id, chunk_id=top.chunk_id
        ),
    )
    parent, hit = ref.chunks
    assert parent.role == "parent" and hit.role == "child" and hit.is_hit
    assert len(parent.content) >= 3 * len(hit.content)
    shown = reference_html(ref)
    first_line = hit.content.split("\n")[0]
    assert shown.count(first_line[:30]) == 1, "the child is shown once, inside its parent"
    bold = shown.index("font-weight: bold")
    assert shown.index("年假") < bold < shown.index(first_line[:30]), "in place, in bold"
