"""The Documents tab's vector line and rebuild offer for an index the bundled model's float32
encoder built once int8 is the default: still searchable, a rebuild offered, in both languages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents.columns import vector_state_text
from goodbuddy_kb.ui.documents.rebuild_actions import confirm_vector_rebuild, incompatible
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


@pytest.mark.parametrize(
    ("lang", "says"), [("en", "still searchable; rebuild it"), ("zh", "仍可检索；重建后")]
)
def test_the_rebuild_confirmation_says_why_for_the_same_model(
    qtbot: QtBot, restore_language: None, lang: str, says: str, tmp_path: Path
) -> None:
    """The confirmation names the same model as built and configured; it must say why a rebuild
    is offered at all (the other encoder built the index), and say nothing of it otherwise."""
    set_language(lang)
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    link = BackendLink(tmp_path, parent)  # never started: the dialog only calls it on accept
    try:
        for offered in (True, False):
            box = confirm_vector_rebuild(parent, link, "lib", info(offered), lambda *_a: None)
            assert (says in box.text()) is offered, box.text()
            box.done(0)
    finally:
        parent.close()


@pytest.mark.parametrize(
    ("lang", "building", "partial"),
    [
        ("en", "⟳ building the vector index", "have no vector yet"),
        ("zh", "⟳ 正在建立向量索引", "尚无向量"),
    ],
)
def test_new_chunks_whose_vectors_are_on_the_way_read_as_being_built(
    restore_language: None, lang: str, building: str, partial: str
) -> None:
    """Chunks added to a vectorised library while their vectorisation runs: the line said "606
    chunks have no vector yet (found by full-text only)" as if none were coming (a helper's try
    under Xvfb); once no vectorisation runs, it says that again."""
    set_language(lang)
    on_the_way = info(False).model_copy(update={"vectors": 3, "vectorising": True})
    assert building in vector_state_text(on_the_way) and partial not in vector_state_text(
        on_the_way
    )
    stalled = on_the_way.model_copy(update={"vectorising": False})
    assert partial in vector_state_text(stalled) and building not in vector_state_text(stalled)
