"""Message codes: every catalogue sentence reads back to its own code, every code has its
Chinese words with the same parameters, and the codes travel with the English sentences."""

from __future__ import annotations

import pytest

from goodbuddy_kb.contracts.errors import ConflictError, KbError
from goodbuddy_kb.contracts.messages import (
    CATALOGUE,
    PARAM_PATTERNS,
    Reason,
    classify,
    english,
    placeholders,
)
from goodbuddy_kb.contracts.retrieval import DegradedChannel, ZeroResult
from goodbuddy_kb.contracts.wire import error_message
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.i18n.messages import VALIDATION, ZH, say, say_text


def sample(name: str) -> str:
    if name == "channel":
        return "vector"
    if name == "hint":
        return CATALOGUE["hint.check_key"]
    if name in PARAM_PATTERNS:
        return "404" if name == "status" else "12"
    return f"sample-{name}"


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_reads_back_to_itself(code: str) -> None:
    params = {name: sample(name) for name in placeholders(CATALOGUE[code])}
    coded = classify(english(code, params))
    assert coded is not None and coded.code == code and coded.params == params


def test_every_code_has_chinese_words_with_the_same_parameters() -> None:
    missing = sorted(set(CATALOGUE) - set(ZH))
    assert not missing, f"codes without a Chinese translation: {missing}"
    assert not sorted(set(ZH) - set(CATALOGUE)), "translations of codes that do not exist"
    for code, template in CATALOGUE.items():
        assert sorted(placeholders(ZH[code])) == sorted(placeholders(template)), code
    for code, (zh, en) in VALIDATION.items():
        assert sorted(placeholders(zh)) == sorted(placeholders(en)), code


def test_nested_reasons_are_translated_in_turn() -> None:
    set_language("zh")
    try:
        text = "No search channel could run: graph: the knowledge graph is not enabled for this library; vector: no vector index yet."
        assert (
            say_text(text)
            == "没有可运行的检索通道：图谱：这个知识库未启用知识图谱；向量：尚无向量索引。"
        )
        assert say("some.future.code", {}, "A sentence from a newer backend") == (
            "A sentence from a newer backend"
        ), "an unknown code falls back to its English sentence"
        assert say_text("report.pdf") == "report.pdf", "data is left alone"
    finally:
        set_language("en")


def test_codes_travel_beside_the_english_sentences() -> None:
    degraded = DegradedChannel(channel="graph", reason=CATALOGUE["graph.off"])
    assert degraded.to_wire()["reasonCode"] == "graph.off"
    assert DegradedChannel.model_validate(degraded.to_wire()) == degraded
    zero = ZeroResult(
        reason="filtered",
        message=english("zero.filtered", {"count": 3}),
        next_step=CATALOGUE["zero.filtered.next"],
    )
    assert (zero.message_code, zero.message_params) == ("zero.filtered", {"count": "3"})
    assert zero.next_step_code == "zero.filtered.next"
    error = ConflictError("a library named “年度报告” already exists")
    data = error_message(1, error)["error"]["data"]
    assert data["message_code"] == "library.duplicate_name"
    assert data["message_params"] == {"name": "年度报告"}
    assert KbError.from_payload(error.to_payload()).message_code == "library.duplicate_name"


def test_a_reason_raised_with_its_code_travels_with_it() -> None:
    reason = Reason("zero.filtered", count=3)
    assert reason == english("zero.filtered", {"count": 3})
    coded = classify(reason)
    assert coded is not None and (reason.code, reason.params) == (coded.code, coded.params)
    zero = ZeroResult(reason="filtered", message=reason, next_step=Reason("zero.filtered.next"))
    assert type(zero.message) is str and zero.message == reason
    assert (zero.message_code, zero.message_params) == ("zero.filtered", {"count": "3"})
    # a reason whose words a regex could also read differently keeps the code it was raised with
    raised = Reason("vector.query_not_embedded", reason="no vector index yet")
    degraded = DegradedChannel(channel="vector", reason=raised)
    assert degraded.reason_code == "vector.query_not_embedded"
    assert degraded.reason_params == {"reason": "no vector index yet"}
    with pytest.raises(ValueError):
        Reason("no.such.code")
