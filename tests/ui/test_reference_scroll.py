"""The citation's context pane shows the cited chunk without cutting the source line at its top:
it scrolls to the chunk only when the chunk is not already in view from the top."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.widgets.reference_view import HIT_ANCHOR, show_hit


def context(before: int) -> str:
    head = (
        "<table><tr><td><b>Source</b></td><td>Folder · /docs/差旅管理办法.md</td></tr></table><hr>"
    )
    neighbours = "".join(f"<p>Neighbouring paragraph {n}.</p>" for n in range(before))
    hit = f"<a name='{HIT_ANCHOR}'></a><div style='font-weight: bold'>The cited passage.</div>"
    return head + neighbours + hit + "<p>A paragraph after it.</p>" * 12


def test_a_short_context_stays_at_its_top_and_a_long_one_scrolls_to_the_chunk(
    qtbot: QtBot,
) -> None:
    view = QtWidgets.QTextBrowser()
    qtbot.addWidget(view)
    view.resize(420, 220)
    view.show()
    view.setHtml(context(before=1))
    show_hit(view)
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0, "the context is taller than the pane"
    assert bar.value() == 0, "the chunk is in view from the top: the source line stays whole"
    view.setHtml(context(before=30))
    show_hit(view)
    assert bar.value() > 0, "a chunk far down is scrolled to"
    top = view.cursorForPosition(view.viewport().rect().topLeft()).block().text()
    assert "cited passage" in top or "Neighbouring" not in top
