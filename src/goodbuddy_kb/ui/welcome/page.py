"""The welcome page shown instead of an empty window: what the product does, "Add a folder of
documents", "Try the sample library", a line on what stays on this computer, and the language
(switchable here, before anything else). Keyboard first: the sample button has the focus and
every control is reached with Tab; it fits an 800×600 window.

The page only asks: the window (through ``FirstRun``) makes the library."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.mainwindow.menus import LANGUAGES
from goodbuddy_kb.ui.widgets.app_icon import app_icon
from goodbuddy_kb.ui.widgets.theme import SPACE


def _hint(key: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(tr(key))
    label.setWordWrap(True)
    label.setObjectName("muted")
    return label


class WelcomePage(QtWidgets.QWidget):
    #: A folder was chosen to become a library (its path).
    folder_chosen = QtCore.Signal(str)
    sample_chosen = QtCore.Signal()
    #: A language was chosen on the page (its code); the window applies it.
    language_chosen = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePage")
        self.folder_dialog: QtWidgets.QFileDialog | None = None
        logo = QtWidgets.QLabel()
        logo.setPixmap(app_icon().pixmap(72, 72))
        logo.setAccessibleName(tr("app.title"))
        self.title = QtWidgets.QLabel(tr("welcome.title"))
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        intro = QtWidgets.QLabel(tr("welcome.intro"))
        intro.setWordWrap(True)
        self.sample_button = self._action("welcome.sample", self.sample_chosen.emit)
        self.sample_button.setDefault(True)
        self.folder_button = self._action("welcome.add_folder", self.choose_folder)
        self.local_line = QtWidgets.QLabel(tr("welcome.local"))
        self.local_line.setWordWrap(True)
        self.status = QtWidgets.QLabel()
        self.status.setObjectName("muted")
        self.language_box = QtWidgets.QComboBox()
        self.language_box.setAccessibleName(tr("welcome.language"))
        for code, label in LANGUAGES:
            self.language_box.addItem(label, code)
        self.language_box.setCurrentIndex([c for c, _ in LANGUAGES].index(language()))
        self.language_box.activated.connect(
            lambda index: self.language_chosen.emit(self.language_box.itemData(index))
        )
        self._lay_out(logo, intro)
        self.setTabOrder(self.sample_button, self.folder_button)
        self.setTabOrder(self.folder_button, self.language_box)

    def _action(self, key: str, slot: object) -> QtWidgets.QPushButton:
        pushed = QtWidgets.QPushButton(tr(key))
        pushed.setAccessibleName(tr(key))
        pushed.setAccessibleDescription(tr(f"{key}.hint"))
        pushed.setMinimumHeight(36)
        pushed.clicked.connect(slot)
        return pushed

    def _lay_out(self, logo: QtWidgets.QLabel, intro: QtWidgets.QLabel) -> None:
        column = QtWidgets.QWidget()
        column.setMaximumWidth(640)
        layout = QtWidgets.QVBoxLayout(column)
        layout.setSpacing(SPACE)
        head = QtWidgets.QHBoxLayout()
        head.addWidget(logo, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.title, 1)
        layout.addLayout(head)
        layout.addWidget(intro)
        layout.addSpacing(SPACE)
        for pushed, hint in (
            (self.sample_button, "welcome.sample.hint"),
            (self.folder_button, "welcome.add_folder.hint"),
        ):
            layout.addWidget(pushed)
            layout.addWidget(_hint(hint))
        layout.addWidget(self.status)
        layout.addSpacing(SPACE)
        layout.addWidget(self.local_line)
        language_row = QtWidgets.QHBoxLayout()
        language_label = QtWidgets.QLabel(tr("welcome.language"))
        language_label.setBuddy(self.language_box)
        language_row.addWidget(language_label)
        language_row.addWidget(self.language_box)
        language_row.addStretch(1)
        layout.addLayout(language_row)
        layout.addStretch(1)  # the words stay together at the top, whatever the height
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        holder = QtWidgets.QWidget()
        centred = QtWidgets.QHBoxLayout(holder)
        centred.addStretch(1)
        centred.addWidget(column, 4)
        centred.addStretch(1)
        scroll.setWidget(holder)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        if self.sample_button.isEnabled():
            self.sample_button.setFocus()

    def choose_folder(self) -> None:
        """A folder dialog (Qt's own, the same everywhere and usable with the keyboard)."""
        dialog = QtWidgets.QFileDialog(self, tr("welcome.folder_dialog"))
        dialog.setFileMode(QtWidgets.QFileDialog.FileMode.Directory)
        dialog.setOption(QtWidgets.QFileDialog.Option.ShowDirsOnly, True)
        dialog.setOption(QtWidgets.QFileDialog.Option.DontUseNativeDialog, True)
        dialog.fileSelected.connect(self.folder_chosen.emit)
        self.folder_dialog = dialog
        dialog.open()

    def set_working(self, working: bool, problem: str = "") -> None:
        """While a library is being made the two actions wait (and say so); a failure is said
        here and the actions come back."""
        self.sample_button.setEnabled(not working)
        self.folder_button.setEnabled(not working)
        self.status.setText(tr("welcome.working") if working else problem)
        if not working:
            self.sample_button.setFocus()
