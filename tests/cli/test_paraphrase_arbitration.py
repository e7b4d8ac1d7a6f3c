"""With the bundled model, a sentence that says the question again in other words keeps the
first place it earned over one that shares more of the question's words: the full text's pick
goes above a passage holding clearly fewer of them (``fusion.arbitrate``), but not above one the
model reads as the question's paraphrase (``FusionParams.paraphrase_similarity``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.runner import bundled_library, cli_json

pytestmark = [pytest.mark.integration, pytest.mark.slow]

QUESTION = "一个男人用刀割破了一串水瓶。"
#: Its paraphrase (the model: 0.93), and a sentence sharing more of its words (用刀割破了一…)
#: that says something else (0.90)
SENTENCES = {
    "paraphrase.md": "一个男人正在用刀切一排水瓶。",
    "same-words.md": "那人用刀割破了一些地毯。",
    "meat.md": "一个女人切了一些肉。",
    "plates.md": "一个男人在切纸盘。",
}
SUBJECTS = [
    "一只猫",
    "一个孩子",
    "两个女人",
    "一位老人",
    "一群学生",
    "一个厨师",
    "一名司机",
    "一只狗",
]
ACTIONS = [
    "在公园里散步",
    "在厨房里做饭",
    "在看书",
    "在弹吉他",
    "在河边钓鱼",
    "在踢足球",
    "在洗车",
    "在唱歌",
]


def test_a_paraphrase_is_not_passed_for_holding_fewer_of_the_questions_words(
    data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "sentences"
    folder.mkdir()
    for name, text in SENTENCES.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    # a library's worth of unrelated sentences, so the model's sureness shows
    for i, (s, a) in enumerate((s, a) for s in SUBJECTS for a in ACTIONS):
        (folder / f"other{i:02d}.md").write_text(f"{s}{a}。\n", encoding="utf-8")
    bundled_library(data_dir, "Sentences", folder)

    answer = cli_json(data_dir, "retrieve", "Sentences", QUESTION)
    order = [r["documentPath"] for r in answer["results"]]
    # the full text ranks the sentence sharing more words first, the model the paraphrase; the
    # fused order keeps the paraphrase first (the pick passed it before)
    assert order[:2] == ["paraphrase.md", "same-words.md"], order
    first = answer["results"][0]
    assert first["channelRanks"]["vector"] == 1 and first["channelRanks"]["cjk"] == 2
    assert answer["diagnostics"]["arbitrationPassed"] == 0
    assert first["relevance"] > answer["results"][1]["relevance"]
