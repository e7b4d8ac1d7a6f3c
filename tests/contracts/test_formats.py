"""One list of what the backend reads (issue 35): the parsers' registry, the folder scanner,
the file chooser's filter and README's line all agree with ``contracts/formats``."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts.formats import READABLE_SUFFIXES, REFUSED_FORMATS, readme_line
from goodbuddy_kb.main_process.parsing import PARSERS, SUPPORTED_SUFFIXES
from goodbuddy_kb.main_process.sync.folder import list_folder
from goodbuddy_kb.ui.documents.source_actions import file_patterns

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_registry_reads_exactly_the_listed_suffixes() -> None:
    assert len(set(READABLE_SUFFIXES)) == len(READABLE_SUFFIXES), "each suffix once"
    assert all(s == s.lower() and s.startswith(".") for s in READABLE_SUFFIXES)
    refused = {suffix for suffix, _name, _target in REFUSED_FORMATS}
    assert not refused & set(READABLE_SUFFIXES)
    # the old Office formats are listed to be refused with the way out, never passed over
    assert set(READABLE_SUFFIXES) | refused == set(PARSERS) == SUPPORTED_SUFFIXES
    assert {".epub", ".eml", ".mbox"} <= SUPPORTED_SUFFIXES


def test_the_file_chooser_offers_every_listed_suffix() -> None:
    assert file_patterns().split() == [f"*{suffix}" for suffix in READABLE_SUFFIXES]


def test_the_folder_scanner_picks_every_listed_suffix_and_nothing_else(tmp_path: Path) -> None:
    listed = [*READABLE_SUFFIXES, *(suffix for suffix, _name, _target in REFUSED_FORMATS)]
    for number, suffix in enumerate(listed):
        (tmp_path / f"f{number}{suffix.upper() if number % 2 else suffix}").write_bytes(b"x")
    (tmp_path / "notes.xyz").write_bytes(b"x")
    (tmp_path / "archive.zip").write_bytes(b"x")
    found = list_folder(tmp_path, [], [])
    assert sorted(Path(p).suffix.lower() for p in found) == sorted(listed)


def test_readme_lists_what_the_registry_reads() -> None:
    lines = [line for line in README.read_text(encoding="utf-8").splitlines()]
    listed = [line for line in lines if line.startswith("Suffixes read: ")]
    assert listed == [readme_line()], "regenerate README's line from contracts/formats.py"
    words = listed[0].removeprefix("Suffixes read: ").rstrip(".").split()
    assert {w.strip("`") for w in words} == set(READABLE_SUFFIXES)
