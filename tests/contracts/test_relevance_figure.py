"""How a relevance reads as a figure: cut, never rounded up to a floor it does not reach, and a
small relevance never reads as none at all."""

from __future__ import annotations

from goodbuddy_kb.contracts.retrieval import relevance_figure


def test_a_figure_is_cut_not_rounded_up() -> None:
    assert relevance_figure(0.199) == "0.19"
    assert relevance_figure(0.2) == "0.20"
    assert relevance_figure(0.8849, 3) == "0.884"


def test_a_small_relevance_is_not_shown_as_none() -> None:
    # a below-the-floor result showed "0.00" beside a full-text #1: read as "no relevance"
    assert relevance_figure(0.004) == "<0.01"
    assert relevance_figure(0.0004, 3) == "<0.001"
    assert relevance_figure(0.0) == "0.00"
