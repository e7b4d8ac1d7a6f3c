"""The language direction taken out of the bundled model's questions: what is left is unit length
and carries no language, and every other model's questions are left as they are."""

from __future__ import annotations

import numpy as np

from goodbuddy_kb.main_process.embeddings.language import bilingual, neutral
from goodbuddy_kb.main_process.embeddings.language_fit import DIRECTION
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider, LocalE5Provider


def test_the_bundled_models_question_loses_its_language_only() -> None:
    u = np.asarray(DIRECTION, dtype=np.float32)
    assert abs(float(np.linalg.norm(u)) - 1) < 1e-4
    rng = np.random.default_rng(7)
    q = rng.normal(size=u.shape).astype(np.float32)
    q = q / np.linalg.norm(q) + 0.8 * u  # a question leaning hard to one language
    out = neutral(LocalE5Provider(), q.astype(np.float32))
    assert out.dtype == np.float32 and out.shape == q.shape
    assert abs(float(np.linalg.norm(out)) - 1) < 1e-5
    assert abs(float(out @ u)) < 1e-5, "no language left"
    rest = q - float(q @ u) * u  # the meaning is kept: only the language went
    assert float(out @ rest) / float(np.linalg.norm(rest)) > 0.9999


def test_other_models_questions_are_untouched() -> None:
    provider = DeterministicProvider(len(DIRECTION))
    q = provider.embed_query("客户记录要保留多少年？")
    assert neutral(provider, q) is q
    small = np.ones(8, dtype=np.float32)  # a size the direction was not fitted for
    assert neutral(LocalE5Provider(), small) is small


def test_a_library_holds_both_languages_from_a_twentieth_of_its_passages() -> None:
    zh = "女员工生育享受产假一百五十八天，男员工享受陪产假十五天。"
    en = "The on-call engineer must acknowledge a page within 15 minutes."
    quoting = "年休假至少提前五个工作日在 HR-Portal 提交申请。"  # Chinese, quoting a name
    assert not bilingual([zh] * 95 + [quoting] * 5)
    assert not bilingual([zh] * 96 + [en] * 4), "a few English notes in a Chinese library"
    assert bilingual([zh] * 95 + [en] * 5) and bilingual([en] * 90 + [zh] * 10)
    assert not bilingual([]) and not bilingual(["2026-12-01", "| 1 | 2 |"])
