"""The settings tab's fields: their ranges, the groups they belong to, the fusion choice, and
the ranges' shared width."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr

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
