"""The one home of the names under which the backend keeps model connections and the window's
state: the ``app_settings`` keys (read and written through ``storage/app_settings.py``) and the credential
names of their API keys (``credentials.CredentialStore``). No other module spells them."""

from __future__ import annotations

#: ``app_settings`` keys: one model connection each.
EMBEDDING_SETTING = "embedding"
CHAT_SETTING = "chat"
RERANK_SETTING = "rerank"
#: ``app_settings`` key: where the person was in the window (``contracts/window.py``).
WINDOW_SETTING = "window"

#: Credential names: the API key of each model connection.
EMBEDDING_API_KEY = "embedding-api-key"
CHAT_API_KEY = "chat-api-key"
RERANK_API_KEY = "rerank-api-key"
