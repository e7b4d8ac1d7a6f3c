"""The Documents tab's vector line and rebuild offer for an index the bundled model's float32
encoder built once int8 is the default: still searchable, a rebuild offered, in both languages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.ui.documents.columns import vector_state_text
from goodbuddy_kb.ui.documents.rebuild_actions import incompatible
from goodbuddy_kb.ui.i18n import language, set_language

LABEL = f"local: {m.BUNDLED_MODEL}"


@pytest.fixture
def restore_language() -> Iterator[None]:
    before = language()
    yield
    set_language(before)


def info(offered: bool) -> m.VectorIndexInfo:
    code = "vector.encoder_upgrade" if offered else None
    return m.VectorIndexInfo(
        state="ready",
        compatible=True,
        reason=english(code, {}) if code else None,
        reason_code=code,
        model_label=LABEL,
        configured_label=LABEL,
        vectors=5,
        retrievable_chunks=5,
        last_failure=None,
        rebuild_offered=offered,
    )


@pytest.mark.parametrize(
    ("lang", "says"), [("en", "still searchable; rebuild it"), ("zh", "仍可检索；重建后")]
)
def test_an_older_encoders_index_is_offered_a_rebuild(
    restore_language: None, lang: str, says: str
) -> None:
    set_language(lang)
    assert incompatible(info(True)) and not incompatible(info(False))
    assert says in vector_state_text(info(True))
    assert says not in vector_state_text(info(False))
