"""The rebuild confirmation's part about a person's chunk work (issue 28): how many chunks are
edited, disabled and deleted and in which documents, and the choice between skipping the
documents whose work the new chunking cannot carry over (the default button) and discarding
that work. Cancel stays the box's escape button."""

from __future__ import annotations

import html
from collections.abc import Callable

from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.tasks.progress import manual_counts

#: Documents named in the box; the rest are counted.
SHOWN_DOCUMENTS = 8

Start = Callable[[r.ManualWorkChoice], None]


def kept_sentence(n: int) -> str:
    """What the last rebuild did with ``n`` documents it skipped for their manual chunk work,
    naming the rebuild dialog's own button that applies the settings to them."""
    return tr("detail.kept", n=n, discard=tr("rebuild.manual.discard"))


def pending_sentence(kept: int) -> str:
    """ "Settings updated, waiting for rebuild", then what the last rebuild did with the
    ``kept`` documents it skipped for their manual chunk work (when there are any)."""
    whole = tr("detail.pending_rebuild")
    return whole + "\n" + kept_sentence(kept) if kept else whole


def wrapped_tip(text: str) -> str:
    """``text`` (lines) as a tooltip that wraps: a plain one is a single line as wide as its
    longest sentence, past the edge of an 800 px window."""
    return "<p>" + html.escape(text).replace("\n", "<br>") + "</p>" if text else ""


def describe(preview: r.RebuildPreviewResponse) -> str:
    """The counts, the documents (the first few by name) and what the choice means."""
    count = len(preview.documents) + preview.more_documents
    # the documents right under their count, then what happens to them: listed after "…are
    # skipped by default", they read as the documents that would be skipped (a helper's try)
    lines = [tr("rebuild.manual.summary", count=count, counts=manual_counts(preview.total))]
    lines += [
        tr("rebuild.manual.document", path=readable_path(d.path), counts=manual_counts(d.counts))
        for d in preview.documents[:SHOWN_DOCUMENTS]
    ]
    more = count - min(len(preview.documents), SHOWN_DOCUMENTS)
    if more:
        lines.append(tr("rebuild.manual.more", n=more))
    return "\n".join([*lines, "", tr("rebuild.manual.explain")])


def offer_choice(
    box: QtWidgets.QMessageBox,
    preview: r.RebuildPreviewResponse,
    start: Start,
    skip_key: str = "rebuild.manual.skip",
) -> None:
    """Turn an open rebuild confirmation into the skip / discard / cancel choice when the
    preview found manual work. Its accept button becomes "skip any whose work cannot be kept"
    (still the default: a rebuild started before the preview arrived skips too)."""
    if not preview.total.total or not box.isVisible():
        return
    box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
    box.setInformativeText(describe(preview))
    accept = box.property("acceptButton")
    if isinstance(accept, QtWidgets.QPushButton):
        accept.setText(tr(skip_key))
        accept.setAccessibleName(tr(skip_key))
    discard = box.addButton(
        tr("rebuild.manual.discard"), QtWidgets.QMessageBox.ButtonRole.DestructiveRole
    )
    discard.setAccessibleName(tr("rebuild.manual.discard"))
    box.setProperty("discardButton", discard)
    box.setProperty("manualWork", True)
    box.finished.connect(lambda _r: start("discard") if box.clickedButton() is discard else None)
