"""A question sent with no library in its scope says that nothing was searched and why — in the
retrieval state (a coded reason, in "always" mode, and in "model decides" mode with no chat model
to decide, which then searches first too) and, without a chat model, in the answer itself (never
the "model decides" advice, which would not help)."""

from __future__ import annotations

from goodbuddy_kb.contracts.chat import NO_CHAT_MODEL_NOTES
from goodbuddy_kb.contracts.methods import CHAT_SEND, CONVERSATION_CREATE, LIBRARY_CREATE
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from tests.dispatch import call


def test_an_empty_scope_says_nothing_was_searched_and_why(dispatcher: Dispatcher) -> None:
    call(dispatcher, LIBRARY_CREATE.name, {"name": "Alpha"})
    conv = call(dispatcher, CONVERSATION_CREATE.name, {"title": "t"})["id"]
    for mode in ("always", "auto"):
        answer = call(
            dispatcher,
            CHAT_SEND.name,
            {"conversationId": conv, "text": "travel allowance?", "libraryIds": [], "mode": mode},
        )["assistantMessage"]
        assert answer["content"] == NO_CHAT_MODEL_NOTES[3]
        assert "no library is selected" in answer["content"] and answer["citations"] == []
        state = answer["retrieval"]
        assert state["status"] == "none" and state["searches"] == 0
        assert state["reasonCode"] == "chat.not_searched_empty_scope"
