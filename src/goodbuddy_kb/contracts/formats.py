"""The file formats the backend reads, by name and suffix: the one list the file chooser, the
folder scanner (through the parsers' registry it must equal), the watcher (which syncs through
the scanner) and README's "Files read" line are checked against (tests/contracts/test_formats.py).
A parser registered in ``main_process/parsing`` adds its suffixes here in the same change."""

from __future__ import annotations

#: (name as README says it, suffixes), in README's order.
READABLE_FORMATS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Markdown", (".md", ".markdown")),
    ("plain text", (".txt", ".text")),
    ("HTML", (".html", ".htm")),
    ("DOCX", (".docx",)),
    ("PDF", (".pdf",)),
    ("spreadsheets (XLSX, XLSM, ODS)", (".xlsx", ".xlsm", ".ods")),
    ("CSV and TSV", (".csv", ".tsv")),
    ("presentations (PPTX, ODP)", (".pptx", ".odp")),
    ("OpenDocument text (ODT)", (".odt",)),
    ("RTF", (".rtf",)),
    ("EPUB", (".epub",)),
    ("e-mail (EML)", (".eml",)),
    ("mailboxes (MBOX)", (".mbox",)),
    ("images through OCR", (".png", ".jpg", ".jpeg", ".webp", ".tif", ".tiff", ".bmp")),
)
#: The old binary Office formats, which no well-kept reader handles: (suffix, the program's
#: name, the format to save as). A folder's files of these kinds are listed and each refused
#: with the way out, not passed over in silence (a folder's .doc files were left out without a
#: word; a helper's try); the file chooser does not offer them.
REFUSED_FORMATS: tuple[tuple[str, str, str], ...] = (
    (".doc", "Word", ".docx"),
    (".ppt", "PowerPoint", ".pptx"),
    (".xls", "Excel", ".xlsx"),
)
#: Every suffix the backend reads (lower case, with the dot).
READABLE_SUFFIXES: tuple[str, ...] = tuple(
    suffix for _name, suffixes in READABLE_FORMATS for suffix in suffixes
)


def readme_line() -> str:
    """README's list of what is read (the test keeps README's copy equal to it)."""
    return "Suffixes read: " + " ".join(f"`{suffix}`" for suffix in READABLE_SUFFIXES) + "."
