"""The parts of a question that asks about several things (`chat/parts.py`): its sentences,
and each item of a coordinated list with the rest of its sentence around it — and no parts
where a comma or a conjunction joins clauses, not things."""

from __future__ import annotations

import pytest

from goodbuddy_kb.contracts.retrieval import KnowledgeRetrievalResponse
from goodbuddy_kb.main_process.chat.parts import MAX_PARTS, mentions, question_parts, search_parts
from tests.main_process.chat.test_evidence_numbers import chunk, response


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "Summarise the rules on taxis, flights, meals and hotels when travelling",
            [
                "Summarise the rules on taxis when travelling",
                "Summarise the rules on flights when travelling",
                "Summarise the rules on meals when travelling",
                "Summarise the rules on hotels when travelling",
            ],
        ),
        (
            "What are the rules for taxis and hotels?",
            ["What are the rules for taxis?", "What are the rules for hotels?"],
        ),
        ("报销和请假的流程是什么？", ["报销的流程是什么？", "请假的流程是什么？"]),
        # jieba cuts 年假 as 年|假: the first item is as long as the last (病假)
        ("年假和病假各有几天？", ["年假各有几天？", "病假各有几天？"]),
        # traditional Chinese (與, which jieba tags "zg"); an item is the words beside it
        ("住宿標準與交通費用各是多少？", ["住宿標準費用各是多少？", "住宿交通費用各是多少？"]),
        (
            "I lost my laptop on the train. What should I do?",
            ["I lost my laptop on the train.", "What should I do?"],
        ),
        ("住宿标准是多少？报销要什么材料？", ["住宿标准是多少？", "报销要什么材料？"]),
        # a yes/no question in traditional characters (嗎) asks as 吗 does
        ("可以搭計程車嗎，機票能買商務艙嗎？", ["可以搭計程車嗎？", "機票能買商務艙嗎？"]),
        # two questions in one sentence (a helper's; each was found alone, not together)
        (
            "What is the hotel limit in Chengdu, and what should I do if I lose my laptop?",
            ["What is the hotel limit in Chengdu?", "what should I do if I lose my laptop?"],
        ),
        (
            "How much can I claim for a taxi after work and how many days of leave do I get?",
            ["How much can I claim for a taxi after work?", "how many days of leave do I get?"],
        ),
        (
            "出差每天餐补多少钱，笔记本电脑丢了怎么办？",
            ["出差每天餐补多少钱？", "笔记本电脑丢了怎么办？"],
        ),
        # a part searched alone does without the word that joined it to the one before
        (
            "What is the hotel limit in Beijing? And how many days of annual leave do I get?",
            ["What is the hotel limit in Beijing?", "how many days of annual leave do I get?"],
        ),
        # noun phrases joined: each from its determiner on
        (
            "Tell me the flight booking rules and the laptop replacement cycle.",
            ["Tell me the flight booking rules.", "Tell me the laptop replacement cycle."],
        ),
    ],
)
def test_a_question_about_several_things_has_a_part_for_each(
    question: str, parts: list[str]
) -> None:
    assert [p.text for p in question_parts(question)] == parts


@pytest.mark.parametrize(
    "question",
    [
        "出差住宿标准是多少？",
        "如果出差，住宿标准是多少",  # a comma between clauses
        "手提电脑弄丢了，要在多长时间内跟谁说？",  # 跟 a preposition here
        "I lost my laptop and what should I do?",  # "and" between clauses
        "I lost my laptop, and what should I do?",  # the first is no question
        "If I travel, what is the hotel limit?",
        "How long is 3.5 days?",
        "《雷電！》紀錄片主要是在記錄哪一年的戰爭?",  # an end mark inside a title
        "會增加自殺率的症狀包括精神分裂症、人格障礙以及哪一個?",  # the item asked for
        "",
    ],
)
def test_one_thing_asked_has_no_parts(question: str) -> None:
    assert question_parts(question) == []


def test_a_long_list_is_searched_for_its_first_items_only() -> None:
    question = "出差时打车、机票、火车、餐费、住宿和签证分别怎么规定？"
    parts = question_parts(question)
    assert len(parts) == MAX_PARTS
    assert [p.text for p in parts[:2]] == ["出差时打车分别怎么规定？", "出差时机票分别怎么规定？"]
    assert [p.item for p in parts[:2]] == ["打车", "机票"], "each item alone, if need be"


def test_an_item_is_named_by_its_words_or_their_stems() -> None:
    """A part whose item the passages handed over already name is not searched again."""
    assert mentions("The nightly Hotel limit per person", "hotels")
    assert mentions("出差人员的住宿标准按城市等级确定", "住宿")
    assert not mentions("出差人员的住宿标准按城市等级确定", "餐费")
    assert not mentions("Taxis are reimbursed after 10 pm", "meals")


def test_a_chinese_list_whose_every_item_is_named_already_is_not_read_again() -> None:
    """Every item named by the passages found already: nothing to ask of the parts (and no
    dictionary to load: jieba's costs a second)."""
    question = "年假和病假各有几天？"
    assert question_parts(question, known=lambda item: True) == []
    parts = question_parts(question, known=lambda item: item != "病假")
    assert [p.item for p in parts] == ["年假", "病假"]


def _found(*passages: tuple[int, str]) -> KnowledgeRetrievalResponse:
    """A search that found ``passages`` ((number, text), best first), each a context group."""
    found = response([n for n, _ in passages])
    texts = dict(passages)
    groups = [
        g.model_copy(update={"text": texts[int(g.chunk_ids[0], 16)]}) for g in found.context.groups
    ]
    return found.model_copy(update={"context": found.context.model_copy(update={"groups": groups})})


def test_an_item_named_in_passing_is_searched_and_a_new_first_passage_handed_over() -> None:
    """A helper's try: "市内交通补助" in the allowance passage named 交通, so the transport rule
    was never searched for; an item named by a passage that is about it (住宿) adds nothing."""
    allowance = (1, "出差期间每天发放伙食补助 100 元，市内交通补助 50 元。")
    hotel = (2, "一线城市住宿标准为每晚不超过 650 元。")
    transport = (3, "出差优先乘坐高铁二等座，单程超过 800 公里可以乘坐飞机。")
    meals = (4, "员工餐厅午餐十一点半开始。")
    answers = {
        "出差的住宿分别怎么规定？": _found(hotel, allowance),  # its first passage: handed already
        "出差的交通分别怎么规定？": _found(transport, allowance),
        "出差的餐补分别怎么规定？": _found(meals),
        "餐补": _found(meals),
    }
    asked: list[str] = []

    def search(text: str) -> KnowledgeRetrievalResponse:
        asked.append(text)
        return answers[text]

    out = search_parts("出差的住宿、餐补和交通分别怎么规定？", _found(allowance, hotel), search)
    handed = [g.chunk_ids[0] for each in out.responses for g in each.context.groups]
    assert chunk(3) in handed, "the transport rule"
    assert "出差的住宿分别怎么规定？" in asked and chunk(2) not in handed[:1]
    assert out.searches == len(asked)
