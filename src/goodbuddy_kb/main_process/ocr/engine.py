"""The bundled recogniser: RapidOCR with the PP-OCR detection, direction and recognition
models that ship inside the ``rapidocr`` wheel, on ONNX Runtime's CPU provider.

Every model path is given explicitly, so the package never takes its download branch: a
missing model is :class:`OcrUnavailable` (a retryable, visible state), never a network call.
The engine loads once per process (seconds) and is shared; recognition is serialised because
one ONNX session per model is used from whichever task thread asks. Its sessions do not spin
after a page (``onnx_options``), so the backend idles between pages and after the last.
"""

from __future__ import annotations

import logging
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.main_process.ocr.layout import Line, line_from_box
from goodbuddy_kb.main_process.onnx_options import without_spinning

log = logging.getLogger(__name__)

#: The model files inside the rapidocr package (detection, text direction, recognition).
MODEL_FILES = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
}
#: Lines recognised below this score are dropped as noise; above it they are kept.
MIN_SCORE = 0.3
ENGINE_NAME = "RapidOCR PP-OCRv6 small (ONNX Runtime)"


class OcrUnavailable(Exception):
    """The OCR engine cannot run here (package or model missing, runtime failed to load)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class OcrEngine:
    def __init__(self, recogniser: Any) -> None:
        self._recogniser = recogniser
        self._lock = threading.Lock()

    def recognise(self, image: np.ndarray[Any, Any]) -> list[Line]:
        """Lines of text in an RGB image (H×W×3, uint8), with confidences and boxes."""
        with self._lock:
            result = self._recogniser(image)
        boxes = getattr(result, "boxes", None)
        if boxes is None:
            return []
        return [
            line_from_box(str(text), float(score), np.asarray(box).tolist())
            for box, text, score in zip(boxes, result.txts, result.scores, strict=False)
        ]


_engine: list[OcrEngine] = []  # the one shared engine, once loaded
_engine_lock = threading.Lock()


def model_paths() -> dict[str, str]:
    try:
        root = Path(str(resources.files("rapidocr"))) / "models"
    except ModuleNotFoundError as exc:
        raise OcrUnavailable(english("ocr.unavailable_package")) from exc
    paths = {key: root / name for key, name in MODEL_FILES.items()}
    missing = [p.name for p in paths.values() if not p.is_file()]
    if missing:
        raise OcrUnavailable(english("ocr.unavailable_models", {"files": ", ".join(missing)}))
    return {key: str(path) for key, path in paths.items()}


_quieted: list[bool] = []  # rapidocr's builder wrapped already (under ``_engine_lock``)


def _sessions_without_spinning() -> None:
    """rapidocr builds its ONNX Runtime session options itself, with no setting for spinning:
    its builder is wrapped (once per process) so that every session it makes gets
    ``without_spinning``. A rapidocr without that builder keeps its own options (logged)."""
    if _quieted:
        return
    from rapidocr.inference_engine.onnxruntime.main import OrtInferSession

    build = OrtInferSession.__dict__.get("_init_sess_opts")
    if not isinstance(build, staticmethod):
        log.warning("OCR sessions keep ONNX Runtime's spinning: rapidocr's options builder moved")
        return
    original = build.__func__

    def quiet_options(cfg: Any) -> Any:
        return without_spinning(original(cfg))

    OrtInferSession._init_sess_opts = staticmethod(quiet_options)  # type: ignore[method-assign]
    _quieted.append(True)


def get_engine() -> OcrEngine:
    """The shared engine, loaded on first use; OcrUnavailable when it cannot be."""
    with _engine_lock:
        if not _engine:
            params: dict[str, Any] = {
                "Global.log_level": "error",
                # keep weak lines (they are marked, not dropped): the default floor is 0.5
                "Global.text_score": MIN_SCORE,
                **model_paths(),
            }
            try:
                from rapidocr import RapidOCR

                _sessions_without_spinning()
                recogniser = RapidOCR(params=params)
            except ImportError as exc:
                raise OcrUnavailable(
                    english("ocr.unavailable_runtime", {"error": exc.__class__.__name__})
                ) from exc
            except (OSError, RuntimeError, ValueError) as exc:
                raise OcrUnavailable(
                    english("ocr.unavailable_engine", {"error": exc.__class__.__name__})
                ) from exc
            logging.getLogger("RapidOCR").setLevel(logging.ERROR)
            _engine.append(OcrEngine(recogniser))
        return _engine[0]
