"""Model connections in the real window against a real backend and loopback model servers:
"Test connection" tests exactly what each form holds (embedding, chat, rerank) and saves
nothing; saving a connection whose test fails asks first, with Cancel as the default; switching
connections is explicit and a stored key is never shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_MODEL_UPDATE,
    EMBEDDING_GET,
    EMBEDDING_UPDATE,
    RERANK_GET,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.settings.connections import ModelConnectionsDialog
from tests.servers.chatserver import ChatScript, chat_server
from tests.servers.embedserver import Script, openai_server
from tests.servers.httpserver import Reply, serve
from tests.ui.helpers import open_window, shoot, wait_call

pytestmark = [pytest.mark.gui, pytest.mark.integration]
#: Nothing listens on the discard port of the loopback address.
DEAD = "http://127.0.0.1:9"


def open_dialog(qtbot: QtBot, window: MainWindow) -> ModelConnectionsDialog:
    window.open_connections()
    dialog = window.connections
    assert dialog is not None
    # each page takes input once it shows what is saved
    qtbot.waitUntil(
        lambda: (
            dialog.embedding_group.isEnabled()
            and dialog.chat.isEnabled()
            and dialog.rerank.isEnabled()
        ),
        timeout=5_000,
    )
    return dialog


def test_a_page_takes_input_only_once_it_shows_what_is_saved(
    qtbot: QtBot, window: MainWindow
) -> None:
    """A form typed into before the saved values arrived was refilled with them (seen under
    load): typing went nowhere the person could see. Until its answer, a page is disabled."""
    with chat_server(ChatScript()) as url:
        connection = c.ChatConnection(kind="openai-compatible", base_url=url, model="m1")
        request = c.ChatUpdateRequest(connection=connection, api_key=None)
        assert isinstance(wait_call(qtbot, window, CHAT_MODEL_UPDATE, request), c.ChatInfo)
        window.open_connections()
        dialog = window.connections
        assert dialog is not None
        pages = (dialog.embedding_group, dialog.chat, dialog.rerank)
        assert not any(page.isEnabled() for page in pages), "nothing to type into yet"
        qtbot.keyClicks(dialog.chat_url, "typed too early")
        qtbot.waitUntil(lambda: all(page.isEnabled() for page in pages), timeout=5_000)
        assert dialog.chat_url.text() == url and dialog.chat_model.text() == "m1"
        dialog.chat_model.selectAll()
        qtbot.keyClicks(dialog.chat_model, "m2")
        qtbot.wait(200)
        assert dialog.chat_model.text() == "m2", "what is typed after the answer stays"
        dialog.reject()


def test_closing_with_unsaved_edits_asks_and_keeps_them_by_default(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Close, Escape or the window's own close dropped what was typed without a word."""
    dialog = open_dialog(qtbot, window)
    qtbot.keyClick(dialog, QtCore.Qt.Key.Key_Escape)
    assert not dialog.isVisible() and dialog.discard_box is None, "nothing edited: it closes"
    dialog = open_dialog(qtbot, window)
    dialog.model.setText("embed-typed")
    dialog.pages.setCurrentIndex(1)
    dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("openai-compatible"))
    qtbot.keyClicks(dialog.chat_url, "http://10.0.0.5:11434")
    qtbot.keyClick(dialog, QtCore.Qt.Key.Key_Escape)
    box = dialog.discard_box
    assert box is not None and box.isVisible() and dialog.isVisible()
    assert "not saved: Embedding model, Chat model." in box.text()
    assert box.defaultButton().text() == "Cancel"
    shoot(box, "connections-unsaved-en")
    qtbot.keyClick(box, QtCore.Qt.Key.Key_Return)  # the default keeps editing
    qtbot.waitUntil(lambda: not box.isVisible())
    assert dialog.isVisible() and dialog.chat_url.text() == "http://10.0.0.5:11434"
    dialog.close()  # the window's own close asks too
    box = dialog.discard_box
    assert box is not None and box.isVisible()
    qtbot.mouseClick(box.property("confirmButton"), QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    dialog = open_dialog(qtbot, window)
    assert dialog.chat_url.text() == "" and dialog.model.text() == "", "nothing was saved"
    dialog.chat_url.setText("http://10.0.0.5:11434")
    dialog.chat_url.clear()  # typed and taken back: nothing to lose
    dialog.reject()
    assert not dialog.isVisible() and dialog.discard_box is None


def click(qtbot: QtBot, dialog: ModelConnectionsDialog, button: QtWidgets.QPushButton) -> None:
    with qtbot.waitSignal(dialog.tested, timeout=20_000):
        qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def rerank_route(received: list[dict[str, Any]]) -> Any:
    def answer(_path: str, body: bytes) -> Reply:
        request = json.loads(body)
        received.append(request)
        results = [
            {"index": i, "relevance_score": 0.9 if i == 0 else 0.1}
            for i in range(len(request["documents"]))
        ]
        return Reply(200, json.dumps({"results": results}).encode(), "application/json")

    return answer


def test_each_form_tests_what_it_holds_and_saves_nothing(qtbot: QtBot, window: MainWindow) -> None:
    dialog = open_dialog(qtbot, window)
    # Embedding: an unsaved broken address fails although the saved model (hashing) works.
    dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
    dialog.base_url.setText(DEAD)
    dialog.model.setText("embed-small")
    click(qtbot, dialog, dialog.test_button)
    assert "Connection failed" in dialog.outcome.text()
    assert "cannot be reached" in dialog.outcome.text()
    # … and a working unsaved one reports its own dimensions, not the saved model's 384.
    with openai_server(Script(dims=256)) as base:
        dialog.base_url.setText(base)
        dialog.key.setText("sk-typed-only-for-the-test-0001")
        click(qtbot, dialog, dialog.test_button)
    assert "Connection works: 256 dimensions" in dialog.outcome.text()
    saved = wait_call(qtbot, window, EMBEDDING_GET, m.EmbeddingGetRequest())
    assert saved.connection.kind == "deterministic" and not saved.has_api_key

    # Chat: with no model chosen there is nothing to fill in or test.
    assert dialog.chat_kind.currentData() == "none"
    assert not dialog.chat_url.isEnabled() and not dialog.chat_test_button.isEnabled()
    # A tiny real request to the form's endpoint; the answer and the model are shown.
    script = ChatScript(turns=[[{"text": "OK"}]])
    with chat_server(script) as base:
        dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("openai-compatible"))
        dialog.chat_url.setText(base)
        dialog.chat_model.setText("qwen-test")
        click(qtbot, dialog, dialog.chat_test_button)
    assert "Connection works: model qwen-test answered" in dialog.chat_status.text()
    assert "“OK”" in dialog.chat_status.text()
    assert script.requests[0]["model"] == "qwen-test" and script.requests[0]["max_tokens"] <= 16
    dialog.chat_url.setText(DEAD)
    click(qtbot, dialog, dialog.chat_test_button)
    assert "Connection failed" in dialog.chat_status.text()
    assert "check the address and that the service is running" in dialog.chat_status.text()
    # one "connection failed", not "Connection failed: … (the connection failed) — nothing
    # answers at this address" (a helper's try): what failed, and what to do
    assert "(nothing accepted the connection)" in dialog.chat_status.text()
    assert dialog.chat_status.text().lower().count("connection failed") == 1
    assert wait_call(qtbot, window, CHAT_MODEL_GET, c.ChatGetRequest()).connection.kind == "none"

    # Rerank: a tiny real /v1/rerank call; the scores come back.
    received: list[dict[str, Any]] = []
    with serve({"/v1/rerank": rerank_route(received)}) as base:
        dialog.rerank_url.setText(base)
        dialog.rerank_model.setText("rerank-v2")
        dialog.rerank_key.setText("rk-typed-0002")
        click(qtbot, dialog, dialog.rerank_test_button)
    assert "test documents scored 0.900, 0.100" in dialog.rerank_status.text()
    assert received[0]["model"] == "rerank-v2" and len(received[0]["documents"]) == 2
    with serve({"/v1/rerank": Reply(401, b"bad key rk-typed-0002", "text/plain")}) as base:
        dialog.rerank_url.setText(base)
        click(qtbot, dialog, dialog.rerank_test_button)
    failed = dialog.rerank_status.text()
    assert "HTTP 401" in failed and "check the API key" in failed
    assert "rk-typed-0002" not in failed
    rerank = wait_call(qtbot, window, RERANK_GET, m.RerankGetRequest())
    assert not rerank.configured and not rerank.has_api_key
    shoot(dialog, "connections-tests-en")
    dialog.reject()


def test_saving_a_failing_connection_asks_first(qtbot: QtBot, window: MainWindow) -> None:
    dialog = open_dialog(qtbot, window)
    dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("ollama"))
    dialog.chat_url.setText(DEAD)
    dialog.chat_model.setText("qwen2.5")
    qtbot.mouseClick(dialog.chat_save_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.confirm_box is not None, timeout=20_000)
    box = dialog.confirm_box
    assert box is not None and box.isVisible()
    assert "The connection test failed" in box.text() and "Save anyway?" in box.text()
    assert box.defaultButton() is not box.property("confirmButton"), "Cancel is the default"
    box.defaultButton().click()
    qtbot.waitUntil(lambda: "Not saved" in dialog.chat_status.text(), timeout=5_000)
    assert wait_call(qtbot, window, CHAT_MODEL_GET, c.ChatGetRequest()).connection.kind == "none"
    # the outcome is of the values tested: typing in the address takes it away
    qtbot.keyClicks(dialog.chat_url, "/")
    assert dialog.chat_status.text() == ""
    dialog.chat_url.setText(DEAD)

    qtbot.mouseClick(dialog.chat_save_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.confirm_box is not None, timeout=20_000)
    box = dialog.confirm_box
    assert box is not None
    box.property("confirmButton").click()
    qtbot.waitUntil(lambda: "Saved" in dialog.chat_status.text(), timeout=5_000)
    saved = wait_call(qtbot, window, CHAT_MODEL_GET, c.ChatGetRequest()).connection
    assert (saved.kind, saved.base_url, saved.model) == ("ollama", DEAD, "qwen2.5")
    # saved: the sentence says where text "is sent", no longer "once saved"
    qtbot.waitUntil(lambda: "are sent to" in dialog.chat.data_path.text(), timeout=5_000)
    assert "Once saved" not in dialog.chat.data_path.text()

    # A connection that passes its test is saved without a question.
    with openai_server(Script()) as base:
        dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
        dialog.base_url.setText(base)
        dialog.model.setText("embed-small")
        with qtbot.waitSignal(dialog.saved, timeout=20_000):
            qtbot.mouseClick(dialog.save_button, QtCore.Qt.MouseButton.LeftButton)
    assert dialog.confirm_box is None
    saved_embedding = wait_call(qtbot, window, EMBEDDING_GET, m.EmbeddingGetRequest())
    assert saved_embedding.connection.base_url == base

    # A failing rerank service, answered with Cancel, leaves the saved (empty) one alone.
    dialog.rerank_url.setText(DEAD)
    dialog.rerank_model.setText("rerank-v2")
    qtbot.mouseClick(dialog.rerank_save_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.confirm_box is not None, timeout=20_000)
    box = dialog.confirm_box
    assert box is not None
    box.reject()
    qtbot.waitUntil(lambda: "Not saved" in dialog.rerank_status.text(), timeout=5_000)
    assert not wait_call(qtbot, window, RERANK_GET, m.RerankGetRequest()).configured
    dialog.reject()


def test_model_connections_switch_explicitly_and_never_show_the_key(
    qtbot: QtBot, window: MainWindow
) -> None:

    window.open_connections()
    dialog = window.connections
    assert dialog is not None
    qtbot.waitUntil(lambda: "this computer" in dialog.data_path.text(), timeout=5_000)
    with openai_server(Script()) as base:
        dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
        dialog.base_url.setText(base)
        dialog.model.setText("embed-small")
        dialog.key.setText("sk-typed-secret-0001")
        with qtbot.waitSignal(dialog.saved, timeout=5_000):
            dialog.save()
        assert dialog.key.text() == "" and "stored" in dialog.key.placeholderText()
        assert base in dialog.data_path.text(), "the data path names where text is sent"
        dialog.test()
        qtbot.waitUntil(lambda: "Connection works: 384" in dialog.outcome.text(), timeout=5_000)
    dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("ollama"))
    dialog.chat_url.setText("http://127.0.0.1:11434")
    dialog.chat_model.setText("qwen2.5")
    dialog.chat_key.setText("chat-key-typed-0002")
    dialog.save_chat()
    # Nothing answers there: the failed test asks before saving (see test_connections.py).
    qtbot.waitUntil(lambda: dialog.confirm_box is not None, timeout=20_000)
    dialog.confirm_box.property("confirmButton").click()  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: "Saved" in dialog.chat_status.text(), timeout=5_000)
    assert dialog.chat_key.text() == "" and "stored" in dialog.chat_key.placeholderText()
    dialog.rerank_model.setText("rerank-v2")
    dialog.rerank_url.setText("ftp://not-http")
    dialog.save_rerank()
    assert "must start with http:// or https://" in dialog.rerank_status.text(), (
        "the error stays by its form"
    )
    assert "pydantic" not in dialog.rerank_status.text()
    shoot(dialog, "connections-light-en")
    dialog.reject()


def test_the_data_path_follows_the_form_before_saving(qtbot: QtBot, window: MainWindow) -> None:
    """The sentence beside the form says where text would go with what the form holds: a
    remote address typed (not saved) is named at once, and going back to a model on this
    computer says so again."""
    dialog = open_dialog(qtbot, window)
    assert "no text leaves it" in dialog.data_path.text()
    dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
    assert "no text leaves" not in dialog.data_path.text()
    assert "the address entered above" in dialog.data_path.text()
    dialog.base_url.setText("https://embed.example.com/v1")
    dialog.model.setText("embed-large")
    shown = dialog.data_path.text()
    assert "sent to https://embed.example.com/v1 (model embed-large)" in shown
    assert "no text leaves" not in shown
    saved = wait_call(qtbot, window, EMBEDDING_GET, m.EmbeddingGetRequest())
    assert saved.connection.kind == "deterministic", "nothing was saved"
    assert dialog.model_list.button.isEnabled(), "a remote service lists its models"
    dialog.kind.setCurrentIndex(dialog.kind.findData("local"))
    assert "runs on this computer" in dialog.data_path.text()
    # the bundled model has no service to ask: "List models" is off with the address and key
    assert not dialog.model_list.button.isEnabled() and not dialog.base_url.isEnabled()
    dialog.kind.setCurrentIndex(dialog.kind.findData("none"))
    assert "Semantic search is off" in dialog.data_path.text()
    assert not dialog.test_button.isEnabled(), "search off: nothing to test"
    dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
    dialog.base_url.setText("https://embed.example.com/v1")
    dialog.model.clear()
    assert "(no model entered yet)" in dialog.data_path.text(), "never '(model ?)'"
    dialog.reject()


def test_the_chat_and_rerank_pages_say_where_their_text_goes(
    qtbot: QtBot, window: MainWindow
) -> None:
    """The chat model receives the question, the conversation and the evidence; the rerank
    service the question and the candidates: their pages said nothing of it (seen under Xvfb).
    Each now says so for the form as it is being edited."""
    dialog = open_dialog(qtbot, window)
    chat, rerank = dialog.chat, dialog.rerank
    assert chat.data_path.text() == "No chat model: nothing is sent anywhere."
    dialog.pages.setCurrentIndex(1)
    qtbot.wait(50)
    test_button = next(
        b for b in chat.findChildren(QtWidgets.QPushButton) if b.text() == "Test connection"
    )

    def test_at() -> int:  # it moved a line down under the pointer as a model was typed
        return test_button.mapTo(dialog, QtCore.QPoint(0, 0)).y()

    at = test_at()
    chat.kind.setCurrentIndex(chat.kind.findData("ollama"))
    assert "will be sent to the address and model entered above" in chat.data_path.text()
    chat.url.setText("http://10.0.0.5:11434")
    chat.model.setText("qwen")
    # not saved yet: it "will be" sent, once saved (it said "are sent" of a draft)
    assert chat.data_path.text() == (
        "Once saved, questions, the conversation and the evidence passages found will be sent"
        " to http://10.0.0.5:11434 (model qwen)."
    )
    chat.model.setText("qwen2.5-72b-instruct-a-model-with-a-long-name")
    qtbot.wait(50)
    assert test_at() == at, "the sentence's new length moved the Test button"
    chat.model.setText("qwen")
    shoot(dialog, "connections-chat-data-path-en")
    assert "nothing is sent" in rerank.data_path.text()
    rerank.url.setText("https://rerank.example.com/v1")
    rerank.model.setText("rr-1")
    assert "candidate passages will be sent to https://rerank.example.com/v1 (model rr-1)" in (
        rerank.data_path.text()
    )
    rerank.url.clear()
    assert "nothing is sent; a library's local rule-based rerank" in rerank.data_path.text()
    saved = wait_call(qtbot, window, CHAT_MODEL_GET, c.ChatGetRequest())
    assert saved.connection.kind == "none", "nothing was saved"
    dialog.reject()


def test_a_save_of_what_just_passed_its_test_does_not_ask_the_model_again(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Test, then "Save and switch": the save tested again, a second request to what may be
    a paid model. Exactly what has just passed is saved as it is; anything else is tested."""
    dialog = open_dialog(qtbot, window)
    script = ChatScript(turns=[[{"text": "OK"}]] * 3)
    with chat_server(script) as base:
        dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("openai-compatible"))
        dialog.chat_url.setText(base)
        dialog.chat_model.setText("qwen-test")
        dialog.chat_key.setText("sk-typed-0003")
        click(qtbot, dialog, dialog.chat_test_button)
        assert "Connection works" in dialog.chat_status.text() and len(script.requests) == 1
        qtbot.mouseClick(dialog.chat_save_button, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Saved" in dialog.chat_status.text(), timeout=10_000)
        assert len(script.requests) == 1, "the save did not ask the model again"
        saved = wait_call(qtbot, window, CHAT_MODEL_GET, c.ChatGetRequest()).connection
        assert (saved.kind, saved.model) == ("openai-compatible", "qwen-test")
        # another model: never tested, so the save tests it first
        dialog.chat_model.setText("qwen-other")
        qtbot.mouseClick(dialog.chat_save_button, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(script.requests) == 2, timeout=10_000)
        qtbot.waitUntil(lambda: "Saved" in dialog.chat_status.text(), timeout=10_000)
        assert script.requests[1]["model"] == "qwen-other"
    dialog.reject()


def test_the_address_example_is_the_chosen_servers(qtbot: QtBot, window: MainWindow) -> None:
    """The embedding page suggested Ollama's address (:11434) for an OpenAI-compatible
    server too, and the chat page suggested none."""
    dialog = open_dialog(qtbot, window)
    for kinds, url in ((dialog.kind, dialog.base_url), (dialog.chat_kind, dialog.chat_url)):
        url.clear()
        kinds.setCurrentIndex(kinds.findData("openai-compatible"))
        assert url.placeholderText().endswith("/v1") and ":11434" not in url.placeholderText()
        kinds.setCurrentIndex(kinds.findData("ollama"))
        assert url.placeholderText() == "http://127.0.0.1:11434"
        kinds.setCurrentIndex(kinds.findData("none"))
        assert url.placeholderText() == "" and not url.isEnabled()
    # List models with Ollama chosen and no address asks Ollama's own address, and fills it in
    # (it said "choose Ollama … and enter its address first" with Ollama chosen)
    dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("ollama"))
    dialog.chat_url.clear()
    assert dialog.chat.picker is not None
    dialog.chat.picker.fetch()
    assert dialog.chat_url.text() == "http://127.0.0.1:11434"
    assert "Choose Ollama" not in dialog.chat.status.text()
    dialog.reject()  # the kinds changed: it asks before discarding them
    box = dialog.discard_box
    assert box is not None
    qtbot.mouseClick(box.property("confirmButton"), QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_a_failed_test_shows_what_the_service_said(qtbot: QtBot, tmp_path: Path) -> None:
    """An Ollama server without the model answers 404: the outcome says so in the service's own
    words, after the translated sentence, instead of leaving the person to guess between the
    address and the model name."""
    window = open_window(qtbot, tmp_path / "data", "zh")
    try:
        dialog = open_dialog(qtbot, window)
        dialog.kind.setCurrentIndex(dialog.kind.findData("ollama"))
        missing = json.dumps({"error": 'model "bge-m3" not found, try pulling it first'})
        with serve({"/api/embed": Reply(404, missing.encode(), "application/json")}) as base:
            dialog.base_url.setText(base)
            dialog.model.setText("bge-m3")
            click(qtbot, dialog, dialog.test_button)
        outcome = dialog.outcome.text()
        assert outcome.startswith("✗ 连接失败：向量服务返回 HTTP 404 — 请检查服务地址和模型名称")
        assert outcome.endswith('服务的原话：model "bge-m3" not found, try pulling it first')
        shoot(dialog, "connections-service-says-zh")
        dialog.reject()
    finally:
        set_language("en")


def test_the_dialog_opens_on_the_page_it_was_left_on(qtbot: QtBot, window: MainWindow) -> None:
    """It always opened on the embedding model: setting up a chat model meant choosing its
    page again each time (a helper's try). In this window it opens where it was left."""
    dialog = open_dialog(qtbot, window)
    assert dialog.pages.currentIndex() == 0
    dialog.pages.setCurrentIndex(1)
    dialog.reject()
    again = open_dialog(qtbot, window)
    assert again is not dialog and again.pages.currentIndex() == 1
    again.reject()


def test_an_address_holding_a_key_is_refused_in_each_form(qtbot: QtBot, window: MainWindow) -> None:
    """A key typed into the address (user:key@host, ?api_key=…) was saved and shown as the
    address, beside "no API key", and sent as Basic authentication (a helper's try from the
    command line, whose requests these forms share)."""
    dialog = open_dialog(qtbot, window)
    keyed = "http://user:sk-typed-0003@127.0.0.1:9/v1"
    dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("openai-compatible"))
    dialog.chat_url.setText(keyed)
    dialog.chat_model.setText("qwen2.5")
    # said as it is typed, where the "will be sent to …" line was, which repeated the key
    path = dialog.chat.data_path.text()
    assert "must not hold credentials" in path and "sk-typed-0003" not in path
    assert path.startswith("⚠ The service address"), "a sentence on its own line"
    dialog.save_chat()
    assert "must not hold credentials" in dialog.chat_status.text()
    assert "sk-typed-0003" not in dialog.chat_status.text()
    assert dialog.chat.picker is not None
    dialog.chat_url.setText("http://127.0.0.1:9/v1?api_key=sk-typed-0003")
    dialog.chat.picker.fetch()  # List models: refused before anything is asked
    assert "must not have a query" in dialog.chat.status.text()
    dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
    dialog.base_url.setText(keyed)
    dialog.model.setText("bge-m3")
    assert "sk-typed-0003" not in dialog.data_path.text()
    assert "must not hold credentials" in dialog.data_path.text()
    dialog.test()  # the embedding form's Test
    assert "must not hold credentials" in dialog.outcome.text()
    assert window.connections is dialog and dialog.isVisible()


def test_a_stored_key_is_not_sent_to_a_changed_address(qtbot: QtBot, tmp_path: Path) -> None:
    """A helper changed only the embedding form's address and pressed Test: the stored key went
    to whatever listened there. The key field says whose key is stored as soon as the address
    names another server, and Test is refused without sending anything there."""
    window = open_window(qtbot, tmp_path / "data", "zh")
    script, other = Script(), Script()
    try:
        dialog = open_dialog(qtbot, window)
        with openai_server(script) as first, openai_server(other) as second:
            dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
            dialog.base_url.setText(first)
            dialog.model.setText("embed-small")
            dialog.key.setText("sk-typed-secret-0004")
            with qtbot.waitSignal(dialog.saved, timeout=5_000):
                dialog.save()
            assert dialog.key.placeholderText() == "已保存密钥；输入新值以替换"
            dialog.base_url.setText(second)
            origin = first.removesuffix("/v1")
            assert dialog.key.placeholderText() == (f"已保存的密钥属于 {origin}，请重新输入")
            asked = script.calls
            click(qtbot, dialog, dialog.test_button)
            outcome = dialog.outcome.text()
            assert outcome.startswith("✗ 连接失败：已保存的 API 密钥属于 " + origin), outcome
            assert other.calls == 0 and script.calls == asked
            shoot(dialog, "connections-key-elsewhere-zh")
            dialog.base_url.setText(first + "/")  # the same server again
            assert dialog.key.placeholderText() == "已保存密钥；输入新值以替换"
        dialog.reject()
    finally:
        set_language("en")


def test_a_save_keeps_the_batch_size_and_timeout_the_form_does_not_show(
    qtbot: QtBot, window: MainWindow
) -> None:
    """A helper set a batch size of 4 with `model embedding --batch-size 4`, then saved a new
    model name in the window: the batch size went back to 32 (the form has no field for it)."""
    with openai_server(Script()) as base:
        tuned = m.EmbeddingConnection(
            kind="openai-compatible",
            base_url=base,
            model="embed-small",
            dimensions=384,
            batch_size=4,
            timeout_s=90.0,
        )
        wait_call(qtbot, window, EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=tuned))
        window.open_connections()
        dialog = window.connections
        assert dialog is not None
        qtbot.waitUntil(lambda: dialog.model.text() == "embed-small", timeout=5_000)
        dialog.model.setText("embed-small-v2")
        with qtbot.waitSignal(dialog.saved, timeout=10_000):
            dialog.save()
        dialog.reject()
    saved = wait_call(qtbot, window, EMBEDDING_GET, m.EmbeddingGetRequest()).connection
    assert saved.model == "embed-small-v2"
    assert (saved.batch_size, saved.timeout_s) == (4, 90.0)


def test_discarding_drops_a_save_still_testing_its_connection(
    qtbot: QtBot, window: MainWindow
) -> None:
    """A helper pressed Save, then Close while the connection was being tested: "Close and
    discard the changes?" — and the save went on and wrote the connection anyway."""
    with openai_server(Script(delay_s=1.5)) as base:
        dialog = open_dialog(qtbot, window)
        dialog.kind.setCurrentIndex(dialog.kind.findData("openai-compatible"))
        dialog.base_url.setText(base)
        dialog.model.setText("embed-small")
        dialog.save()  # its test takes a while
        dialog.close()
        box = dialog.discard_box
        assert box is not None and box.isVisible()
        qtbot.mouseClick(box.property("confirmButton"), QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not dialog.isVisible())
        qtbot.wait(2_500)  # past the test's answer
    saved = wait_call(qtbot, window, EMBEDDING_GET, m.EmbeddingGetRequest()).connection
    assert saved.kind != "openai-compatible" and saved.model != "embed-small", saved
