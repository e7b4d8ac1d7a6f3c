"""``windowCoverage``: a question's terms held together in a few sentences, against the same terms
scattered over a long passage."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.lexical import build_query
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.retrieval.rerank import features
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import ask
from tests.main_process.graph.helpers import folder_library

FILLER_ZH = "该地区气候温和，四季分明，农业以水稻和茶叶为主，交通便利，旅游资源丰富。"
FILLER_EN = "The region has a mild climate, and farming, tea and tourism support most villages. "


def chunk(content: str, title: str = "") -> Candidate:
    return replace(Candidate("c1"), content=content, document_title=title, heading_path=[])


def weights(question: str) -> dict[str, float]:
    query = build_query(question)
    return dict.fromkeys([*query.cjk_terms, *query.latin_terms], 1.0)


@pytest.mark.parametrize(
    ("question", "together", "scattered"),
    [
        (
            "克罗地亚在哪一年宣布独立？",
            "克罗地亚于1991年宣布独立，随后加入联合国。",
            ["克罗地亚的首都是萨格勒布。", "许多国家在那一年宣布改革。", "独立战争持续了四年。"],
        ),
        (
            "When did Croatia declare independence?",
            "Croatia declared independence in 1991 and joined the United Nations a year later.",
            [
                "Croatia lies on the Adriatic coast.",
                "Several neighbours declare new budgets each spring.",
                "Independence Day is a public holiday in many countries.",
            ],
        ),
    ],
)
def test_terms_held_together_count_more_than_the_same_terms_scattered(
    question: str, together: str, scattered: list[str]
) -> None:
    query = build_query(question)
    filler = FILLER_ZH if query.cjk_terms else FILLER_EN
    # a long passage: the question's terms in three sentences paragraphs apart
    far = chunk((filler * 8).join(scattered))
    near = chunk(filler * 4 + together + filler * 4)
    f_far = features(far, query, 1.0, weights(question))
    f_near = features(near, query, 1.0, weights(question))
    # the whole passage holds about as many of the question's terms either way ...
    assert f_far["weightedCoverage"] >= 0.6 * f_near["weightedCoverage"] > 0
    # ... but only the passage that answers holds them together
    assert f_near["windowCoverage"] == pytest.approx(f_near["weightedCoverage"], abs=0.05)
    assert f_far["windowCoverage"] < 0.6 * f_near["windowCoverage"], (f_far, f_near)


def test_a_short_passage_reads_as_its_weighted_coverage() -> None:
    question = "年假有几天？"
    passage = chunk("员工每年享有带薪年假十五天。入职满十年的员工另加五天。")
    f = features(passage, build_query(question), 1.0, weights(question))
    assert f["windowCoverage"] == pytest.approx(f["weightedCoverage"])


def test_the_title_counts_in_every_window() -> None:
    """A section that answers without repeating its subject ("it was founded in 1911"): the
    document's title names it for every sentence."""
    question = "清华大学是哪一年创办的？"
    text = FILLER_ZH * 5 + "该校创办于1911年，最初名为清华学堂。" + FILLER_ZH * 5
    titled = features(chunk(text, "清华大学"), build_query(question), 1.0, weights(question))
    untitled = features(chunk(text), build_query(question), 1.0, weights(question))
    assert titled["windowCoverage"] > untitled["windowCoverage"] + 0.15


def test_each_question_of_several_counts_on_its_own() -> None:
    question = "年假有几天？病假工资怎么算？"
    passage = chunk(FILLER_ZH * 4 + "病假期间工资按基本工资的百分之八十计算。" + FILLER_ZH * 4)
    query = build_query(question)
    assert query.clauses
    f = features(passage, query, 1.0, weights(question))
    whole = features(passage, replace(query, clauses=()), 1.0, weights(question))
    assert f["windowCoverage"] > whole["windowCoverage"]


#: An encyclopaedia-style article (one passage) naming Croatia, an announcement and
#: independence paragraphs apart, none of them about Croatia's independence.
BALKANS = (
    "巴尔干半岛位于欧洲东南部，克罗地亚、塞尔维亚和波斯尼亚等国家都在这一地区。半岛三面环海，"
    "海岸线曲折，岛屿众多。\n\n"
    "这里的气候以地中海气候和温带大陆性气候为主，夏季炎热干燥，冬季温和多雨，内陆山区冬季寒冷。"
    "农业以葡萄、橄榄和小麦为主，畜牧业也较为发达。\n\n"
    "近年来，多国政府宣布了新的旅游推广计划，吸引了大量欧洲游客前来度假。\n\n"
    "这一地区的许多城市曾属于南斯拉夫，各民族的语言、饮食和建筑风格相互交融。\n\n"
    "区域内的交通以公路和铁路为主，主要城市之间有高速公路相连，沿海港口承担着大部分货物运输，新的国际机场也已正式启用。"
    "山区交通不便，部分村庄仍然依靠乡村公路与外界联系。\n\n"
    "当地许多上市公司设有独立董事，以加强公司治理；每一年的董事会报告都会公开披露。\n"
)
ANSWER = "1991年，克罗地亚正式宣布脱离南斯拉夫独立，随后加入联合国。\n\n"
OTHER_TOPICS = [
    "员工每年享有带薪年假十五天，入职满十年的员工另加五天。",
    "报销差旅费用须在出差结束后三十天内提交，逾期不予受理。",
    "办公室的打印机由行政部统一维护，耗材可在前台领取。",
]


@pytest.mark.integration
@pytest.mark.parametrize("answered", [False, True])
def test_a_question_whose_words_stand_apart_in_a_long_article_is_not_answered(
    dispatcher: Dispatcher, services: Services, tmp_path: Path, answered: bool
) -> None:
    """An article holding the question's words scattered over its length reads as unlikely to
    be relevant (about 0.23; it read 0.37, as if the words stood together), so a library whose
    floor is 0.3 says "nothing relevant enough"; the same article with the sentence that answers
    reads above 0.8 and is shown."""
    folder = tmp_path / "kb"
    folder.mkdir()
    middle = BALKANS.index("近年来")
    article = BALKANS[:middle] + ANSWER + BALKANS[middle:] if answered else BALKANS
    (folder / "balkans.md").write_text(article, encoding="utf-8")
    for i, text in enumerate(OTHER_TOPICS):
        (folder / f"policy{i}.md").write_text(text, encoding="utf-8")
    library = folder_library(dispatcher, folder)
    services.tasks.wait_idle()
    shown = ask(dispatcher, library, QUESTION, overrides={"minimumRelevance": 0})
    found = ask(dispatcher, library, QUESTION, overrides={"minimumRelevance": 0.3})
    top = shown["results"][0]
    assert (
        top["documentPath"] == "balkans.md"
        and len([r for r in shown["results"] if r["documentPath"] == "balkans.md"]) == 1
    ), "the article is one passage"
    if answered:
        assert top["relevance"] >= 0.8, top["relevance"]
        assert found["results"][0]["documentPath"] == "balkans.md"
    else:
        assert top["relevance"] < 0.3, (top["relevance"], str(top["features"]))
        assert top["features"]["windowCoverage"] < 0.6 * top["features"]["weightedCoverage"]
        assert found["results"] == []
        assert found["zeroResult"]["reason"] == "nothing_relevant"


QUESTION = "克罗地亚是在哪一年正式宣布脱离南斯拉夫独立的？"
