"""Documents list in the order a person expects, through the real socket: numbers by their value
("Chapter 2" before "Chapter 10"), case and full-width letters folded, the same order page by
page."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.methods import DOCUMENTS_LIST, LIBRARY_CREATE, SOURCE_ADD
from goodbuddy_kb.main_process.storage.documents import sort_key
from tests.bridge.helpers import wait_idle

NAMES = [
    "chapter 1.md",
    "Chapter 2.md",
    "chapter 10.md",
    "Ｃｈａｐｔｅｒ 11.md",
    "chapter 100.md",
    "notes/第2章.md",
    "notes/第12章.md",
    "v1.2.md",
    "v1.10.md",
]


def test_the_sort_key_orders_numbers_by_value_and_folds_case_and_width() -> None:
    shuffled = [NAMES[i] for i in (4, 2, 8, 0, 6, 3, 1, 7, 5)]
    assert sorted(shuffled, key=sort_key) == NAMES
    assert sort_key("file02.md") == sort_key("file2.md"), "leading zeros are the same number"
    assert sort_key("ＡＢＣ 3") == sort_key("abc 3")


def test_documents_list_by_their_names_as_a_person_reads_them(
    live: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "handbook"
    for name in NAMES:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {Path(name).stem}\n\nSome text about {name}.\n", encoding="utf-8")
    library_id = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Handbook")).library.id
    live.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    wait_idle(live)
    listed = live.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
    assert [d.path for d in listed.documents] == NAMES
    pages = [
        d.path
        for offset in range(0, len(NAMES), 4)
        for d in live.call(
            DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id, offset=offset, limit=4)
        ).documents
    ]
    assert pages == NAMES, "page by page, the same order"
