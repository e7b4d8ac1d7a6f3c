"""Help → About: the icon, name and version, the data directory, the bundled models with their
licences and the third-party notices — all as the backend says them (`system:about`, the same
notices `goodbuddy-kb notices` prints)."""

from __future__ import annotations

from goodbuddy_kb import __version__
from goodbuddy_kb.contracts import system as y
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import SYSTEM_ABOUT
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.app_icon import app_icon


class AboutDialog(QtWidgets.QDialog):
    #: The backend's answer is shown (tests wait on it).
    loaded = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("about.title"))
        self.resize(640, 520)
        #: What the backend said (None until it answers).
        self.info: y.AboutInfo | None = None
        logo = QtWidgets.QLabel()
        logo.setPixmap(app_icon().pixmap(64, 64))
        logo.setAccessibleName(tr("app.title"))
        name = QtWidgets.QLabel(f"<b>{tr('app.title')}</b>")
        self.version = QtWidgets.QLabel(tr("about.version", version=__version__))
        self.data_dir = QtWidgets.QLabel(tr("about.data_dir", path=str(link.data_dir)))
        self.models = QtWidgets.QLabel(tr("about.loading"))
        for label in (self.version, self.data_dir, self.models):
            label.setWordWrap(True)
            label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notices = QtWidgets.QPlainTextEdit()
        self.notices.setObjectName("data")
        self.notices.setReadOnly(True)
        self.notices.setAccessibleName(tr("about.notices"))
        self.notices.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        close = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Close)
        close.setText(tr("about.close"))
        buttons.rejected.connect(self.reject)
        head = QtWidgets.QHBoxLayout()
        head.addWidget(logo, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        words = QtWidgets.QVBoxLayout()
        for widget in (name, self.version, self.data_dir):
            words.addWidget(widget)
        head.addLayout(words, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(QtWidgets.QLabel(f"<b>{tr('about.models')}</b>"))
        layout.addWidget(self.models)
        notices_label = QtWidgets.QLabel(f"<b>{tr('about.notices')}</b>")
        notices_label.setBuddy(self.notices)
        layout.addWidget(notices_label)
        layout.addWidget(self.notices, 1)
        layout.addWidget(buttons)
        link.call(SYSTEM_ABOUT, y.AboutRequest(), self._show)

    def _show(self, result: y.AboutInfo | None, error: KbError | None) -> None:
        if result is None:
            self.models.setText(say_error(error) if error is not None else "")
        else:
            self.version.setText(tr("about.version", version=result.version))
            self.data_dir.setText(tr("about.data_dir", path=result.data_dir))
            self.models.setText(
                "\n".join(tr("about.model", name=m.name, licence=m.licence) for m in result.models)
            )
            self.info = result
            self.notices.setPlainText(notices_text(result))
        self.models.updateGeometry()
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.loaded.emit()


def notices_text(info: y.AboutInfo) -> str:
    """The notices as ``goodbuddy-kb notices`` prints them, their headings in the person's
    language (the Chinese About read "third-party notices", "Bundled models:", "Runtime
    packages (86):"); names, versions and licences as their makers give them."""
    lines = [tr("about.notices.heading", version=info.version), "", tr("about.notices.models")]
    lines += [
        f"  {m.name} — {m.licence} — {m.home_page} ({tr('about.notices.in', package=m.provided_by)})"
        for m in info.models
    ]
    lines += ["", tr("about.notices.packages", count=len(info.packages))]
    lines += [
        f"  {p.name} {p.version} — {p.licence}" + (f" — {p.home_page}" if p.home_page else "")
        for p in info.packages
    ]
    return "\n".join(lines) + "\n"
