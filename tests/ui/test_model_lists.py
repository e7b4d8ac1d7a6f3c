"""Model lists: the chat and embedding forms offer the models the endpoint lists (OpenAI-compatible
``/v1/models``, Ollama ``/api/tags``) through the backend, and still accept a typed name; a
failing endpoint says why in the form's language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.ui.i18n import set_language
from tests.servers.httpserver import Reply, serve
from tests.ui.helpers import open_window

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def json_reply(payload: object) -> Reply:
    return Reply(body=json.dumps(payload).encode(), content_type="application/json")


def test_forms_offer_listed_models_and_accept_typed_names(qtbot: QtBot, data_dir: Path) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        win.open_connections()
        dialog = win.connections
        assert dialog is not None
        # The saved connections arrive first (they would overwrite the form).
        qtbot.waitUntil(lambda: bool(dialog.chat_key.placeholderText()), timeout=5_000)
        qtbot.waitUntil(lambda: bool(dialog.key.placeholderText()), timeout=5_000)
        routes = {
            "/v1/models": json_reply({"data": [{"id": "qwen-plus"}, {"id": "bge-m3"}]}),
            "/api/tags": json_reply({"models": [{"name": "qwen2.5:7b"}, {"name": "nomic-embed"}]}),
        }
        with serve(routes) as base:  # type: ignore[arg-type]
            dialog.chat_kind.setCurrentIndex(dialog.chat_kind.findData("openai-compatible"))
            dialog.chat_url.setText(f"{base}/v1")
            with qtbot.waitSignal(dialog.chat_model_list.listed, timeout=10_000):
                dialog.chat_model_list.button.click()
            assert dialog.chat_model_list.names.stringList() == ["bge-m3", "qwen-plus"]
            assert "2 个模型" in dialog.chat_status.text()
            dialog.kind.setCurrentIndex(dialog.kind.findData("ollama"))
            dialog.base_url.setText(base)
            with qtbot.waitSignal(dialog.model_list.listed, timeout=10_000):
                dialog.model_list.button.click()
            assert dialog.model_list.names.stringList() == ["nomic-embed", "qwen2.5:7b"]
        dialog.chat_model.setText("a-model-the-list-does-not-have")
        assert dialog.chat_connection().model == "a-model-the-list-does-not-have"
        with serve({"/v1/models": Reply(status=401, body=b"no")}) as base:
            dialog.chat_url.setText(base)
            with qtbot.waitSignal(dialog.chat_model_list.listed, timeout=10_000):
                dialog.chat_model_list.button.click()
        text = dialog.chat_status.text()
        assert text.startswith("✗") and "HTTP 401" in text and "请检查 API 密钥" in text
        # a service without a list: the model name plays no part in listing (it said "check
        # the base URL and the model name"; a helper's try)
        with serve({"/v1/embeddings": Reply(status=200, body=b"{}")}) as base:
            dialog.chat_url.setText(base)
            with qtbot.waitSignal(dialog.chat_model_list.listed, timeout=10_000):
                dialog.chat_model_list.button.click()
        text = dialog.chat_status.text()
        assert "HTTP 404" in text and "并非每个服务都提供模型列表" in text, text
        assert "模型名称" in text and "请检查服务地址和模型名称" not in text
        dialog.reject()
    finally:
        win.link.shutdown()
        set_language("en")
