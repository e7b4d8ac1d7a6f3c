"""The typed locator reads what the chunkers write and skips what it does not understand."""

from __future__ import annotations

from goodbuddy_kb.contracts.locator import Locator


def test_a_chunker_locator_reads_as_typed_fields() -> None:
    wire = {
        "page": 3,
        "pageEnd": 4,
        "lineStart": 12,
        "lineEnd": 18,
        "headingPath": ["Leave", "Annual"],
        "ocr": True,
        "lowConfidence": ["Smudged 1O0", " "],
    }
    locator = Locator.from_wire(wire)
    assert (locator.page, locator.last_page, locator.line_start, locator.last_line) == (
        3,
        4,
        12,
        18,
    )
    assert locator.heading_path == ["Leave", "Annual"]
    assert locator.ocr and locator.low_confidence == ["Smudged 1O0"]


def test_missing_odd_and_unknown_keys_are_left_out() -> None:
    assert Locator.from_wire(None) == Locator() == Locator.from_wire({})
    odd = Locator.from_wire({"page": "3", "lineStart": True, "headingPath": "A", "newerKey": "x"})
    assert odd == Locator()
    single = Locator.from_wire({"page": 2, "lineStart": 5})
    assert (single.last_page, single.last_line) == (2, 5)


def test_an_ebook_chapter_reads_from_the_wire() -> None:
    assert Locator.from_wire({"chapter": "入职须知"}).chapter == "入职须知"
    assert Locator.from_wire({"chapter": 3}).chapter is None
    assert Locator.from_wire({"chapter": " "}).chapter is None
