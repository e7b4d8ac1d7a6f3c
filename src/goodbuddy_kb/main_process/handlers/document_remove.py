"""Handler of `knowledge:document:remove`: one document out of its library. A file or page
added on its own is removed with its source; a folder's file joins the folder's exclusions (its
exact path, wildcards escaped) so the next sync does not bring it back, and its document, chunks
and index rows go. An e-mail attachment is removed with its message, not alone. The file on
disk is never touched."""

from __future__ import annotations

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import ConflictError, NotFoundError
from goodbuddy_kb.contracts.methods import DOCUMENT_REMOVE
from goodbuddy_kb.contracts.paths import message_of
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import documents, libraries, sources


def exact(path: str) -> str:
    """An exclusion pattern (``fnmatch``) that matches ``path`` and nothing else."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in path)


@handles(DOCUMENT_REMOVE)
def remove_document(ctx: CallContext, request: c.DocumentRemoveRequest) -> c.DocumentRemoveResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    row = conn.execute(
        "SELECT d.source_id, d.relative_path, s.kind FROM documents d"
        " JOIN sources s ON s.id = d.source_id WHERE d.id = ? AND d.library_id = ?",
        (request.document_id, request.library_id),
    ).fetchone()
    if row is None:
        raise NotFoundError("document not found", {"documentId": request.document_id})
    if message_of(row["relative_path"]) is not None:
        raise ConflictError("an e-mail attachment is removed with its message; nothing changed")
    excluded: str | None = None
    if row["kind"] == "folder":
        excluded = exact(row["relative_path"])
        sources.add_exclusion(conn, request.library_id, row["source_id"], excluded)
        documents.delete(conn, [request.document_id])
    else:
        sources.remove(conn, request.library_id, row["source_id"])
        ctx.services.rewatch()
    ctx.changes.sources = ctx.changes.documents = True
    ctx.changes.library_ids.append(request.library_id)
    return c.DocumentRemoveResponse(document_id=request.document_id, excluded=excluded)
