"""What the graph panel shows of a mention's chunk: read from its sentence's start when that is
within reach, never from or to the middle of a Latin word, "…" where the chunk goes on. A helper
under Xvfb read "n, configuration and troubleshooting of Orion Gateway 4.2. It is written for
syste" and "Orion Gateway runs on 64-bit Linux with kernel 5.10 o"."""

from __future__ import annotations

from goodbuddy_kb.main_process.graph.store import mention_context

MANUAL = (
    "This manual covers installation, configuration and troubleshooting of Orion Gateway 4.2."
    " It is written for system administrators who run it."
)
NOTES = "张伟是财务部经理，负责审批差旅报销制度。赵敏是法务部经理，负责审核合同管理制度。"


def at(text: str, name: str) -> str:
    start = text.index(name)
    return mention_context(text, start, start + len(name))


def test_latin_words_are_whole_and_cuts_are_marked() -> None:
    shown = at(MANUAL, "Orion Gateway")
    assert shown == (
        "…configuration and troubleshooting of Orion Gateway 4.2. It is written for system…"
    )
    short = "Orion Gateway runs on 64-bit Linux with kernel 5.10 or later and needs 8 GB per node."
    assert at(short, "Orion Gateway") == "Orion Gateway runs on 64-bit Linux with kernel 5.10…"


def test_a_chinese_mention_reads_from_its_sentence() -> None:
    assert at(NOTES, "赵敏") == "赵敏是法务部经理，负责审核合同管理制度。"
    assert at(NOTES, "财务部").startswith("张伟是财务部经理")
    whole = "财务部负责报销。"
    assert at(whole, "财务部") == whole, "nothing cut, nothing marked"
