"""The sample library a person can try on the first run: a handful of company rules (travel and
expenses, leave, IT help, data security) in Chinese and English, shipped inside the package in
``documents/``.

Making it copies those documents into the data directory (``sample-library``, or
``sample-library-2``… when one is there already: a person may have edited the first), so the
library's source is the person's own copy and never the installed package; then a library over
the copy is created and synced like any folder. Two questions, one per language, are answered by
the documents (the travel policy's hotel limit, the leave policy's annual leave).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from goodbuddy_kb.contracts.library import Library
from goodbuddy_kb.main_process.storage import libraries

DOCUMENTS = Path(__file__).resolve().parent / "documents"
FOLDER = "sample-library"
#: The library's name in the language the person chose.
NAMES = {"zh": "示例库：公司制度", "en": "Sample: company rules"}
#: What to ask it: Chinese first, then English.
QUESTIONS = (
    "出差住酒店，一线城市每晚最多能报销多少钱？",
    "How many days of annual leave do I get after five years at the company?",
)


def copy_documents(data_dir: Path) -> Path:
    """A fresh copy of the sample documents inside ``data_dir``; returns its folder."""
    target = data_dir / FOLDER
    number = 1
    while target.exists():
        number += 1
        target = data_dir / f"{FOLDER}-{number}"
    shutil.copytree(DOCUMENTS, target)
    return target


def create_library(conn: sqlite3.Connection, language: str) -> Library:
    """The sample library, named in ``language`` (with a number when that name is taken)."""
    base = NAMES[language]
    taken = {library.name.casefold() for library in libraries.list_all(conn)}
    name, number = base, 1
    while name.casefold() in taken:
        number += 1
        name = f"{base} ({number})"
    return libraries.create(conn, name)
