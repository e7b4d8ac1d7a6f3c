"""``closeness``: a passage cut into pieces of a sentence or two, each read against the question
with the embedding model, the closest one counting."""

from __future__ import annotations

import numpy as np

from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.retrieval import closeness


def test_short_sentences_join_and_long_passages_are_cut_into_at_most_a_dozen_pieces() -> None:
    text = "第三条。员工每年享有带薪年假十五天。入职满十年的员工另加五天。\n第四条。病假须提交医院证明。"
    pieces = closeness.pieces(text)
    assert pieces[0].startswith("第三条。员工每年")  # "第三条" alone says nothing
    assert "".join(pieces) == text.replace("\n", "")
    assert all(len(p) <= closeness.PIECE for p in pieces)
    long = "".join(f"第{i}段讲的是一件与其他段落不同的事情，内容各不相同。" for i in range(60))
    cut = closeness.pieces(long)
    assert 1 < len(cut) <= closeness.MAX_PIECES and "".join(cut) == long
    english = "Hotels cost up to 600 a night. Trains go second class. Taxis need a receipt."
    assert closeness.pieces(english) == [english]
    assert closeness.pieces("。\n  ") == []


def test_the_closest_piece_counts_not_the_passage_as_a_whole() -> None:
    """A passage whose one sentence says what the question asks, among sentences on other
    things, reads closer than the passage as a whole (nearly as close as that sentence alone); a
    passage of only other things does not."""
    provider = DeterministicProvider()
    question = provider.embed_query("年假 天数")
    answer = "员工年假天数为十五天。"
    other = "食堂午餐十一点半开始供应，晚餐五点半开始供应，周末食堂不开放。" * 3
    mixed, alone, unrelated = closeness.closest(
        provider, question, [other + answer + other, answer, other]
    )
    assert mixed is not None and alone is not None and unrelated is not None
    whole = float(provider.embed_passages([other + answer + other])[0] @ np.asarray(question))
    assert alone >= mixed > whole and mixed > unrelated
    assert closeness.closest(provider, question, ["。", answer]) == [None, alone]


class Counting(DeterministicProvider):
    def __init__(self) -> None:
        super().__init__()
        self.embedded = 0

    def embed_passages_now(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return super().embed_passages_now(texts)


def test_a_passage_read_once_is_not_embedded_again_for_the_next_question() -> None:
    provider = Counting()
    passage = "员工年假天数为十五天。食堂午餐十一点半开始供应。"
    first = closeness.closest(provider, provider.embed_query("年假"), [passage])
    made = provider.embedded
    again = closeness.closest(provider, provider.embed_query("十一点半开始供应午餐"), [passage])
    assert made > 0 and provider.embedded == made, "the pieces were kept"
    assert first != again
