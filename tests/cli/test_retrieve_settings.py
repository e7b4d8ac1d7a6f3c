"""`goodbuddy-kb retrieve` as a user runs it (issue 32): the output names every setting the
search ran with, the vector scan (rows, time) and what the similarity floor filtered; a floor
of 0 filters nothing (not even a negative cosine); `--fusion` picks this query's fusion."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bridge.test_retrieve_socket import seed
from tests.cli.runner import cli_json, run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def test_retrieve_shows_every_setting_and_a_zero_floor_filters_nothing(data_dir: Path) -> None:
    seed(data_dir, 8)  # random unit vectors: about half point away from any question
    answer = cli_json(data_dir, "retrieve", "Big", "报销", "--top-k", "8")
    vector_hits = answer["diagnostics"]["candidateCounts"]["vector"]
    assert vector_hits == 8 and answer["diagnostics"]["filteredBySimilarity"] == 0
    similarities = [x["vectorSimilarity"] for x in answer["results"]]
    assert any(s is not None and s < 0 for s in similarities), "a negative cosine is kept"

    done = run(data_dir, "retrieve", "Big", "报销", "--fusion", "rrf")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for shown in (
        "top K 6",
        "weights full text 1, vector 1, graph 0.8",
        "candidate multiplier 4",
        "minimum vector similarity 0;",
        "minimum relevance 0.2",
        "rerank off",
        "fusion rrf",
        "8 vectors scanned in ",
        "0 filtered by the minimum vector similarity",
    ):
        assert shown in out, (shown, out)

    default = run(data_dir, "retrieve", "Big", "报销")
    assert "fusion adaptive" in default.stdout, default.stdout
    # a question naming no entity of the graph is no fault: "not used", as the window says
    # (it read "degraded graph: …" on most questions)
    assert "graph not used: no entity of the graph" in default.stdout, default.stdout
    assert "degraded graph" not in default.stdout
    # the channel confidence lists the channels that ran, each once (it listed the unused
    # graph and left out full text, beside "channels used: fts, cjk, vector")
    used = default.stdout.split("channels used: ", 1)[1].splitlines()[0].split(", ")
    said = default.stdout.split("channel confidence: ", 1)[1].split(";")[0].split(", ")
    assert [x.split()[0] for x in said] == used, default.stdout


def test_libraries_are_named_first_or_with_library_as_chat_ask_names_them(
    data_dir: Path,
) -> None:
    """`retrieve --library LIB "…"` was refused ("unrecognized arguments"), while `chat ask`
    takes `--library` (a helper's try): both forms work, and naming none says what to do."""
    seed(data_dir, 4)
    named = cli_json(data_dir, "retrieve", "--library", "Big", "报销")
    first = cli_json(data_dir, "retrieve", "Big", "报销")
    assert [x["chunkId"] for x in named["results"]] == [x["chunkId"] for x in first["results"]]
    assert named["results"], named
    none = run(data_dir, "retrieve", "报销")
    assert none.returncode == 1 and "name a library to search" in none.stderr, none.stderr


def test_an_option_between_the_library_and_the_question_is_taken(data_dir: Path) -> None:
    """`retrieve LIB --top-k 8 "QUESTION"` was refused ("unrecognized arguments: QUESTION"):
    the library and the question were read from the words before the option alone."""
    seed(data_dir, 8)
    between = cli_json(data_dir, "retrieve", "Big", "--top-k", "8", "报销")
    after = cli_json(data_dir, "retrieve", "Big", "报销", "--top-k", "8")
    assert len(between["results"]) == 8
    assert [x["chunkId"] for x in between["results"]] == [x["chunkId"] for x in after["results"]]
    # a stray word elsewhere is still refused, and says which
    stray = run(data_dir, "library", "list", "extra")
    assert stray.returncode != 0 and "unrecognized arguments: extra" in stray.stderr


def test_results_under_the_floor_are_listed_apart_as_not_evidence(data_dir: Path) -> None:
    """`retrieve` said "8 withheld" and showed none of them, while the window's workbench lists
    them greyed: a person could not see what the floor held back, nor tell a floor set too
    high from a question nothing answers."""
    seed(data_dir, 8)
    raised = run(data_dir, "library", "settings", "Big", "--set", "retrieval.minimumRelevance=1")
    assert raised.returncode == 0, raised.stderr
    held = cli_json(data_dir, "retrieve", "Big", "报销", "--top-k", "8")
    assert held["results"] == [] and len(held["belowFloor"]) == 8
    done = run(data_dir, "retrieve", "Big", "报销", "--top-k", "8")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "8 withheld" in out and "No results (nothing_relevant)" in out, out
    listed = out.split("below the minimum relevance of 1 (listed, not evidence", 1)[1]
    listed = listed.split("No results", 1)[0]
    for x in held["belowFloor"]:
        assert f"{x['rank']:>2}. " in listed and x["documentPath"] in listed, (x, out)
    # nothing it lists is in the context
    assert "context: 0/" in out, out
