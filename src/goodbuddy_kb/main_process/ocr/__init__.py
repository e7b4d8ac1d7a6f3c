"""Local OCR: scanned PDF pages and images become text with page locators, offline.

``engine`` wraps the bundled recogniser (RapidOCR's PP-OCR models on ONNX Runtime, shipped
inside the wheel); ``render`` turns pages into images (pypdfium2 for PDFs, Pillow for images);
``layout`` puts recognised lines back in reading order and paragraphs; ``stage`` runs a
document's pages with cancel, page cap and time budget; ``run`` is the OCR task of a library.
"""
