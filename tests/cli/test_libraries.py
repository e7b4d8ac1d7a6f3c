"""`goodbuddy-kb library …` as a user runs it: a real process, a real backend, real output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.library import LibraryListRequest
from goodbuddy_kb.contracts.methods import LIBRARY_LIST
from tests.cli.runner import run

pytestmark = pytest.mark.integration


def test_library_commands_round_trip(data_dir: Path) -> None:
    created = run(data_dir, "library", "create", "项目笔记", "--json")
    assert created.returncode == 0, created.stderr
    lib = json.loads(created.stdout)
    assert lib["name"] == "项目笔记" and len(lib["id"]) == 32

    listed = run(data_dir, "library", "list", "--json", env_dir=True)
    assert [x["id"] for x in json.loads(listed.stdout)] == [lib["id"]]

    renamed = run(data_dir, "library", "rename", "项目笔记", "Project notes")
    assert renamed.returncode == 0 and "Project notes" in renamed.stdout

    refused = run(data_dir, "library", "delete", lib["id"])
    assert refused.returncode != 0 and "--yes" in refused.stderr
    deleted = run(data_dir, "library", "delete", "project notes", "--yes")
    assert deleted.returncode == 0 and "original files" in deleted.stdout
    assert run(data_dir, "library", "list").stdout.strip() == "no libraries yet"


def test_errors_are_clear_and_exit_non_zero(data_dir: Path) -> None:
    run(data_dir, "library", "create", "Twin")
    dup = run(data_dir, "library", "create", "twin", "--json")
    assert dup.returncode == 1
    assert json.loads(dup.stdout)["error"]["code"] == "conflict"
    assert "already exists" in dup.stderr
    missing = run(data_dir, "library", "rename", "nope", "x")
    assert missing.returncode == 1 and "not_found" in missing.stderr
    too_long = run(data_dir, "library", "create", "x" * 101)
    assert too_long.returncode == 1 and "NAME: must be at most 100" in too_long.stderr


def test_cli_attaches_to_a_running_backend(data_dir: Path, backend: BackendProcess) -> None:
    created = run(data_dir, "library", "create", "Attached", "--json")
    assert created.returncode == 0, created.stderr
    assert backend.alive(), "the CLI neither replaced nor stopped the serving backend"
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as client:
        names = [x.name for x in client.call(LIBRARY_LIST, LibraryListRequest()).libraries]
    assert names == ["Attached"]


def test_bad_input_says_which_argument_in_one_line(data_dir: Path, tmp_path: Path) -> None:
    """Input the command refuses before sending it was a pydantic traceback (a helper's try):
    now one line naming the argument as the command line spells it, exit status 1."""
    for argv, said in (
        (("library", "create", ""), "NAME: must not be empty"),
        (("library", "create", "x" * 101), "NAME: must be at most 100 characters"),
    ):
        done = run(data_dir, *argv)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert said in done.stderr, done.stderr
    run(data_dir, "library", "create", "Notes")
    none = run(data_dir, "documents", "Notes", "--filter", "failed")
    assert none.stdout.splitlines()[-1] == "no failed documents", none.stdout
    no_type = run(data_dir, "graph", "entities", "Notes", "--type", "nosuchtype")
    assert no_type.returncode == 1 and "no entity type “nosuchtype”" in no_type.stderr
    limit = run(data_dir, "documents", "Notes", "--limit", "0")
    assert limit.returncode == 1 and "Traceback" not in limit.stderr, limit.stderr
    assert "--limit: must be at least 1" in limit.stderr
    missing = run(data_dir, "graph", "ontology", "Notes", "import", str(tmp_path / "none.json"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr, missing.stderr
    assert f"cannot read {tmp_path / 'none.json'}" in missing.stderr
    # a file that cannot be written says so (it said "cannot read")
    unwritable = tmp_path / "no-such-folder" / "ontology.json"
    export = run(data_dir, "graph", "ontology", "Notes", "export", str(unwritable))
    assert export.returncode == 1 and f"cannot write {unwritable}: " in export.stderr
    # a source that cannot be read is refused before it is added, saying why (an unreadable
    # file was added "ok" and then failed; "ftp://…" and a missing folder both said "no such
    # file", without the path)
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01")
    old = tmp_path / "contract.doc"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    for location, said in (
        (str(blob), "this kind of file cannot be read (.bin); readable are .bmp"),
        (str(old), "the old Word format (.doc) is not supported: save the file as .docx"),
        ("ftp://files.example/x", "only http(s) addresses can be imported"),
        (str(tmp_path / "gone"), f"no such file: {tmp_path / 'gone'}"),
    ):
        refused = run(data_dir, "source", "add", "Notes", location)
        assert refused.returncode == 1 and said in refused.stderr, refused.stderr
    assert json.loads(run(data_dir, "source", "list", "Notes", "--json").stdout) == []


def test_an_id_wins_over_a_name_and_sources_resolve_by_prefix_or_path(
    data_dir: Path, tmp_path: Path
) -> None:
    """A library named like another's id hid it (``documents <id>`` showed the new, empty one;
    ``library delete <id>`` could delete the wrong one); ``source remove`` took only a whole id
    and answered a prefix or the folder with a pattern error."""
    first = json.loads(run(data_dir, "library", "create", "First", "--json").stdout)
    twin = run(data_dir, "library", "create", first["id"], "--json")
    assert twin.returncode == 0, twin.stderr
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nalpha text\n", encoding="utf-8")
    added = run(data_dir, "source", "add", first["id"], str(folder))
    assert added.returncode == 0, added.stderr
    listed = json.loads(run(data_dir, "source", "list", "First", "--json").stdout)
    assert len(listed) == 1, "the source went to the library whose id was given"
    source_id = listed[0]["id"]
    synced = run(data_dir, "sync", "First", "--source", source_id[:8])
    assert synced.returncode == 0, synced.stderr
    short = run(data_dir, "source", "remove", "First", source_id[:4])
    assert short.returncode == 1 and "no source with id or location" in short.stderr
    removed = run(data_dir, "source", "remove", "First", str(folder))
    assert removed.returncode == 0, removed.stderr
    assert json.loads(run(data_dir, "source", "list", "First", "--json").stdout) == []


def test_a_sync_says_what_it_took_out(data_dir: Path, tmp_path: Path) -> None:
    """A file deleted on disk left the library at the next sync, which said only
    "completed 1/1 documents (0 written, 1 unchanged)" (a helper's try)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text(f"# {name}\n\ntext of {name}\n", encoding="utf-8")
    run(data_dir, "library", "create", "Notes")
    assert run(data_dir, "source", "add", "Notes", str(folder)).returncode == 0
    (folder / "b.md").unlink()
    synced = run(data_dir, "sync", "Notes")
    assert synced.returncode == 0, synced.stderr
    assert "1 removed (the file or page is gone)" in synced.stdout, synced.stdout


def test_library_settings_are_shown_and_changed_from_the_command_line(data_dir: Path) -> None:
    """The command line could not show or change a library's settings, though its own messages
    said to ("lower the minimum relevance in the retrieval settings"; a helper's try)."""
    run(data_dir, "library", "create", "Notes")
    shown = run(data_dir, "library", "settings", "Notes")
    assert (
        "retrieval.topK = 6" in shown.stdout and "chunking.targetCharacters = 1600" in shown.stdout
    )
    changed = run(
        data_dir, "library", "settings", "Notes",
        "--set", "retrieval.minimumRelevance=0.3", "--set", "chunking.targetCharacters=1200",
    )  # fmt: skip
    assert changed.returncode == 0, changed.stderr
    assert "retrieval.minimumRelevance = 0.3" in changed.stdout
    assert "`goodbuddy-kb rebuild LIB` applies them" in changed.stdout
    stored = json.loads(run(data_dir, "library", "settings", "Notes", "--json").stdout)
    assert stored["retrieval"]["minimumRelevance"] == 0.3 and stored["settingsPendingRebuild"]
    refused = run(data_dir, "library", "settings", "Notes", "--set", "retrieval.topK=50")
    assert refused.returncode == 1 and "retrieval.topK: must be at most 20" in refused.stderr
    unknown = run(data_dir, "library", "settings", "Notes", "--set", "topk=5")
    assert unknown.returncode == 1 and "unknown setting “topk”" in unknown.stderr
    back = run(data_dir, "library", "settings", "Notes", "--set", "chunking.targetCharacters=1600")
    assert "rebuild LIB" not in back.stdout, "the settings every chunk was made with are back"


def test_a_file_already_brought_in_by_another_source_is_refused(
    data_dir: Path, tmp_path: Path
) -> None:
    """A file inside an added folder, added again, was indexed twice with no warning: every
    search showed its passages twice (a session's note). Overlap depends on the patterns: a
    folder whose patterns leave the other's files out is no overlap."""
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "a.md").write_text("# A\n\nalpha text\n", encoding="utf-8")
    (notes / "sub" / "b.md").write_text("# B\n\nbeta text\n", encoding="utf-8")
    (notes / "sub" / "c.txt").write_text("gamma text\n", encoding="utf-8")
    run(data_dir, "library", "create", "Notes")
    assert run(data_dir, "source", "add", "Notes", str(notes)).returncode == 0
    inside = run(data_dir, "source", "add", "Notes", str(notes / "a.md"))
    assert inside.returncode == 1, inside.stdout
    assert f"already taken in by the folder source {notes}" in inside.stderr
    nested = run(data_dir, "source", "add", "Notes", str(notes / "sub"))
    assert nested.returncode == 1, nested.stdout
    said = f"2 files of this folder are already taken in by the source {notes} (first: b.md)"
    assert said in nested.stderr, nested.stderr
    assert len(json.loads(run(data_dir, "source", "list", "Notes", "--json").stdout)) == 1

    # the outer folder leaves the inner one out: no overlap, both are added
    run(data_dir, "library", "create", "Split")
    outer = ("source", "add", "Split", str(notes), "--exclude", "sub/*")
    assert run(data_dir, *outer).returncode == 0
    # a pattern that leaves nothing says so ("sync completed 0/0 documents" alone did not)
    run(data_dir, "library", "create", "Nothing")
    empty = run(data_dir, "source", "add", "Nothing", str(notes), "--include", "*.pdf")
    assert (
        empty.returncode == 0
        and "note: nothing in this folder is a file the app reads with these --include/--exclude patterns"
        in empty.stderr
    )
    inner = run(data_dir, "source", "add", "Split", str(notes / "sub"))
    assert inner.returncode == 0, inner.stderr
    # with several sources, each sync's line says which source it was (they read alike)
    synced = run(data_dir, "sync", "Split").stdout.splitlines()
    syncs = [line for line in synced if line.startswith("sync")]
    places = sorted(line.rsplit("  [", 1)[1] for line in syncs)
    assert places == sorted([f"{notes}]", f"{notes / 'sub'}]"]), synced

    # a folder holding a file source already added
    run(data_dir, "library", "create", "Single")
    assert run(data_dir, "source", "add", "Single", str(notes / "a.md")).returncode == 0
    around = run(data_dir, "source", "add", "Single", str(notes))
    assert around.returncode == 1 and f"by the source {notes / 'a.md'}" in around.stderr, (
        around.stderr
    )


def test_the_apps_own_data_folder_is_never_imported(tmp_path: Path) -> None:
    """A folder source holding the data directory imported the app's readme as a document (a
    helper's try); the data directory itself is refused as a source."""
    home = tmp_path / "home"
    data_dir = home / "kb-data"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "a.md").write_text("# A\n\nalpha text\n", encoding="utf-8")
    run(data_dir, "library", "create", "Notes")
    # a chat export or a note a person keeps there, of a kind a folder source reads
    (data_dir / "readme.txt").write_text("what this folder is\n", encoding="utf-8")
    added = run(data_dir, "source", "add", "Notes", str(home))
    assert added.returncode == 0, added.stderr
    listed = json.loads(run(data_dir, "--json", "documents", "Notes").stdout)
    assert [d["path"] for d in listed["documents"]] == ["notes/a.md"]
    inside = run(data_dir, "source", "add", "Notes", str(data_dir))
    assert inside.returncode == 1 and "the app's own data folder" in inside.stderr


def test_old_office_files_in_a_folder_are_listed_with_the_way_out(
    data_dir: Path, tmp_path: Path
) -> None:
    """A watched folder's .doc was passed over without a word (a helper's try: not in the list,
    not under "failed", nowhere), while its .xls said to save it as .xlsx."""
    folder = tmp_path / "office"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\nThe printer code is 4711.\n", encoding="utf-8")
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512
    for name in ("contract.doc", "deck.ppt", "budget.xls"):
        (folder / name).write_bytes(ole)
    run(data_dir, "library", "create", "Office")
    assert run(data_dir, "source", "add", "Office", str(folder)).returncode == 0
    failed = json.loads(run(data_dir, "--json", "documents", "Office", "--filter", "failed").stdout)
    said = {d["path"]: d["error"] for d in failed["documents"]}
    assert said == {
        "budget.xls": "the old Excel format (.xls) is not supported: save the file as .xlsx",
        "contract.doc": "the old Word format (.doc) is not supported: save the file as .docx",
        "deck.ppt": "the old PowerPoint format (.ppt) is not supported: save the file as .pptx",
    }, said
