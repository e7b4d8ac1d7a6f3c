"""The previous / next page buttons of a paged table with its "first–last of total" line, so the
documents table, the chunk list and the entity list page the same way. The owner keeps where it
is (an offset or a cursor) and says what the page shows; the pager says which way to go."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.buttons import button


class PagerWidget(QtWidgets.QWidget):
    """``label · ‹ · ›`` (or ``‹ · label · ›`` with ``label_between``); ``step`` carries -1 or
    +1. With ``arrows`` the buttons show ‹ and › and keep their names as tooltips (and as their
    accessible names), which keeps a crowded row narrow. ``auto_default=False`` keeps Enter in a
    dialog's fields from paging."""

    step = QtCore.Signal(int)

    def __init__(
        self,
        previous_key: str = "docs.prev",
        next_key: str = "docs.next",
        *,
        arrows: bool = False,
        label_between: bool = False,
        auto_default: bool = True,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.prev_button = button(
            previous_key, lambda: self.step.emit(-1), auto_default=auto_default
        )
        self.next_button = button(next_key, lambda: self.step.emit(1), auto_default=auto_default)
        if arrows:
            for pushed, arrow, key in (
                (self.prev_button, "‹", previous_key),
                (self.next_button, "›", next_key),
            ):
                pushed.setText(arrow)
                pushed.setToolTip(tr(key))
        self.page_label = QtWidgets.QLabel()
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        if label_between:
            row.addWidget(self.prev_button)
            row.addWidget(self.page_label, 1, QtCore.Qt.AlignmentFlag.AlignCenter)
            row.addWidget(self.next_button)
        else:
            row.addWidget(self.page_label)
            row.addWidget(self.prev_button)
            row.addWidget(self.next_button)

    def show_page(self, text: str, *, has_previous: bool, has_next: bool) -> None:
        """The page line's text and which ways are open."""
        self.page_label.setText(text)
        self.prev_button.setEnabled(has_previous)
        self.next_button.setEnabled(has_next)


def page_text(first: int, last: int, total: int) -> str:
    """ "1–50 of 60"; an empty list says so ("第 0–0 条，共 0 条" read like a count of a page)."""
    if not total:
        return tr("docs.page.none")
    return tr("docs.page", first=first, last=last, total=total)
