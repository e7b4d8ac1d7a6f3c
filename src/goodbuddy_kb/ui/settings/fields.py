"""The settings tab's fields: their ranges, the groups they belong to, the fusion choice, the
ranges' shared width, and the knowledge graph's group."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.buttons import button

INT_FIELDS = {
    "topK": (1, 20),
    "candidateMultiplier": (2, 10),
    "contextMaxCharacters": (2_000, 48_000),
    "adjacentChunkCount": (0, 2),
    "targetCharacters": (400, 8_000),
    "overlapCharacters": (0, 3_200),
    "parentCharacters": (1_600, 16_000),
    "childCharacters": (300, 4_000),
}
FLOAT_FIELDS = {
    "minimumVectorSimilarity": (0.0, 1.0),
    "minimumRelevance": (0.0, 1.0),
    "ftsWeight": (0.0, 2.0),
    "vectorWeight": (0.0, 2.0),
    "graphWeight": (0.0, 2.0),
}
RETRIEVAL = [
    "topK",
    "minimumRelevance",
    "minimumVectorSimilarity",
    "ftsWeight",
    "vectorWeight",
    "graphWeight",
    "candidateMultiplier",
    "contextMaxCharacters",
    "adjacentChunkCount",
]
CHUNKING = ["targetCharacters", "overlapCharacters", "parentCharacters", "childCharacters"]


def number_text(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:g}"


def fusion_choice() -> QtWidgets.QComboBox:
    """Adaptive fusion (recommended) or plain RRF, the tooltip saying what each does."""
    box = QtWidgets.QComboBox()
    box.setAccessibleName(tr("field.fusion"))
    box.setToolTip(tr("field.fusion.hint"))
    for method in ("adaptive", "rrf"):
        box.addItem(tr(f"fusion.{method}"), method)
    return box


def align_ranges(labels: list[QtWidgets.QLabel]) -> None:
    """The ranges beside a group's fields share one width, so the fields end in one line (each
    field took what its own range left, a ragged edge found under Xvfb). Re-run when the
    language changes the words: the tab is rebuilt then."""
    widest = max((label.sizeHint().width() for label in labels), default=0)
    for label in labels:
        label.setMinimumWidth(widest)


class GraphBox(QtWidgets.QGroupBox):
    """The library's knowledge graph in one line (strategy and counts) and the graph settings,
    the same dialog the Knowledge graph tab opens (PRD §6)."""

    def __init__(self, open_settings: Callable[[], None]) -> None:
        super().__init__(tr("settings.graph"))
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.settings_button = button("graph.settings", open_settings)
        self.settings_button.setEnabled(False)
        hint = QtWidgets.QLabel(tr("settings.graph.hint"))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.summary, 1)
        row.addWidget(self.settings_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(hint)
