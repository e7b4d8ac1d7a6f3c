"""File names in a diagnostics export are replaced wherever they stand between delimiters, and
ordinary words that merely contain or resemble one are left alone."""

from __future__ import annotations

from goodbuddy_kb.main_process.diagnostic_names import NameRedactor


def test_names_paths_and_locations_are_replaced() -> None:
    folder = "/home/someone/Payroll"
    names = NameRedactor.of_locations([folder, "2026/secret plan.pdf", "a.md", "notes"])
    reason = "1 document failed (first: 2026/secret plan.pdf: the PDF is encrypted)"
    assert names.redact(reason) == "1 document failed (first: <file>: the PDF is encrypted)"
    assert names.redact(f"cannot read {folder}/2026/secret plan.pdf.") == (
        "cannot read <file>/<file>."
    )
    assert names.redact("“secret plan.pdf”，已跳过") == "“<file>”，已跳过"
    assert names.redact("a.md") == "<file>"
    windows = NameRedactor.of_locations([r"C:\Users\x\Payroll\q3 ledger.xlsx"])
    assert windows.redact("failed: q3 ledger.xlsx") == "failed: <file>"


def test_words_that_only_resemble_a_name_stay() -> None:
    names = NameRedactor.of_locations(["/srv/docs", "a.md", "notes", "ok"])
    assert names.redact("data.md and notes are ok") == "data.md and notes are ok"
    assert names.redact("") == ""
    assert NameRedactor.of_locations([]).redact("anything.md") == "anything.md"
