"""An e-book chunk's locator reads as its chapter, in the user's language (issue 35)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.i18n import language, set_language
from goodbuddy_kb.ui.widgets.locator import format_locator


@pytest.fixture
def restore_language() -> Iterator[None]:
    before = language()
    yield
    set_language(before)


@pytest.mark.usefixtures("restore_language")
def test_the_chapter_reads_in_chinese_and_english() -> None:
    locator = Locator.from_wire({"chapter": "入职须知", "headingPath": ["入职须知", "工牌"]})
    set_language("zh")
    assert format_locator(locator) == "章节“入职须知” · 入职须知 > 工牌"
    set_language("en")
    assert format_locator(locator, headings=False) == 'chapter "入职须知"'
