"""The evaluation's libraries: a dataset's corpus imported through the bridge as a library (one
source per folder past a source's file limit), its sources' path prefixes, its local knowledge
graph."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.bridge.waiting import wait_for_library
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_UPDATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_LIST,
)
from goodbuddy_kb.contracts.models import EmbeddingConnection, EmbeddingUpdateRequest
from goodbuddy_kb.contracts.settings import ChunkingMode, KnowledgeChunkingSettings
from goodbuddy_kb.evaluation.dataset import Dataset, DatasetError


def corpus_sources(corpus: Path) -> list[tuple[Path, str]]:
    """The folders to import, each with the path prefix of its documents inside the corpus:
    the corpus itself, or, past one source's file limit, each top-level subfolder."""
    files = sum(1 for p in corpus.rglob("*") if p.is_file())
    if files <= src.MAX_FILES_PER_SOURCE:
        return [(corpus, "")]
    loose = [p.name for p in corpus.iterdir() if p.is_file()]
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    if loose or not folders:
        raise DatasetError(
            f"{corpus} holds {files} files (one source takes at most"
            f" {src.MAX_FILES_PER_SOURCE}); put them in subfolders, each becomes a source"
        )
    for folder in folders:
        count = sum(1 for p in folder.rglob("*") if p.is_file())
        if count > src.MAX_FILES_PER_SOURCE:
            raise DatasetError(
                f"subfolder {folder.name} holds {count} files (at most {src.MAX_FILES_PER_SOURCE})"
            )
    return [(folder, folder.name + "/") for folder in folders]


def extract_graph(session: Session, library_id: str) -> None:
    """The local knowledge graph of the library (the "hybrid + graph" mode uses it)."""
    client = session.client
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    if info.settings.strategy != "local":
        settings = info.settings.model_copy(update={"strategy": "local"})
        client.call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings))
    elif not info.needs_rebuild and info.entities:
        return
    task = client.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    wait_for_library(session, library_id, [task.task_id])


def import_corpus(
    session: Session,
    dataset: Dataset,
    connection: EmbeddingConnection,
    api_key: str | None,
    chunking: ChunkingMode = "structure",
) -> str:
    client = session.client
    client.call(EMBEDDING_UPDATE, EmbeddingUpdateRequest(connection=connection, api_key=api_key))
    name = dataset.name[:80] + ("" if chunking == "structure" else f" [{chunking}]")
    for existing in client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries:
        if existing.name == name:
            wait_for_library(session, existing.id, [])
            return existing.id
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id
    if chunking != "structure":
        client.call(
            SETTINGS_UPDATE,
            lib.SettingsUpdateRequest(
                library_id=library_id, chunking=KnowledgeChunkingSettings(mode=chunking)
            ),
        )
    tasks = []
    for folder, _prefix in corpus_sources(dataset.corpus):
        added = client.call(
            SOURCE_ADD,
            src.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(folder), watch=False
            ),
        )
        tasks += [added.task_id] if added.task_id else []
    wait_for_library(session, library_id, tasks)
    return library_id


def source_prefixes(session: Session, dataset: Dataset, library_id: str) -> dict[str, str]:
    corpus = dataset.corpus.resolve()
    out = {}
    for source in session.client.call(
        SOURCE_LIST, src.SourceListRequest(library_id=library_id)
    ).sources:
        location = Path(source.location).resolve()
        try:
            inner = location.relative_to(corpus).as_posix()
        except ValueError:  # imported from another copy of the dataset: same layout
            inner = location.name if location.name != "corpus" else "."
        out[source.id] = "" if inner == "." else inner + "/"
    return out


def drop_others(session: Session, library_id: str) -> None:
    """Deletes any other library in the data directory: a work directory from before each
    chunking had its own kept the second chunking's library beside the first."""
    for existing in session.client.call(LIBRARY_LIST, lib.LibraryListRequest()).libraries:
        if existing.id != library_id:
            session.client.call(LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=existing.id))
