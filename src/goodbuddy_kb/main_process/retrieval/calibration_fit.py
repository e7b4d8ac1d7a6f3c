"""The relevance calibration's fitted constants, written by ``bench/tune_relevance.py fit
--write`` (do not edit by hand): per embedding family, the logistic model (intercept, then the
coefficients of ``calibration.relevance_features``' terms) and its isotonic map's knots."""

from __future__ import annotations

WITH_VECTOR: dict[str, tuple[float, ...]] = {
    "bundled": (-13.4573, 2.6673, 0.0, 5.9197, 0.0, 1.3096, 10.3492, 0.0),
    "other": (-11.4827, 0.0, 0.0, 6.2942, 0.7977, 5.2493, 9.1245, -0.0206),
}
WITH_VECTOR_MAP: dict[str, tuple[tuple[float, float], ...]] = {
    "bundled": (
        (-9.682, 0.0009),
        (-7.748, 0.0011),
        (-6.287, 0.0037),
        (-4.682, 0.0149),
        (-3.579, 0.0154),
        (-1.162, 0.2454),
        (2.749, 0.9295),
    ),
    "other": (
        (-9.77, 0.0),
        (-7.863, 0.0013),
        (-6.131, 0.0062),
        (-5.438, 0.0064),
        (-4.442, 0.0119),
        (-3.275, 0.0532),
        (-1.2, 0.2107),
        (2.478, 0.8984),
    ),
}
LEXICAL_ONLY: tuple[float, ...] = (-13.7834, 0.0, 0.0, 5.6156, 0.6226, 5.2021, 12.0229, 0.0)
LEXICAL_ONLY_MAP: tuple[tuple[float, float], ...] = (
    (-9.337, 0.0006),
    (-7.531, 0.0008),
    (-6.66, 0.0044),
    (-6.087, 0.0055),
    (-5.616, 0.0073),
    (-5.028, 0.0086),
    (-4.198, 0.0228),
    (-2.589, 0.0839),
    (0.094, 0.4511),
    (3.023, 0.9769),
)
