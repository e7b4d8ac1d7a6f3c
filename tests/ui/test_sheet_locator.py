"""A spreadsheet chunk's locator reads as its sheet and rows in both languages (issue 35)."""

from __future__ import annotations

from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.widgets.locator import format_locator


def test_sheet_and_rows_read_in_both_languages() -> None:
    rows = Locator.from_wire(
        {"sheet": "差旅标准", "rowStart": 12, "rowEnd": 30, "headingPath": ["差旅标准"]}
    )
    one = Locator.from_wire({"rowStart": 7})
    try:
        set_language("zh")
        assert format_locator(rows) == "工作表“差旅标准” · 第 12–30 行"
        assert format_locator(one) == "第 7 行"
        set_language("en")
        assert format_locator(rows) == 'Sheet "差旅标准" · rows 12–30'
        assert format_locator(one) == "row 7"
        assert Locator.from_wire({"sheet": 3, "rowStart": "x"}) == Locator()
    finally:
        set_language("en")
