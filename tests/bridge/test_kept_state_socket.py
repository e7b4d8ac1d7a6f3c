"""Over the real socket: a document's own source (a failed document's too) opens, shows in its
folder and says where it is only for the library it belongs to — the backend re-checks every
id and never takes a path; a conversation keeps its scope and refuses a library that does not
exist; the window's state is kept with the data directory and forgets a deleted library."""

from __future__ import annotations

import stat
import sys
import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import window as w
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.methods import (
    CONVERSATION_CREATE,
    CONVERSATION_DELETE,
    CONVERSATION_LIST,
    CONVERSATION_SCOPE_UPDATE,
    DOCUMENT_LOCATE,
    DOCUMENT_OPEN,
    DOCUMENT_REVEAL,
    DOCUMENTS_LIST,
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    WINDOW_STATE_GET,
    WINDOW_STATE_UPDATE,
)
from goodbuddy_kb.contracts.retrieval import DocumentSourceRequest
from goodbuddy_kb.main_process.opener import ENV_REVEALER
from tests.bridge.helpers import library_with, wait_idle

pytestmark = pytest.mark.integration


def lines(log: Path, count: int) -> list[str]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= count:
            break
        time.sleep(0.05)
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def revealed_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file manager replaced at the process boundary by a command that records its argument."""
    log = tmp_path / "revealed.log"
    script = tmp_path / "record-revealer"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_REVEALER, str(script))
    return log


def test_a_documents_source_is_opened_shown_and_located_by_ids_rechecked(
    revealed_log: Path, live: BlockingClient, opened_log: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "empty.md").write_bytes(b"")
    library_id = library_with(live, folder)
    wait_idle(live)
    docs = live.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id)).documents
    failed = next(d for d in docs if d.path == "empty.md")
    assert failed.error and failed.chunk_count == 0
    request = DocumentSourceRequest(library_id=library_id, document_id=failed.id)
    assert live.call(DOCUMENT_OPEN, request).opened
    assert lines(opened_log, 1) == [str(folder / "empty.md")], "a failed document opens"
    assert live.call(DOCUMENT_REVEAL, request).opened
    assert lines(revealed_log, 1) == [str(folder / "empty.md")]
    where = live.call(DOCUMENT_LOCATE, request)
    assert (where.target_kind, where.target) == ("file", str(folder / "empty.md"))
    # Another library's id with this document: refused, nothing opened, shown or located.
    other = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Other")).library.id
    foreign = DocumentSourceRequest(library_id=other, document_id=failed.id)
    for spec in (DOCUMENT_OPEN, DOCUMENT_REVEAL, DOCUMENT_LOCATE):
        with pytest.raises(NotFoundError):
            live.call(spec, foreign)
    time.sleep(0.3)
    assert len(lines(opened_log, 1)) == 1 and len(lines(revealed_log, 1)) == 1


def test_a_conversation_keeps_its_scope_and_the_window_its_place(
    live: BlockingClient, tmp_path: Path
) -> None:
    alpha = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Alpha")).library.id
    beta = live.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="Beta")).library.id
    scope = c.ChatScope(library_ids=[alpha], known_library_ids=sorted([alpha, beta]), mode="always")
    made = live.call(CONVERSATION_CREATE, c.ConversationCreateRequest(title="Trip", scope=scope))
    assert made.scope == scope
    narrower = scope.model_copy(update={"library_ids": [], "mode": "auto"})
    live.call(
        CONVERSATION_SCOPE_UPDATE,
        c.ConversationScopeUpdateRequest(conversation_id=made.id, scope=narrower),
    )
    (listed,) = live.call(CONVERSATION_LIST, c.ConversationListRequest()).conversations
    assert listed.scope == narrower
    unknown = scope.model_copy(update={"library_ids": ["0" * 32]})
    with pytest.raises(NotFoundError):
        live.call(
            CONVERSATION_SCOPE_UPDATE,
            c.ConversationScopeUpdateRequest(conversation_id=made.id, scope=unknown),
        )
    (listed,) = live.call(CONVERSATION_LIST, c.ConversationListRequest()).conversations
    assert listed.scope == narrower, "a refused scope changes nothing"
    # The window's place: nothing kept at first; kept; a deleted library is forgotten.
    assert live.call(WINDOW_STATE_GET, w.WindowStateGetRequest()).state is None
    place = w.WindowState(library_id=beta, area="chat", tab="graph", geometry="AdnQyw==")
    live.call(WINDOW_STATE_UPDATE, w.WindowStateUpdateRequest(state=place))
    assert live.call(WINDOW_STATE_GET, w.WindowStateGetRequest()).state == place
    with pytest.raises(NotFoundError):
        live.call(
            WINDOW_STATE_UPDATE,
            w.WindowStateUpdateRequest(state=place.model_copy(update={"library_id": "0" * 32})),
        )
    live.call(LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=beta))
    kept = live.call(WINDOW_STATE_GET, w.WindowStateGetRequest()).state
    assert kept is not None and kept.library_id is None and kept.area == "chat"
    # The conversation open: kept; an unknown one refused; a deleted one forgotten.
    opened = place.model_copy(update={"library_id": alpha, "conversation_id": made.id})
    live.call(WINDOW_STATE_UPDATE, w.WindowStateUpdateRequest(state=opened))
    assert live.call(WINDOW_STATE_GET, w.WindowStateGetRequest()).state == opened
    with pytest.raises(NotFoundError):
        live.call(
            WINDOW_STATE_UPDATE,
            w.WindowStateUpdateRequest(
                state=opened.model_copy(update={"conversation_id": "0" * 32})
            ),
        )
    live.call(CONVERSATION_DELETE, c.ConversationDeleteRequest(conversation_id=made.id))
    kept = live.call(WINDOW_STATE_GET, w.WindowStateGetRequest()).state
    assert kept is not None and kept.conversation_id is None and kept.library_id == alpha
