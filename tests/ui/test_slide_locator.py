"""The slide locator of presentations (issue 35) in the one translated formatter."""

from __future__ import annotations

from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.widgets.locator import format_locator


def test_the_slide_locator_reads_in_both_languages() -> None:
    one, several = Locator.from_wire({"slide": 7}), Locator.from_wire({"slide": 7, "slideEnd": 9})
    try:
        set_language("zh")
        assert format_locator(one) == "第 7 张幻灯片"
        assert format_locator(several) == "第 7–9 张幻灯片"
        set_language("en")
        assert format_locator(one) == "slide 7"
        assert format_locator(several) == "slides 7–9"
    finally:
        set_language("en")
