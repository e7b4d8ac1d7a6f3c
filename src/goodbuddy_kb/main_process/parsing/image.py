"""Images (PNG, JPEG, WebP, TIFF, BMP): checked to open, every frame a page for the OCR stage.

No text comes out here: the OCR stage (``main_process/ocr``) reads the pages later, in its own
task. A file that does not decode is a per-file failure now, not an OCR failure later.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.main_process.parsing.model import ParsedDocument, ParseError

MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
    ".bmp": "image/bmp",
}
#: Largest image (in pixels) decoded; past it Pillow's decompression-bomb guard would fire.
MAX_PIXELS = 80_000_000


def image_pages(data: bytes) -> int:
    """How many frames the image has; ParseError with a readable reason when it cannot be read."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise ParseError(
                    english(
                        "ocr.image_too_large",
                        {"width": width, "height": height, "limit": MAX_PIXELS // 1_000_000},
                    )
                )
            frames = int(getattr(image, "n_frames", 1) or 1)
            image.load()  # a truncated or corrupt body fails here, not in the OCR stage
    except ParseError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ParseError(
            english("ocr.image_unreadable", {"error": exc.__class__.__name__})
        ) from exc
    except Image.DecompressionBombError as exc:
        raise ParseError(english("ocr.image_too_large_to_decode")) from exc
    return frames


def make_image_parser(suffix: str) -> Callable[[bytes, str], ParsedDocument]:
    media = MEDIA_TYPES[suffix]

    def parse_image(data: bytes, title: str) -> ParsedDocument:
        frames = image_pages(data)
        return ParsedDocument(
            title, media, [], ocr_pages=tuple(range(1, frames + 1)), page_count=frames
        )

    return parse_image
