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


def test_the_cited_chunk_is_bold_only_among_text_around_it(qtbot: QtBot) -> None:
    """A chunk shown alone ("View chunk" on a one-chunk note) was wholly bold and read as a
    heading (a helper's try); beside its neighbours it stands out in bold."""
    from goodbuddy_kb.contracts.retrieval import ReferenceChunk, ReferenceContextResponse
    from goodbuddy_kb.ui.widgets.reference_view import reference_html

    def chunk(n: int, hit: bool) -> ReferenceChunk:
        return ReferenceChunk(
            chunk_id=f"{n}" * 32, ordinal=n, role="standalone", content=f"Passage {n}.", is_hit=hit
        )

    def bold_lines(chunks: list[ReferenceChunk]) -> list[str]:
        ref = ReferenceContextResponse(
            valid=True, message=None, library_name="KB", document_title="Handbook",
            document_path="handbook.md", source_kind="folder", source_location="/docs",
            locator=None, chunks=chunks,
        )  # fmt: skip
        view = QtWidgets.QTextBrowser()
        qtbot.addWidget(view)
        view.setHtml(reference_html(ref))
        block, bold = view.document().begin(), []
        while block.isValid():
            weight = block.begin().fragment().charFormat().fontWeight()
            if block.text().startswith("Passage") and weight >= 700:
                bold.append(block.text())
            block = block.next()
        return bold

    assert bold_lines([chunk(1, True)]) == []
    assert bold_lines([chunk(1, False), chunk(2, True), chunk(3, False)]) == ["Passage 2."]
