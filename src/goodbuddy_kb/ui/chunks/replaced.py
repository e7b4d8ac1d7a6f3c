"""The edits of a document's chunks that a changed file's new text replaced: kept by the
backend until dismissed, shown from the chunks dialog in full (to copy back what is needed),
with "Dismiss them" to forget them. A one-digit change to a file once wiped a typed paragraph,
every place saying "no problems" (a helper's try)."""

from __future__ import annotations

from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.confirm import confirm_action
from goodbuddy_kb.ui.widgets.times import local_time


def replaced_text(edits: list[k.ReplacedEdit]) -> str:
    """Each replaced edit in full, the latest last, apart by a rule."""
    return "\n\n――――――――\n\n".join(e.content for e in edits)


def replaced_box(parent: QtWidgets.QWidget, edits: list[k.ReplacedEdit]) -> QtWidgets.QMessageBox:
    """The replaced edits (their text under "Show Details…", selectable), "Dismiss them" as the
    box's ``confirmButton`` and Cancel to keep them."""
    when = local_time(edits[-1].replaced_at)  # local time, to the minute
    box = confirm_action(
        parent,
        tr("chunks.replaced.title"),
        tr("chunks.replaced.text", n=len(edits), when=when),
        tr("chunks.replaced.dismiss"),
    )
    box.setIcon(QtWidgets.QMessageBox.Icon.Information)
    box.setDetailedText(replaced_text(edits))
    return box
