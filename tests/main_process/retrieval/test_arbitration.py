"""The full text's exact match against a vector sure of the wrong paragraph, through the
dispatcher, a real library and a loopback embedding service (``fusion.arbitrate``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from goodbuddy_kb.contracts.methods import EMBEDDING_UPDATE
from goodbuddy_kb.contracts.retrieval import KnowledgeRetrievalResponse
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.workbench.report import diagnostics_lines
from tests.dispatch import ask, call
from tests.main_process.graph.helpers import folder_library
from tests.servers.httpserver import Reply, serve

DIMS = 384
QUESTION = "梵文的名词有几个格？"
#: The paragraph that answers, and its neighbour in the same article, which a model judging by
#: topic alone holds nearer to the question.
ANSWER = "梵文语法极为繁复。梵文的名词有八个格，三个数，三个性。"
NEIGHBOUR = "梵文的历史可以追溯到公元前两千年，早期经典多以口耳相传，后来才写成文字。"
#: Other paragraphs of the article: the full text finds the question's commoner words in them too.
ARTICLE = [
    "梵文的字母称为天城体，现代印地语也用这种字母书写，有几个字母已经不用。",
    "许多梵文的名词传入汉语，佛经翻译时留下大量音译词。",
    "梵文诗歌讲究韵律，名词和形容词常常组成很长的复合词。",
    "欧洲学者在十八世纪开始研究梵文的名词变化，由此发现了印欧语系。",
    "梵文戏剧以迦梨陀娑的作品最为著名，剧中有几个角色说俗语。",
    "有几个梵文学派专门研究语音，他们的著作至今仍有人读。",
    "梵文的名词词典有几部，最早的一部编于中世纪。",
    "梵文的动词比名词更复杂，有十个类。",
    "梵文的数词有几种写法，碑铭上常见。",
    "梵文的名词可以带前缀，意思随之改变。",
    "现代还有几个村庄以梵文为日常用语。",
]
#: Unrelated paragraphs: the library's background.
OTHERS = [f"第{i}号仓库的货物清单，包括螺丝、垫圈和扳手，每月盘点一次。" for i in range(200)]


def _vector(text: str) -> list[float]:
    """The scripted model: the question and the neighbour alike, the answer a third as near, every
    other paragraph unrelated (a direction of its own)."""
    v = DeterministicProvider(DIMS).embed_passages([text])[0].astype(float)
    topic = np.zeros(DIMS)
    topic[0] = 1.0
    if text.strip() in (QUESTION, NEIGHBOUR):
        v = topic
    elif text.strip() == ANSWER:
        v = topic + 3.2 * v
    return [float(x) for x in v / np.linalg.norm(v)]


def _embeddings_of(vector: Callable[[str], list[float]]) -> Callable[[str, bytes], Reply]:
    """A loopback OpenAI-compatible embeddings endpoint answering with the scripted ``vector``."""

    def reply(_path: str, body: bytes) -> Reply:
        request = json.loads(body)
        inputs = request["input"] if isinstance(request["input"], list) else [request["input"]]
        data = [{"index": i, "embedding": vector(t)} for i, t in enumerate(inputs)]
        return Reply(200, json.dumps({"data": data}).encode(), "application/json")

    return reply


def _library(
    dispatcher: Dispatcher, services: Services, folder: Path, texts: list[str], base: str
) -> str:
    """``texts``, a file each in ``folder``, as a library of the folder's name embedded by the
    loopback model at ``base``, indexed."""
    folder.mkdir()
    for i, text in enumerate(texts):
        (folder / f"p{i:03d}.txt").write_text(text, encoding="utf-8")
    call(
        dispatcher,
        EMBEDDING_UPDATE.name,
        {"connection": {"kind": "openai-compatible", "baseUrl": f"{base}/v1", "model": "m"}},
    )
    library = folder_library(dispatcher, folder, folder.name)
    services.tasks.wait_idle()
    return library


@pytest.mark.integration
def test_the_paragraph_holding_what_the_question_names_comes_first(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    texts = [ANSWER, NEIGHBOUR, *ARTICLE, *OTHERS]
    with serve({"/v1/embeddings": _embeddings_of(_vector)}) as base:
        library = _library(dispatcher, services, tmp_path / "梵文", texts, base)
        vector_only = ask(dispatcher, library, QUESTION, channels=["vector"])
        hybrid = ask(dispatcher, library, QUESTION, overrides={"minimumRelevance": 0})
    # the vector alone is sure of the neighbour: the scripted model stands in for one that
    # judges by topic
    assert vector_only["results"][0]["documentPath"] == "p001.txt"
    top = hybrid["results"][0]
    assert top["documentPath"] == "p000.txt", [r["documentPath"] for r in hybrid["results"]]
    assert top["preRerankRank"] == 1 and "八个格" in top["snippet"]
    # the neighbour is still shown, below the answer and judged less relevant
    neighbour = next(r for r in hybrid["results"] if r["documentPath"] == "p001.txt")
    assert neighbour["rank"] > 1 and neighbour["relevance"] < top["relevance"]
    # the workbench's diagnostics say why the order differs from the fusion's, in both languages
    assert hybrid["diagnostics"]["arbitrationPassed"] == 1
    assert vector_only["diagnostics"]["arbitrationPassed"] == 0
    response = KnowledgeRetrievalResponse.model_validate(hybrid)
    try:
        set_language("zh")
        assert "全文检索的第一名已排到 1 条含问题用词明显更少的结果之前" in diagnostics_lines(
            response
        )
        set_language("en")
        assert (
            "The full text's first pick moved above 1 result(s) holding clearly fewer of the"
            " question's words" in diagnostics_lines(response)
        )
    finally:
        set_language("en")


def test_a_neighbouring_paragraph_of_the_picks_own_article_needs_less_to_be_passed() -> None:
    """drcd-dev-noanswer 1180-29-1: the bundled model held two paragraphs of 恆星 within a
    hundredth of a deviation (z 5.38 and 5.37) and put the one without the answer first; it held
    0.27 of the question's terms, the full text's pick 0.33. Six points is under the deficit that
    lets the pick pass a passage on another topic (0.1), and over the one for its own article."""
    from goodbuddy_kb.main_process.retrieval.fusion import BUNDLED_MODEL, arbitrate

    held = {"neighbour": 0.27, "pick": 0.33, "elsewhere": 0.27}
    article = {"neighbour": "恆星.md", "pick": "恆星.md", "elsewhere": "星系.md"}

    def order(first: str) -> list[str]:
        return arbitrate(
            [first, "pick"],
            ["pick"],
            held.__getitem__,
            BUNDLED_MODEL.coverage_deficit,
            same_document=lambda a, b: article[a] == article[b],
            same_document_deficit=BUNDLED_MODEL.same_document_deficit,
        )

    assert order("neighbour") == ["pick", "neighbour"]
    assert order("elsewhere") == ["elsewhere", "pick"]


#: A question the library cannot answer, sharing one word ("annual") with a passage on another
#: subject; the scripted model holds it nearest a passage on yet another (a guess, as a model
#: guesses when nothing answers).
GALA = "What is the dress code for the annual gala?"
LEAVE = "Full-time staff get 25 days' annual leave plus bank holidays; the leave year runs from January."
GUESS = "The canteen on the ground floor serves lunch from noon until two."
#: Passages holding another of its words ("code"), so that the full text is no surer of its
#: first hit than of its tenth.
CODES = [f"Door {i} of the west wing opens with the code printed on your badge." for i in range(12)]
ENGLISH_OTHERS = [
    f"Store room {i} holds screws, washers and spanners; stock is counted monthly."
    for i in range(200)
]


def _gala_vector(text: str) -> list[float]:
    v = DeterministicProvider(DIMS).embed_passages([text])[0].astype(float)
    topic = np.zeros(DIMS)
    topic[0] = 1.0
    if text.strip() == GALA:
        v = topic
    elif text.strip() == GUESS:
        v = topic + 1.5 * v
    elif text.strip() == LEAVE:
        v = v - 0.3 * topic  # leave has nothing to do with a gala's dress code
    return [float(x) for x in v / np.linalg.norm(v)]


@pytest.mark.integration
def test_a_pick_moved_up_on_a_stray_word_is_not_evidence(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """The full text's pick goes first, but one word of four in common with the question is no
    sign it answers: "nothing relevant enough" (a helper's try: the annual-leave rules at 0.54,
    "likely relevant", for the dress code of an annual gala)."""
    texts = [LEAVE, GUESS, *CODES, *ENGLISH_OTHERS]
    with serve({"/v1/embeddings": _embeddings_of(_gala_vector)}) as base:
        library = _library(dispatcher, services, tmp_path / "handbook", texts, base)
        shown = ask(dispatcher, library, GALA, overrides={"minimumRelevance": 0})
        answered = ask(dispatcher, library, GALA)
    # the pick still goes first (the order is the arbitration's) ...
    assert shown["diagnostics"]["arbitrationPassed"] >= 1
    assert shown["results"][0]["documentPath"] == "p000.txt"
    # ... but its relevance is its own, under the default floor: nothing is shown as evidence
    assert shown["results"][0]["relevance"] < 0.2, shown["results"][0]
    assert answered["results"] == []
    assert answered["zeroResult"]["reason"] == "nothing_relevant"
