"""Golden chunks of the fixture documents, one golden per mode.

Regenerate after an intended change with GOODBUDDY_REGEN_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.chunking import chunk_document
from goodbuddy_kb.main_process.parsing import parse

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "chunking"
DOCUMENTS = ["policy_zh.md", "manual_en.md", "security_guide.pdf"]
MODES = ["fixed", "structure", "parent-child"]
SETTINGS = dict(
    target_characters=400, overlap_characters=80, parent_characters=1600, child_characters=300
)


def render(name: str, mode: str) -> list[dict[str, Any]]:
    doc = parse((FIXTURES / name).read_bytes(), name)
    drafts = chunk_document(
        doc, "0" * 32, KnowledgeChunkingSettings(mode=mode, **SETTINGS), contextual=True
    )  # type: ignore[arg-type]
    by_id = {d.id: d for d in drafts}
    return [
        {
            "role": d.role,
            "ordinal": d.ordinal,
            "parentOrdinal": by_id[d.parent_id].ordinal if d.parent_id else None,
            "heading": d.heading,
            "locator": d.locator,
            "blockType": d.block_type,
            "content": d.content,
            "indexPrefix": d.index_text[: len(d.index_text) - len(d.content)].rstrip("\n"),
        }
        for d in drafts
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", DOCUMENTS)
def test_golden(name: str, mode: str) -> None:
    golden = FIXTURES / "golden" / f"{name}.{mode}.json"
    actual = render(name, mode)
    if os.environ.get("GOODBUDDY_REGEN_GOLDEN"):
        golden.write_text(json.dumps(actual, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert actual == json.loads(golden.read_text(encoding="utf-8"))


def test_structure_keeps_tables_whole_or_split_between_rows_with_header() -> None:
    doc = parse((FIXTURES / "manual_en.md").read_bytes(), "manual_en.md")
    small = KnowledgeChunkingSettings(mode="structure", target_characters=400, overlap_characters=0)
    tables = [d for d in chunk_document(doc, "0" * 32, small) if d.block_type == "table"]
    assert len(tables) >= 3
    for t in tables:
        lines = t.content.split("\n")
        assert lines[0].startswith("| Co") and set(lines[1]) <= set("|-: "), "header repeated"
        assert all(line.startswith("|") and line.endswith("|") for line in lines), "never mid-row"


def test_headings_travel_with_chunks_and_empty_headings_make_no_chunk() -> None:
    md = b"# Title\n\n## Empty\n\n## Full\n\n### Deep\n\nBody text here.\n"
    drafts = chunk_document(parse(md, "x.md"), "0" * 32, KnowledgeChunkingSettings())
    assert [(d.heading, d.heading_path, d.content) for d in drafts] == [
        ("Deep", ("Title", "Full", "Deep"), "Body text here.")
    ]
    assert drafts[0].locator["headingPath"] == ["Title", "Full", "Deep"]


def test_contextual_prefix_changes_index_text_not_content() -> None:
    doc = parse((FIXTURES / "policy_zh.md").read_bytes(), "policy_zh.md")
    plain = chunk_document(doc, "0" * 32, KnowledgeChunkingSettings(), contextual=False)
    ctx = chunk_document(doc, "0" * 32, KnowledgeChunkingSettings(), contextual=True)
    assert [d.content for d in plain] == [d.content for d in ctx]
    assert [d.id for d in plain] == [d.id for d in ctx], "ids follow content"
    assert all(d.index_text == d.content for d in plain)
    assert all(d.index_text.startswith("星河科技员工手册 · ") for d in ctx)
    assert all(len(d.index_text) - len(d.content) <= 241 for d in ctx)
    assert plain[0].checksum != ctx[0].checksum


def test_parent_child_ids_survive_an_edit_elsewhere() -> None:
    doc_a = parse((FIXTURES / "policy_zh.md").read_bytes(), "p.md")
    text = (FIXTURES / "policy_zh.md").read_text(encoding="utf-8").replace("六百元", "六百五十元")
    doc_b = parse(text.encode(), "p.md")
    cfg = KnowledgeChunkingSettings(
        mode="parent-child", parent_characters=1600, child_characters=300
    )
    a = {d.id for d in chunk_document(doc_a, "0" * 32, cfg) if d.role == "child"}
    b = {d.id for d in chunk_document(doc_b, "0" * 32, cfg) if d.role == "child"}
    assert len(a & b) >= len(a) - 3, "only the chunks around the edit change id"
    assert a != b


@pytest.mark.parametrize("name", ["policy_zh.md", "manual_en.md"])
def test_parents_give_several_times_the_context_of_their_children(name: str) -> None:
    """PRD §8.1 / US-E3: small children for recall, large parents for context — a policy
    document's many short heading sections are packed into parents, not one parent each."""
    doc = parse((FIXTURES / name).read_bytes(), name)
    for cfg in (
        KnowledgeChunkingSettings(mode="parent-child"),
        KnowledgeChunkingSettings(mode="parent-child", **SETTINGS),
    ):
        drafts = chunk_document(doc, "0" * 32, cfg)
        parents = [d for d in drafts if d.role == "parent"]
        children = [d for d in drafts if d.role == "child"]
        mean_child = sum(len(c.content) for c in children) / len(children)
        assert len(children) >= 3 * len(parents)
        assert min(len(p.content) for p in parents) >= 3 * mean_child
        by_id = {p.id: p for p in parents}
        for child in children:
            # verbatim in its parent (a table's piece repeats the table's header rows)
            parent = by_id[child.parent_id or ""].content
            assert all(line in parent for line in child.content.split("\n"))


def test_a_parent_packs_sibling_sections_and_never_crosses_a_higher_heading() -> None:
    def chapter(n: int) -> str:
        sections = "".join(
            f"### {n}.{k}\n\n" + f"第{n}章第{k}节的内容。" * 20 + "\n\n" for k in range(1, 5)
        )
        return f"## 第{n}章\n\n{sections}"

    md = ("# 手册\n\n" + "".join(chapter(n) for n in range(1, 4))).encode()
    cfg = KnowledgeChunkingSettings(mode="parent-child", parent_characters=1600)
    drafts = chunk_document(parse(md, "m.md"), "0" * 32, cfg)
    parents = [d for d in drafts if d.role == "parent"]
    # each chapter (4 × ~200 characters) fits one parent; two chapters would not
    assert [p.heading_path for p in parents] == [("手册", f"第{n}章") for n in range(1, 4)]
    for n, parent in enumerate(parents, start=1):
        assert f"第{n}章第1节" in parent.content and f"第{n}章第4节" in parent.content
        assert f"{n}.2\n\n第{n}章第2节" in parent.content, "sub-headings stay in the context"
        assert len(parent.content) <= 1600
