"""Pages as images for the recogniser: PDF pages rendered by PDFium (pypdfium2), image frames
decoded by Pillow. One page at a time, so a 300-page scan never sits in memory whole."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

from goodbuddy_kb.contracts.messages import english

#: Rendering resolution for PDF pages: 2× of 72 dpi (144 dpi) reads body text well and keeps
#: an A4 page near 1190×1684 pixels, inside the recogniser's 2000-pixel side limit.
PDF_SCALE = 2.0
#: Longest side an image page is scaled down to before recognition.
MAX_SIDE = 2400


class PageSource(Protocol):
    def page(self, number: int) -> np.ndarray[Any, Any]:
        """Page ``number`` (1-based) as an RGB uint8 array."""
        ...


def _name(exc: BaseException) -> str:
    """What a failure is called in a reason: its class, never its message (file contents and
    paths stay out of stored reasons)."""
    return exc.__class__.__name__


class RenderError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _PdfPages:
    def __init__(self, pdf: Any) -> None:
        self._pdf = pdf

    def page(self, number: int) -> np.ndarray[Any, Any]:
        import pypdfium2 as pdfium  # type: ignore[import-untyped]

        try:
            page = self._pdf[number - 1]
            bitmap = page.render(scale=PDF_SCALE, grayscale=False)
            image = bitmap.to_pil().convert("RGB")
        except (pdfium.PdfiumError, IndexError, ValueError) as exc:
            raise RenderError(
                english("ocr.page_unrenderable", {"page": number, "error": _name(exc)})
            ) from exc
        return np.asarray(image)


class _ImagePages:
    def __init__(self, image: Any) -> None:
        self._image = image

    def page(self, number: int) -> np.ndarray[Any, Any]:
        from PIL import Image, ImageOps

        try:
            self._image.seek(number - 1)
            frame = ImageOps.exif_transpose(self._image.convert("RGB")) or self._image
            frame = frame.convert("RGB")
            if max(frame.size) > MAX_SIDE:
                frame.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
        except (OSError, ValueError, EOFError) as exc:
            raise RenderError(
                english("ocr.page_undecodable", {"page": number, "error": _name(exc)})
            ) from exc
        return np.asarray(frame)


@contextmanager
def open_pages(data: bytes, media_type: str) -> Iterator[PageSource]:
    """Pages of a PDF or an image, opened for the duration of the block."""
    if media_type == "application/pdf":
        import pypdfium2 as pdfium

        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise RenderError(english("ocr.pdf_unopenable", {"error": _name(exc)})) from exc
        try:
            yield _PdfPages(pdf)
        finally:
            pdf.close()
        return
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError) as exc:
        raise RenderError(english("ocr.image_unreadable", {"error": _name(exc)})) from exc
    try:
        yield _ImagePages(image)
    finally:
        image.close()
