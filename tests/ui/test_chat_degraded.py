"""A degraded vector search is said in the chat in both modes, in both languages: the library's
embedding endpoint (a loopback server) goes down after vectorising; "always retrieve first" and
"model decides" (a tool search) each answer from full text and say the search was degraded
and why, in the user's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.methods import EMBEDDING_UPDATE
from goodbuddy_kb.ui.chat.transcript import status_text
from goodbuddy_kb.ui.i18n import set_language
from tests.servers.chatserver import ChatScript, chat_server, token_of, tool
from tests.servers.embedserver import openai_server_process
from tests.ui.helpers import (
    MakeLibrary,
    ask_chat,
    english_sentences,
    handbook,
    open_window,
    searching_first,
    shoot,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_degraded_vector_search_is_said_in_both_modes(
    qtbot: QtBot, data_dir: Path, make_library: MakeLibrary, language: str
) -> None:
    win = open_window(qtbot, data_dir, language)
    script = ChatScript(
        turns=[
            [{"text": "每晚不超过六百元 [1]。"}],
            [tool(lambda req: {"query": "出差住宿标准", "token": token_of(req)})],
            [{"text": "每晚不超过六百元 [1]。"}],
        ]
    )
    try:
        with openai_server_process() as embedder:
            connection = m.EmbeddingConnection(
                kind="openai-compatible", base_url=embedder, model="e", dimensions=384, timeout_s=2
            )
            wait_call(qtbot, win, EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=connection))
            make_library(handbook(), win=win)
        # The embedding endpoint is down now: the vector channel cannot embed the question.
        with chat_server(script) as base:
            view = searching_first(qtbot, win, base)
            ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
            view.popover.auto.setChecked(True)
            ask_chat(qtbot, view, "出差住宿标准是多少？")
        always, auto = [msg for msg in view.messages if msg.role == "assistant"]
        for answer in (always, auto):
            state = answer.retrieval
            assert state is not None and state.status == "degraded", state
            assert state.reason_code == "channel.reason" and state.reason_params["channel"] == (
                "vector"
            )
            assert answer.citations, "full text still answered"
        assert auto.retrieval is not None and auto.retrieval.mode == "auto"
        shown = view.transcript.toPlainText()
        said = [status_text(always), status_text(auto)]
        for text in said:
            assert text in shown
        if language == "en":
            assert said[0].startswith("Searched first, degraded (vector: ")
            assert said[1].startswith("The model searched 1 time, degraded (vector: ")
            assert "cannot be reached" in said[1]
        else:
            assert said[0].startswith("已预检索，已降级（向量")
            assert said[1].startswith("模型已检索 1 次，已降级（向量")
            assert not [s for t in said for s in english_sentences(t)], said
        shoot(win, f"chat-degraded-{language}")
    finally:
        win.link.shutdown()
        set_language("en")
