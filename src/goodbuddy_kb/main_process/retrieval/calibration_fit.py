"""The relevance calibration's fitted constants, written by ``bench/tune_relevance.py fit
--write`` (do not edit by hand): per embedding family, the logistic model (intercept, then the
coefficients of ``calibration.relevance_features``' terms) and its isotonic map's knots."""

from __future__ import annotations

WITH_VECTOR: dict[str, tuple[float, ...]] = {
    "bundled": (-9.5636, 1.0314, 0.0, 0.0, 3.9769, 0.987, 4.3909, 7.1723, -1.1183, 1.0, 1.5),
    "other": (-9.0115, 0.0009, 0.0, 0.0, 4.0969, 2.4258, 5.2219, 6.4373, -0.5142, 0.0, 0.0),
}
WITH_VECTOR_MAP: dict[str, tuple[tuple[float, float], ...]] = {
    "bundled": (
        (-10.552, 0.0012),
        (-8.322, 0.0015),
        (-6.967, 0.0026),
        (-6.687, 0.0036),
        (-6.181, 0.005),
        (-5.641, 0.0076),
        (-4.596, 0.0116),
        (-2.867, 0.0396),
        (-0.973, 0.2236),
        (1.979, 0.8991),
    ),
    "other": (
        (-8.981, 0.0),
        (-8.113, 0.0011),
        (-6.836, 0.0023),
        (-5.523, 0.0094),
        (-4.997, 0.0108),
        (-4.314, 0.018),
        (-3.641, 0.0396),
        (-2.618, 0.0469),
        (-1.206, 0.2099),
        (1.743, 0.8316),
    ),
}
LEXICAL_ONLY: tuple[float, ...] = (
    -10.0269,
    0.0,
    0.0,
    0.0,
    4.2937,
    1.9144,
    5.2146,
    7.7947,
    -0.5455,
    0.0,
    0.0,
)
LEXICAL_ONLY_MAP: tuple[tuple[float, float], ...] = (
    (-8.334, 0.0001),
    (-7.5, 0.0004),
    (-6.831, 0.0022),
    (-5.946, 0.0035),
    (-5.428, 0.0073),
    (-5.117, 0.0089),
    (-4.543, 0.0173),
    (-3.428, 0.0344),
    (-1.766, 0.1248),
    (-0.161, 0.4351),
    (2.366, 0.9185),
)
VECTOR_ONLY: dict[str, tuple[float, ...]] = {
    "bundled": (-7.5079, 1.3934, 0.0, 0.0, 0.0, 0.0, 0.0, 6.4642, -0.4737, 0.0, 0.0)
}
VECTOR_ONLY_MAP: dict[str, tuple[tuple[float, float], ...]] = {
    "bundled": (
        (-5.36, 0.0063),
        (-3.982, 0.0135),
        (-3.636, 0.0302),
        (-3.39, 0.0367),
        (-2.912, 0.0453),
        (-2.232, 0.077),
        (-1.438, 0.1965),
        (-0.287, 0.3952),
        (0.321, 0.6408),
    )
}
