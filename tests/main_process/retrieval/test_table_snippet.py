"""A table chunk's snippet is its header and the rows holding the query's terms, a row a line
(issue 35): the row that answers is read under its header, not cut out of a run of pipes."""

from __future__ import annotations

from goodbuddy_kb.main_process.lexical import build_query
from goodbuddy_kb.main_process.retrieval.results import snippet
from goodbuddy_kb.ui.widgets.table_text import one_line, text_html

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


def test_a_table_in_running_text_keeps_its_header_and_rows_as_lines() -> None:
    """Seen in the workbench: "…call back within 15 minutes. | Week starting | … | | --- | ---
    | --- | |…", and (a helper's try) "含税）： | 城市等级 | 城市 | 住宿上限（元/晚） | | 一线 | 北京…":
    the table's lines stay lines, so the results list reads each row as "header: value" pairs
    and the preview draws the table."""
    text = "Always call the hotline first.\n\n" + table(2)
    window = snippet(text, build_query("hotline"))
    assert window.startswith(f"Always call the hotline first.\n{HEADER}\n| 城市0 | 500 | 100 |")
    assert "| Shenzhen | 650 | 120 |" in window
    assert one_line(window).startswith(
        "Always call the hotline first.  ⏐  城市: 城市0 · 住宿标准: 500 · 伙食补贴: 100"
    ), one_line(window)
    assert "<table" in text_html(window), "the preview draws it"
    cut = snippet("Call the hotline.\n| a | b |\n| --- | -", build_query("hotline"))
    assert cut == "Call the hotline. | a | b |", "a delimiter the window cuts goes too"


def test_a_long_tables_header_comes_with_the_rows_the_window_reaches() -> None:
    """The window starts at the term, far down a table in running text: the rows there come
    under the table's header, not as a run of pipes."""
    text = "Hotel limits by city, per night:\n\n" + table(60) + "\n\nAbove the limit you pay."
    window = snippet(text, build_query("Shenzhen"))
    lines = window.split("\n")
    assert lines[0] == "…" and HEADER.split("\n") == lines[1:3], lines[:4]
    assert "| Shenzhen | 650 | 120 |" in lines
    assert "| 城市0 | 500 | 100 |" not in lines, "rows the window does not reach stay out"


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


def test_a_short_text_is_shown_whole_and_a_late_term_fills_the_window_back() -> None:
    """A helper's try: "年假有几天" showed "…年假应在当年度内休完…" of a 195-character chunk,
    without the sentence before it that holds the days (年休假 is not the query's 年假)."""
    text = (
        "员工入职满一年后享受带薪年休假。工龄满一年不满十年的，年休假 7 天；满十年不满二十年的，"
        "年休假 10 天；满二十年的，年休假 15 天。年假应在当年度内休完，确因工作原因未休完的，"
        "可以顺延至次年三月底。申请年假需提前 3 个工作日在系统中提交。"
    )
    assert snippet(text, build_query("年假有几天")) == text
    # longer than a snippet: the window ends at the text's end and starts at a sentence
    longer = "第一段说明。" * 40 + text
    shown = snippet(longer, build_query("年假有几天"))
    assert shown.endswith("在系统中提交。")
    assert shown.startswith("…") and len(shown) >= 200, shown
    assert shown[1:].startswith(("第一段说明。", "员工入职")), shown
