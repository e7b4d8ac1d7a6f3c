"""Handlers of `knowledge:document:open|reveal|locate`: a document's own source by its ids (a
failed document's too, which has no chunk to cite). The backend re-checks that the document
belongs to the library and that its stored source is a regular local file inside its source
or an http(s) page; the GUI never hands over a path."""

from __future__ import annotations

from goodbuddy_kb.contracts.errors import ConflictError
from goodbuddy_kb.contracts.methods import DOCUMENT_LOCATE, DOCUMENT_OPEN, DOCUMENT_REVEAL
from goodbuddy_kb.contracts.retrieval import (
    DocumentLocation,
    DocumentSourceRequest,
    ReferenceOpenResponse,
)
from goodbuddy_kb.main_process import references
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import libraries


def _target(ctx: CallContext, request: DocumentSourceRequest) -> tuple[str, str]:
    libraries.get(ctx.db.get(), request.library_id)
    return references.document_target(ctx.db.get(), request.library_id, request.document_id)


@handles(DOCUMENT_OPEN)
def document_open(ctx: CallContext, request: DocumentSourceRequest) -> ReferenceOpenResponse:
    kind, target = _target(ctx, request)
    ctx.services.opener(target)
    return ReferenceOpenResponse(opened=True, target_kind="url" if kind == "url" else "file")


@handles(DOCUMENT_REVEAL)
def document_reveal(ctx: CallContext, request: DocumentSourceRequest) -> ReferenceOpenResponse:
    kind, target = _target(ctx, request)
    if kind == "url":
        raise ConflictError("a web page has no folder to show; nothing was opened")
    ctx.services.revealer(target)
    return ReferenceOpenResponse(opened=True, target_kind="file")


@handles(DOCUMENT_LOCATE)
def document_locate(ctx: CallContext, request: DocumentSourceRequest) -> DocumentLocation:
    kind, target = _target(ctx, request)
    return DocumentLocation(target_kind="url" if kind == "url" else "file", target=target)
