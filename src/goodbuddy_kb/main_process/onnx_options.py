"""ONNX Runtime sessions that sleep when they have no work: every session the backend creates
(OCR's through rapidocr, and any encoder's) takes its options from here.

By default ONNX Runtime's thread pools spin (busy-wait) after each run for their next piece of
work: measured here, an OCR'd page left about 36 ms of CPU burnt in the half second after it,
and none with spinning off, at no measurable cost to the page's own time (the pools' threads
block on a condition and are woken by the next run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxruntime import SessionOptions  # type: ignore[import-untyped]

#: The session configuration entries that turn spinning off (intra- and inter-op pools).
NO_SPINNING = {
    "session.intra_op.allow_spinning": "0",
    "session.inter_op.allow_spinning": "0",
}


def without_spinning(options: SessionOptions) -> SessionOptions:
    """``options`` with both thread pools' spinning off (returned for chaining)."""
    for key, value in NO_SPINNING.items():
        options.add_session_config_entry(key, value)
    return options


def session_options(intra_op_threads: int = 0) -> SessionOptions:
    """New session options for a backend session: no spinning; ``intra_op_threads`` threads
    for one operator (0: ONNX Runtime's choice, one per core)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    return without_spinning(options)
