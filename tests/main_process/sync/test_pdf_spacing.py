"""A PDF whose writer places each word on its own (Qt's QPdfWriter: a helper's try) came out of
the text layer with a tab between every two words, and the chunk view and the context a chat
model is given showed them as tab stops ("2.  Fees  and  Payment"). Read with plain spaces."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.main_process.parsing import parse
from goodbuddy_kb.qt.widgets import QtCore, QtGui


@pytest.mark.usefixtures("qapp")
def test_a_pdf_written_word_by_word_reads_with_spaces(tmp_path: Path) -> None:
    target = tmp_path / "contract.pdf"
    writer = QtGui.QPdfWriter(str(target))
    painter = QtGui.QPainter(writer)
    painter.setFont(QtGui.QFont("DejaVu Sans", 11))
    lines = ["2. Fees and Payment", "The annual contract value is EUR 240,000, invoiced monthly."]
    for n, line in enumerate(lines):
        painter.drawText(QtCore.QPointF(200, 400 + 300 * n), line)
    painter.end()
    document = parse(target.read_bytes(), "contract.pdf")
    text = "\n".join(s.text for s in document.sections)
    assert "\t" not in text
    for line in lines:
        assert line in text, text
