"""How a result's relevance reads: the calibrated probability (``retrieval/calibration.py``)
as a number, five dots and a word — the same bands in the workbench, the chat's sources and the
citations, so a person can read "0.72 ●●●●○ likely relevant" as "right about seven times in
ten"."""

from __future__ import annotations

from goodbuddy_kb.contracts.retrieval import relevance_figure, relevance_steps
from goodbuddy_kb.contracts.settings import DEFAULT_MINIMUM_RELEVANCE
from goodbuddy_kb.ui.i18n import tr

#: (lowest probability, word key), highest band first.
BANDS = (
    (0.8, "relevance.very_likely"),
    (0.5, "relevance.likely"),
    (0.2, "relevance.possibly"),
    (0.0, "relevance.unlikely"),
)


def relevance_dots(p: float) -> str:
    """Five dots, one for each fifth of the probability, to the nearest (0.72 ●●●●○, 0.9 and
    above ●●●●●) — but none below the default floor, so a result under it never
    shows the dot of a "possibly relevant" one (0.18 showed ● like 0.28). Cut at every fifth,
    the fifth dot needed a relevance of 1.0, which the calibration never gives (its highest
    step is about 0.9): "very likely relevant" at 0.96 read ●●●●○."""
    if p < DEFAULT_MINIMUM_RELEVANCE:
        return "○" * 5
    filled = max(1, min(5, relevance_steps(p + 0.1, 5)))
    return "●" * filled + "○" * (5 - filled)


def relevance_word(p: float) -> str:
    return tr(next(key for low, key in BANDS if p >= low))


def relevance_text(p: float, below_floor: bool = False) -> str:
    """``0.72 ●●●●○ likely relevant``; a result under the floor says so instead of a word."""
    word = tr("relevance.below_floor") if below_floor else relevance_word(p)
    return f"{relevance_figure(p)} {relevance_dots(p)} {word}"
