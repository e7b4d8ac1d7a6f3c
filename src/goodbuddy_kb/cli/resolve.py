"""Turning what a person typed into ids: LIB (a library id or its name, exact or in another
case when that is unambiguous) and DOC (a document id, its path inside its source, or its full
file path or URL)."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.limits import MAX_CHUNKS_PER_PAGE
from goodbuddy_kb.contracts.methods import DOCUMENTS_LIST, LIBRARY_LIST, SOURCE_LIST


def resolve_library(session: Session, ref: str) -> lib.Library:
    """A library by id, else by exact name, else by name in another case when only one matches.
    An id wins over a name: a library named like another's id never hides it (``library
    delete <id>`` deleting the wrong one)."""
    libraries = session.client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries
    for library in libraries:
        if ref == library.id:
            return library
    for library in libraries:
        if ref == library.name:
            return library
    folded = [x for x in libraries if x.name.casefold() == ref.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise NotFoundError(f"no library with id or name “{ref}”")


#: The least characters of an id prefix taken for the id (a source's, a chunk's).
MIN_PREFIX = 6


def resolve_source(session: Session, library_id: str, ref: str) -> c.Source:
    """A source by id, by an unambiguous prefix of its id (as ``source list`` prints them), or
    by the folder, file or address it was added with."""
    sources = session.client.call(SOURCE_LIST, c.SourceListRequest(library_id=library_id)).sources
    for source in sources:
        if ref == source.id:
            return source
    folded = ref.strip().lower()
    by_prefix = [s for s in sources if len(folded) >= MIN_PREFIX and s.id.startswith(folded)]
    if len(by_prefix) == 1:
        return by_prefix[0]
    path = str(Path(ref).expanduser().resolve()) if "://" not in ref else ref
    by_place = [s for s in sources if s.location in (ref, path) or Path(s.location) == Path(path)]
    if len(by_place) == 1:
        return by_place[0]
    if len(by_prefix) > 1:
        raise NotFoundError(f"“{ref}” begins {len(by_prefix)} sources' ids; give more of it")
    short = (
        f"; an id is given whole or by its first {MIN_PREFIX} characters or more"
        if any(s.id.startswith(folded) for s in sources)
        else ""
    )
    raise NotFoundError(
        f"no source with id or location “{ref}” in this library (`source list` shows them){short}"
    )


def _all_documents(session: Session, library_id: str) -> list[c.Document]:
    found: list[c.Document] = []
    while True:
        page = session.client.call(
            DOCUMENTS_LIST,
            c.DocumentListRequest(
                library_id=library_id, offset=len(found), limit=MAX_CHUNKS_PER_PAGE
            ),
        )
        found += page.documents
        if not page.documents or len(found) >= page.total:
            return found


def resolve_document(session: Session, library_id: str, ref: str) -> c.Document:
    """A document by id, by its path inside its source, or by its full file path or URL."""
    docs = _all_documents(session, library_id)
    by_id = [d for d in docs if d.id == ref]
    if by_id:
        return by_id[0]
    wanted: set[tuple[str | None, str]] = {(None, ref)}
    for source in session.client.call(
        SOURCE_LIST, c.SourceListRequest(library_id=library_id)
    ).sources:
        if source.kind == "web" and ref == source.location:
            wanted.add((source.id, source.location))
            continue
        full = Path(ref).expanduser()
        if not full.is_absolute():
            continue
        location = Path(source.location)
        if source.kind == "file" and full == location:
            wanted.add((source.id, location.name))
        elif source.kind == "folder" and full.is_relative_to(location):
            wanted.add((source.id, full.relative_to(location).as_posix()))
    matches = [d for d in docs if (d.source_id, d.path) in wanted or (None, d.path) in wanted]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise NotFoundError(
            f"“{ref}” names {len(matches)} documents (in different sources); use the document id"
        )
    raise NotFoundError(f"no document with id or path “{ref}” in this library")
