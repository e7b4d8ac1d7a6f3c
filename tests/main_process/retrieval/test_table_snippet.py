"""A table chunk's snippet is its header and the rows holding the query's terms, a row a line
(issue 35): the row that answers is read under its header, not cut out of a run of pipes."""

from __future__ import annotations

from goodbuddy_kb.main_process.lexical import build_query
from goodbuddy_kb.main_process.retrieval.results import snippet

HEADER = "| 城市 | 住宿标准 | 伙食补贴 |\n| --- | --- | --- |"


def table(rows: int) -> str:
    body = "\n".join(f"| 城市{i} | {500 + i} | 100 |" for i in range(rows))
    return f"{HEADER}\n{body}\n| Shenzhen | 650 | 120 |"


def test_the_row_holding_the_term_comes_under_the_header() -> None:
    assert snippet(table(40), build_query("Shenzhen 住宿")) == (
        f"{HEADER}\n| Shenzhen | 650 | 120 |\n…"
    )


def test_without_a_matching_row_the_first_rows_fit_the_snippet() -> None:
    text = snippet(table(40), build_query("报销"))
    lines = text.split("\n")
    assert "\n".join(lines[:2]) == HEADER and lines[2] == "| 城市0 | 500 | 100 |"
    assert lines[-1] == "…" and len(text) < 400


def test_text_that_is_not_a_table_keeps_its_window() -> None:
    text = "Intro line\n" + table(3)
    window = snippet(text, build_query("Shenzhen"))
    assert "\n" not in window and "| Shenzhen | 650 | 120 |" in window
