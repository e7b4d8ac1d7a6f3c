"""Rebuild actions shared by the screens that offer them: rebuild a document, rebuild a library
(after a confirmation that says what is re-read and that the current index keeps serving), and
rebuild the vector index when it is incompatible with the configured model. Before a library or
document rebuild the backend's preview says which documents hold manual chunk work; the
confirmation then offers skip (the default) / discard / cancel (``manual_work.py``). Progress
and cancel live in the Tasks tab; these only start the tasks."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.bridge.client import Callback
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    DOCUMENT_REBUILD,
    LIBRARY_REBUILD,
    REBUILD_PREVIEW,
    VECTORS_REBUILD,
)
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents import manual_work
from goodbuddy_kb.ui.i18n import model_label, tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.tasks.follow import announce_end

Notice = Callable[[str], None]


def is_failed(doc: c.Document) -> bool:
    """A retry is offered prominently where it can help: the last re-read failed (the old
    version still serves) or the vectors failed. A file that cannot be read (corrupt, empty)
    is not retried: it offers its reason, its folder and removal instead."""
    return doc.retryable_error is not None or doc.status.vector == "failed"


def unreadable(doc: c.Document) -> bool:
    """The file itself cannot be read (corrupt, empty, binary): rebuilding it again cannot
    help; looking at it, or removing it, can."""
    return doc.status.parse == "failed" and doc.retryable_error is None


def _reported(
    link: BackendLink, notice: Notice, started_key: str, **values: object
) -> Callback[ContractModel]:
    """Says the task started, then (in its place) how it ended."""

    def done(result: ContractModel | None, error: KbError | None) -> None:
        if error is not None:
            notice(tr("error.generic", message=error.message))
        elif result is not None:
            notice(tr(started_key, **values))
            task_id = getattr(result, "task_id", None)
            if isinstance(task_id, str):
                announce_end(link, task_id, notice)

    return done


def rebuild_document(
    parent: QtWidgets.QWidget,
    link: BackendLink,
    doc: c.Document,
    notice: Notice,
    shown: Callable[[QtWidgets.QMessageBox], None],
) -> None:
    """Start at once, unless the document holds manual chunk work: then ask (``shown`` gets
    the box)."""

    def start(choice: r.ManualWorkChoice) -> None:
        link.call(
            DOCUMENT_REBUILD,
            r.DocumentRebuildRequest(
                library_id=doc.library_id, document_id=doc.id, manual_work=choice
            ),
            _reported(link, notice, "rebuild.document.started", path=doc.path),
        )

    def previewed(result: r.RebuildPreviewResponse | None, error: KbError | None) -> None:
        if error is not None:
            notice(tr("error.generic", message=error.message))
        elif result is not None and result.total.total:
            box = _confirm(
                parent,
                tr("rebuild.document"),
                tr("rebuild.document.confirm", path=readable_path(doc.path)),
                "rebuild.library.accept",
                lambda: start("skip"),
            )
            manual_work.offer_choice(box, result, start, "rebuild.manual.skip_one")
            shown(box)
        elif result is not None:
            start("skip")

    link.call(
        REBUILD_PREVIEW,
        r.RebuildPreviewRequest(library_id=doc.library_id, document_id=doc.id),
        previewed,
    )


def _confirm(
    parent: QtWidgets.QWidget, title: str, text: str, accept_key: str, on_yes: Callable[[], None]
) -> QtWidgets.QMessageBox:
    """A window-modal confirmation (Escape cancels; the accept button is the default)."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    accept = box.addButton(tr(accept_key), QtWidgets.QMessageBox.ButtonRole.AcceptRole)
    cancel = box.addButton(tr("dialog.cancel"), QtWidgets.QMessageBox.ButtonRole.RejectRole)
    accept.setAccessibleName(tr(accept_key))
    box.setDefaultButton(accept)
    box.setEscapeButton(cancel)
    box.setProperty("acceptButton", accept)
    box.finished.connect(lambda _r: on_yes() if box.clickedButton() is accept else None)
    box.open()
    return box


def confirm_library_rebuild(
    parent: QtWidgets.QWidget,
    link: BackendLink,
    library_id: str,
    documents: int,
    notice: Notice,
) -> QtWidgets.QMessageBox:
    """The confirmation, at once; when the preview finds manual chunk work it adds the counts
    and the skip / discard choice to it."""

    def start(choice: r.ManualWorkChoice) -> None:
        link.call(
            LIBRARY_REBUILD,
            r.LibraryRebuildRequest(library_id=library_id, manual_work=choice),
            _reported(link, notice, "rebuild.library.started", count=documents),
        )

    box = _confirm(
        parent,
        tr("rebuild.library"),
        tr("rebuild.library.confirm", count=documents),
        "rebuild.library.accept",
        lambda: start("skip"),
    )

    def previewed(result: r.RebuildPreviewResponse | None, error: KbError | None) -> None:
        if result is not None:
            manual_work.offer_choice(box, result, start)

    link.call(REBUILD_PREVIEW, r.RebuildPreviewRequest(library_id=library_id), previewed)
    return box


def incompatible(info: m.VectorIndexInfo) -> bool:
    """The library has an index, a model is configured, and the index was made by another (or
    by the bundled model's other encoder: still searchable, a rebuild offered)."""
    return (
        info.model_label is not None
        and info.configured_label is not None
        and (not info.compatible or info.rebuild_offered)
    )


def confirm_vector_rebuild(
    parent: QtWidgets.QWidget,
    link: BackendLink,
    library_id: str,
    info: m.VectorIndexInfo,
    notice: Notice,
) -> QtWidgets.QMessageBox:
    def start() -> None:
        link.call(
            VECTORS_REBUILD,
            m.VectorRebuildRequest(library_id=library_id),
            _reported(link, notice, "rebuild.vectors.started"),
        )

    text = tr(
        "rebuild.vectors.confirm",
        old=model_label(info.model_label) if info.model_label else tr("vector.none"),
        new=model_label(info.configured_label) if info.configured_label else tr("vector.none"),
        chunks=info.retrievable_chunks,
    )
    # The same model under both names: say why a rebuild is offered (the other encoder built it).
    why = say_field(info, "reason") if info.compatible and info.rebuild_offered else ""
    if not info.compatible:  # kept, but of no use to the configured model's questions
        why = tr("rebuild.vectors.meanwhile")
    return _confirm(
        parent,
        tr("rebuild.vectors"),
        f"{text}\n\n{why}" if why else text,
        "rebuild.vectors.accept",
        start,
    )
