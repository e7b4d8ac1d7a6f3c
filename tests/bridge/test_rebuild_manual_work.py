"""Manual chunk work across rebuilds, over the real socket (issue 28, item 4): the preview
names it per document; a rebuild whose new chunking keeps a chunk's text carries its edit,
disabled state or deletion over and reports it; a disabled chunk whose text is only part of
the new chunk holding it does not switch that chunk off (the document is skipped instead); a
document rebuild asks the same way, and discarding drops the work the new chunking cannot keep."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import rebuild as rb
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    CHUNK_DELETE,
    CHUNK_UPDATE,
    CHUNKS_DISMISS_REPLACED,
    CHUNKS_LIST,
    DOCUMENT_REBUILD,
    DOCUMENTS_LIST,
    LIBRARY_LIST,
    LIBRARY_REBUILD,
    REBUILD_PREVIEW,
    RETRIEVE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_SYNC,
)
from tests.bridge.helpers import chunking, create_library, session, settle, wait_task
from tests.bridge.test_chunks_socket import raw

pytestmark = pytest.mark.integration

EDITED = "Corrected by hand: zebracrossing allowances are capped at 40 euros."


def section(n: int, word: str) -> str:
    return f"## Part {n}\n\n" + f"Part {n} of the travel policy covers {word} in detail. " * 8


def setup(client: BlockingClient, folder: Path) -> tuple[str, dict[str, str]]:
    """policy.md with one chunk edited, one disabled, one deleted; memo.md with one disabled."""
    library_id = create_library(client, "Notes")
    folder.mkdir()
    words = ("zebracrossing", "quokkafence", "walrusgate", "ordinaryword")
    (folder / "policy.md").write_text(
        "# Policy\n\n" + "\n\n".join(section(n, w) for n, w in enumerate(words, 1)), "utf-8"
    )
    (folder / "memo.md").write_text(
        "# Memo\n\n"
        + "\n\n".join(section(n, w) for n, w in enumerate(("ibisloop", "lynxmark"), 1)),
        "utf-8",
    )
    client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    settle(client, library_id)
    docs = {
        d.path: d.id
        for d in client.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id)).documents
    }

    def chunk(path: str, word: str) -> k.ChunkRequest:
        listed = client.call(
            CHUNKS_LIST,
            k.ChunksListRequest(library_id=library_id, document_id=docs[path], search=word),
        ).chunks
        assert len(listed) == 1, f"{word} should be in one chunk"
        return k.ChunkRequest(library_id=library_id, document_id=docs[path], chunk_id=listed[0].id)

    def update(ref: k.ChunkRequest, **change: object) -> None:
        client.call(CHUNK_UPDATE, k.ChunkUpdateRequest(**ref.model_dump(), **change))

    update(chunk("policy.md", "zebracrossing"), content=EDITED)
    update(chunk("policy.md", "quokkafence"), enabled=False)
    client.call(CHUNK_DELETE, chunk("policy.md", "walrusgate"))
    update(chunk("memo.md", "lynxmark"), enabled=False)
    return library_id, docs


def snippets(client: BlockingClient, library_id: str, word: str) -> list[str]:
    res = client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=word))
    return [x.snippet for x in res.results if word in x.snippet]


def rebuild(client: BlockingClient, library_id: str, choice: str = "skip") -> t.TaskInfo:
    request = rb.LibraryRebuildRequest(library_id=library_id, manual_work=choice)  # type: ignore[arg-type]
    info, _seen = wait_task(client, client.call(LIBRARY_REBUILD, request).task_id)
    assert info.state == "completed", info.error
    return info


def counts(edited: int = 0, disabled: int = 0, deleted: int = 0) -> rb.ManualWorkCounts:
    return rb.ManualWorkCounts(edited=edited, disabled=disabled, deleted=deleted)


def test_unchanged_text_keeps_its_manual_state_and_a_partly_disabled_chunk_skips_its_document(
    data_dir: Path, tmp_path: Path
) -> None:
    with session(data_dir) as (_backend, client):
        library_id, docs = setup(client, tmp_path / "notes")
        preview = client.call(REBUILD_PREVIEW, rb.RebuildPreviewRequest(library_id=library_id))
        assert [(d.path, d.counts) for d in preview.documents] == [
            ("memo.md", counts(disabled=1)),
            ("policy.md", counts(1, 1, 1)),
        ]
        assert preview.total == counts(1, 2, 1) and preview.more_documents == 0

        # A contextual prefix changes every chunk's index text but not its text: all carried.
        client.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(library_id=library_id, contextual_indexing=True),
        )
        info = rebuild(client, library_id)
        assert info.summary is not None and info.summary.succeeded == 2
        work = info.summary.manual_work
        assert work is not None and work.carried == counts(1, 2, 1)
        assert work.skipped_documents == 0 and work.discarded == counts()
        assert info.summary.settings_applied is True
        assert snippets(client, library_id, "zebracrossing") == [EDITED]
        assert snippets(client, library_id, "quokkafence") == []
        assert snippets(client, library_id, "walrusgate") == [], "a deletion outlives a rebuild"
        assert snippets(client, library_id, "lynxmark") == []
        again = client.call(REBUILD_PREVIEW, rb.RebuildPreviewRequest(library_id=library_id))
        assert again.total == counts(1, 2, 1), "the carried work is still there to protect"

        # One big fixed chunk per document: memo's disabled section is half of it. Disabling
        # that chunk would take the other section out of search too (under Xvfb, a person's
        # one disabled passage switched a whole document off): memo.md is skipped as well.
        chunking(client, library_id, "fixed", target_characters=8000)
        info = rebuild(client, library_id)
        work = info.summary.manual_work if info.summary else None
        assert work is not None and work.skipped_paths == ["memo.md", "policy.md"]
        # skipped, each keeps all its work (the summary said "1 edited, 1 deleted" before:
        # under Xvfb, a person who had also disabled a chunk read it as lost)
        assert work.carried == counts() and work.kept == counts(1, 2, 1)
        memo = client.call(
            CHUNKS_LIST, k.ChunksListRequest(library_id=library_id, document_id=docs["memo.md"])
        ).chunks
        assert [c.enabled for c in memo] == [True, False], "memo keeps its two chunks"
        assert snippets(client, library_id, "lynxmark") == []
        assert snippets(client, library_id, "ibisloop"), "the section left on is still found"
        assert snippets(client, library_id, "zebracrossing") == [EDITED], "policy.md skipped"
        # the library and the document say that both keep chunks of the old settings
        assert kept(client, library_id) == (2, 2, ["memo.md", "policy.md"])

        # A document rebuild asks the same way; discarding brings the file's text back.
        request = rb.DocumentRebuildRequest(
            library_id=library_id, document_id=docs["policy.md"], manual_work="discard"
        )
        done, _seen = wait_task(client, client.call(DOCUMENT_REBUILD, request).task_id)
        work = done.summary.manual_work if done.summary else None
        assert work is not None and work.discarded == counts(1, 1, 1)
        assert snippets(client, library_id, "walrusgate") and snippets(
            client, library_id, "quokkafence"
        )
        left = client.call(REBUILD_PREVIEW, rb.RebuildPreviewRequest(library_id=library_id))
        assert [d.path for d in left.documents] == ["memo.md"]
        assert kept(client, library_id) == (1, 1, ["memo.md"]), "policy.md has the settings"
        # Settings changed again: every document waits for a rebuild with them, the one the last
        # rebuild skipped no longer singled out (the header kept "ⓘ 1 document keeps old
        # chunks" as if the rest of the library had the new settings)
        chunking(client, library_id, "fixed", target_characters=400, overlap_characters=0)
        assert kept(client, library_id) == (0, 0, [])
        settings = client.call(SETTINGS_GET, lib.SettingsGetRequest(library_id=library_id))
        assert settings.settings_pending_rebuild

        # Discarding drops the work the new chunking cannot keep (what it can keep is carried
        # over, see the CLI's test): memo's disabled section, half of a new chunk, is
        # searchable again and nothing is left to protect.
        info = rebuild(client, library_id, "discard")
        work = info.summary.manual_work if info.summary else None
        assert work is not None and work.discarded == counts(disabled=1)
        assert work.carried == counts() and work.skipped_documents == 0
        assert snippets(client, library_id, "lynxmark")
        left = client.call(REBUILD_PREVIEW, rb.RebuildPreviewRequest(library_id=library_id))
        assert left.documents == [] and left.total == counts()
        assert kept(client, library_id) == (0, 0, [])


def kept(client: BlockingClient, library_id: str) -> tuple[int, int, list[str]]:
    """The documents kept on old chunks for their manual work: as the library's settings,
    the documents' summary and the document rows count them."""
    settings = client.call(SETTINGS_GET, lib.SettingsGetRequest(library_id=library_id))
    listed = client.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
    libraries = client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries
    library = next(x for x in libraries if x.id == library_id)
    assert settings.kept_old_chunks == listed.summary.kept_old_chunks == library.kept_old_chunks
    paths = [d.path for d in listed.documents if d.kept_old_chunks]
    return settings.kept_old_chunks, listed.summary.kept_old_chunks, paths


def test_the_choice_is_validated(data_dir: Path) -> None:
    with session(data_dir) as (_backend, client):
        library_id = create_library(client, "Notes")
        wrong = raw(client, LIBRARY_REBUILD.name, {"libraryId": library_id, "manualWork": "wipe"})
        assert wrong["error"]["data"]["code"] == "invalid_request"
        assert "manualWork" in wrong["error"]["data"]["message"]


def test_a_resync_of_a_changed_file_says_what_manual_work_its_new_text_replaced(
    data_dir: Path, tmp_path: Path
) -> None:
    with session(data_dir) as (_backend, client):
        library_id, docs = setup(client, tmp_path / "notes")
        policy = tmp_path / "notes" / "policy.md"
        # The edited section's own text changes; the disabled and deleted ones stay as they were.
        policy.write_text(
            policy.read_text("utf-8").replace("covers zebracrossing", "now covers zebrastripes"),
            "utf-8",
        )
        task_id = client.call(SOURCE_SYNC, s.SourceSyncRequest(library_id=library_id)).task_ids[0]
        info, _seen = wait_task(client, task_id)
        work = info.summary.manual_work if info.summary else None
        assert work is not None and work.choice == "discard"
        assert work.discarded == counts(edited=1)
        assert work.discarded_paths == ["policy.md"], "which document's work went (a helper)"
        assert work.carried == counts(disabled=1, deleted=1)
        assert snippets(client, library_id, "zebrastripes")
        assert snippets(client, library_id, "walrusgate") == []
        assert snippets(client, library_id, "quokkafence") == []
        # The edit is not lost silently: kept, in full, with its document until dismissed (a
        # one-digit change to a file wiped a typed paragraph, every place saying "no problems")
        ids = {"library_id": library_id, "document_id": docs["policy.md"]}
        listing = client.call(CHUNKS_LIST, k.ChunksListRequest(**ids))
        assert [e.content for e in listing.replaced] == [EDITED]
        assert listing.document.replaced_edits == 1
        listed = client.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id))
        assert {d.path: d.replaced_edits for d in listed.documents}["policy.md"] == 1
        gone = client.call(CHUNKS_DISMISS_REPLACED, k.ReplacedDismissRequest(**ids))
        assert gone.dismissed == 1 and gone.document.replaced_edits == 0
        assert client.call(CHUNKS_LIST, k.ChunksListRequest(**ids)).replaced == []
