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


def test_a_table_in_running_text_reads_without_its_delimiter_line() -> None:
    """Seen in the workbench: "…call back within 15 minutes. | Week starting | … | | --- | ---
    | --- | |…" — the header's delimiter is layout, not text."""
    text = "Always call the hotline first.\n\n" + table(2)
    window = snippet(text, build_query("hotline"))
    assert "---" not in window and "| 城市 | 住宿标准 | 伙食补贴 | | 城市0 | 500 | 100 |" in window
    cut = snippet("Call the hotline.\n| a | b |\n| --- | -", build_query("hotline"))
    assert cut == "Call the hotline. | a | b |", "a delimiter the window cuts goes too"


def test_an_html_line_break_reads_as_a_space() -> None:
    """Seen in the workbench on an encyclopaedia article: "<br>西班牙语言（lenguas de España）…"."""
    text = "官方语言<br>西班牙语言（lenguas de España）<BR/>加泰罗尼亚语"
    assert (
        snippet(text, build_query("西班牙语言"))
        == "官方语言 西班牙语言（lenguas de España） 加泰罗尼亚语"
    )


def test_a_snippet_never_starts_or_ends_inside_a_word() -> None:
    """Seen in the workbench and the chat: "…ate on Monday at 10:00" for "rotate". The window
    starts at the term's sentence, or at a word, and ends at a word's end."""
    text = (
        "The on-call engineer carries the pager for one week, and the schedule is published"
        " every month by the team lead in the shared calendar so that the shifts rotate on"
        " Monday at 10:00 local time. Each shift earns one day of compensatory leave, to be"
        " taken within the following quarter after approval by the manager of the team who"
        " keeps the records of every shift and every compensatory day taken by the engineers."
        " The records are kept for five years in the archive of the operations department."
    )
    shown = snippet(text, build_query("compensatory leave"))
    assert shown.startswith("…Each shift earns one day of compensatory leave")
    assert shown.endswith("…") and shown[-2].isalpha()
    last_word = shown[:-1].rsplit(" ", 1)[-1]
    assert f" {last_word} " in text or text.endswith(last_word), last_word
    # no sentence end within reach: the window starts at a word
    long = "word " * 40 + "alphabetical " * 5 + "compensatory leave " + "tail " * 80
    shown = snippet(long, build_query("compensatory"))
    assert shown.startswith("…") and shown[1:].split(" ", 1)[0] in ("word", "alphabetical")
    # Chinese has no spaces: the window keeps its sentence start
    zh = "第一条　总则。" * 10 + "员工入职满一年后享受带薪年休假，每年五天。" + "其他规定。" * 60
    assert snippet(zh, build_query("带薪年休假")).startswith("…员工入职满一年后享受带薪年休假")
