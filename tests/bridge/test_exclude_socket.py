"""`knowledge:retrieve` with documents left out (``exclude_document_ids``) over the real socket:
the search runs as if the library did not hold them — none of their passages is shown or listed
below the floor, and the rest is ranked and judged without them — and a document of a library
the request does not name is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.methods import DOCUMENTS_LIST, RETRIEVE
from tests.bridge.helpers import library_with

pytestmark = pytest.mark.integration

QUESTION = "一线城市出差住宿标准每晚是多少元？"


def documents(live: BlockingClient, library_id: str) -> dict[str, str]:
    listed = live.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id)).documents
    return {d.path: d.id for d in listed}


def test_an_excluded_document_takes_no_place_and_sets_no_scale(
    live: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "rules"
    folder.mkdir()
    # a document holding the question word for word, as a paraphrase set's question is
    (folder / "asked.md").write_text(f"# 提问\n\n{QUESTION}\n", encoding="utf-8")
    (folder / "meals.md").write_text("# 餐补\n\n出差期间每天餐补 100 元。\n", encoding="utf-8")
    library_id = library_with(live, folder)
    ids = documents(live, library_id)

    def search(exclude: list[str]) -> r.KnowledgeRetrievalResponse:
        request = r.RetrieveRequest(
            library_ids=[library_id], query=QUESTION, exclude_document_ids=exclude
        )
        return live.call(RETRIEVE, request)

    whole = search([])
    assert whole.results[0].document_path == "asked.md"
    beside = next(x for x in [*whole.results, *whole.below_floor] if x.document_path == "travel.md")

    left_out = search([ids["asked.md"]])
    listed = [*left_out.results, *left_out.below_floor]
    assert listed and all(x.document_path != "asked.md" for x in listed)
    # beside a passage holding every word of the question the answer fell under the floor;
    # judged against the library without that copy it is shown, first
    assert beside in whole.below_floor
    assert left_out.results[0].document_path == "travel.md"
    assert left_out.results[0].relevance > beside.relevance


def test_a_document_of_another_library_is_refused(live: BlockingClient, tmp_path: Path) -> None:
    mine = library_with(live, tmp_path / "a", name="A")
    theirs = library_with(live, tmp_path / "b", name="B")
    foreign = documents(live, theirs)["travel.md"]
    with pytest.raises(NotFoundError):
        live.call(
            RETRIEVE,
            r.RetrieveRequest(library_ids=[mine], query=QUESTION, exclude_document_ids=[foreign]),
        )
    # named with its own library, the same id is accepted
    both = live.call(
        RETRIEVE,
        r.RetrieveRequest(
            library_ids=[mine, theirs], query=QUESTION, exclude_document_ids=[foreign]
        ),
    )
    assert both.results and all(x.library_id == mine for x in both.results)
