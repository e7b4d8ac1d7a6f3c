"""Every user-visible GUI string, in zh-CN and en, and the one ``tr`` that reads them. The
system locale picks the language; GOODBUDDY_LANG (``zh`` or ``en``) overrides it.

Each area keeps its strings in its own catalogue module; ``STRINGS`` merges them (a test checks
that no key is defined in two of them, since a later one would silently win). The backend's
message texts live in ``i18n.messages``."""

from __future__ import annotations

import os
from collections.abc import Iterable

from goodbuddy_kb.contracts.messages import fill
from goodbuddy_kb.contracts.models import BUNDLED_MODEL_SUFFIX, split_model_label
from goodbuddy_kb.qt import QtCore
from goodbuddy_kb.ui.i18n.chat import CHAT_STRINGS
from goodbuddy_kb.ui.i18n.chunks import CHUNK_STRINGS
from goodbuddy_kb.ui.i18n.common import COMMON_STRINGS
from goodbuddy_kb.ui.i18n.documents import DOCUMENTS_STRINGS
from goodbuddy_kb.ui.i18n.graph import GRAPH_STRINGS
from goodbuddy_kb.ui.i18n.library import LIBRARY_STRINGS
from goodbuddy_kb.ui.i18n.mainwindow import MAINWINDOW_STRINGS
from goodbuddy_kb.ui.i18n.ontology import STARTER_STRINGS
from goodbuddy_kb.ui.i18n.settings import SETTINGS_STRINGS
from goodbuddy_kb.ui.i18n.tasks import TASKS_STRINGS
from goodbuddy_kb.ui.i18n.welcome import WELCOME_STRINGS
from goodbuddy_kb.ui.i18n.workbench import WORKBENCH_STRINGS

#: Each area's catalogue, by its module's name: key → (zh-CN, en).
CATALOGUES: dict[str, dict[str, tuple[str, str]]] = {
    "common": COMMON_STRINGS,
    "mainwindow": MAINWINDOW_STRINGS,
    "library": LIBRARY_STRINGS,
    "documents": DOCUMENTS_STRINGS,
    "tasks": TASKS_STRINGS,
    "settings": SETTINGS_STRINGS,
    "chat": CHAT_STRINGS,
    "graph": GRAPH_STRINGS,
    "ontology": STARTER_STRINGS,
    "workbench": WORKBENCH_STRINGS,
    "chunks": CHUNK_STRINGS,
    "welcome": WELCOME_STRINGS,
}
STRINGS: dict[str, tuple[str, str]] = {
    key: texts for catalogue in CATALOGUES.values() for key, texts in catalogue.items()
}

_language = "en"


def detect_language() -> str:
    stored = QtCore.QSettings("GoodBuddy", "GoodBuddy KB").value("language", "")
    override = os.environ.get("GOODBUDDY_LANG", "") or (stored if isinstance(stored, str) else "")
    override = override.lower()
    if override.startswith("zh"):
        return "zh"
    if override.startswith("en"):
        return "en"
    return "zh" if QtCore.QLocale.system().language() == QtCore.QLocale.Language.Chinese else "en"


def set_language(language: str) -> None:
    global _language  # noqa: PLW0603 - one process-wide UI language
    _language = "zh" if language.startswith("zh") else "en"


def language() -> str:
    return _language


def tr(key: str, **values: object) -> str:
    zh, en = STRINGS[key]
    text = zh if _language == "zh" else en
    return fill(text, **values) if values else text


def tr_or(key: str, fallback: str, **values: object) -> str:
    """``tr(key)`` when the key exists, else ``fallback`` (e.g. a code added by a newer backend)."""
    return tr(key, **values) if key in STRINGS else fallback


def listing(items: Iterable[str]) -> str:
    """Items of a list as the language writes them: "全文、中文、向量", "full-text, Chinese"."""
    return tr("list.join").join(items)


def channel_name(name: str) -> str:
    """A retrieval channel as people call it (全文/中文/向量/图谱, full-text/…), or its key."""
    return tr_or(f"channel.{name}", name)


def model_label(label: str) -> str:
    """An embedding model's label (``local: multilingual-e5-small (4-bit, bundled)``) as people
    read it, in their language: the model's own name first, then the provider kind (the bundled
    model's note instead), then its address — "hashing-384 (test hashing)"."""
    kind, model, where = split_model_label(label)
    if model.endswith(BUNDLED_MODEL_SUFFIX):
        text = model[: -len(BUNDLED_MODEL_SUFFIX)] + tr("model.bundled")
    elif kind:
        text = tr("model.with_kind", model=model, kind=tr_or(f"model.kind.{kind}", kind))
    else:
        text = model
    return f"{text} @ {where}" if where else text
