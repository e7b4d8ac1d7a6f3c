"""Rebuild jobs (PRD §8.5): one document, or a whole library one document at a time, each
document's new generation swapped in with one transaction."""

from __future__ import annotations

from goodbuddy_kb.main_process.rebuild.document import DocumentOutcome, rebuild_document
from goodbuddy_kb.main_process.rebuild.library import LibraryReport, rebuild_library

__all__ = ["DocumentOutcome", "LibraryReport", "rebuild_document", "rebuild_library"]
