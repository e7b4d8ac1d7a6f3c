"""A library that still holds an earlier starter ontology, exactly as offered, moves to the
current one when the data directory opens (so a better starter reaches libraries made before it);
an edited ontology stays as it was."""

from __future__ import annotations

import json
from pathlib import Path

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.contracts.methods import GRAPH_GET, GRAPH_UPDATE, LIBRARY_CREATE
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph.ontology import starter
from goodbuddy_kb.main_process.graph.starters import STARTERS, fingerprint
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call

FIRST = (Path(__file__).parent / "first_starter_ontology.json").read_text(encoding="utf-8")


def test_the_current_starter_is_registered() -> None:
    # a change of the starter must add its fingerprint, or libraries made with it never move on
    assert fingerprint(starter().model_dump_json(by_alias=True)) in STARTERS
    assert fingerprint(FIRST) in STARTERS


def _libraries(data: Path) -> dict[str, str]:
    pool = open_database(data)
    services = Services.start(pool, data, lambda _m, _p: None)
    try:
        d = Dispatcher(services)
        ids = {}
        for name, strategy in (("on", "local"), ("off", "off"), ("edited", "local")):
            library_id = call(d, LIBRARY_CREATE.name, {"name": name})["library"]["id"]
            settings = call(d, GRAPH_GET.name, {"libraryId": library_id})["settings"]
            call(
                d,
                GRAPH_UPDATE.name,
                {"libraryId": library_id, "settings": {**settings, "strategy": strategy}},
            )
            ids[name] = library_id
        return ids
    finally:
        services.stop()
        pool.close_all()


def test_a_library_on_an_earlier_starter_moves_to_the_current_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    ids = _libraries(data)
    edited = json.loads(FIRST)
    edited["entityTypes"][0]["nameEn"] = "Staff"
    pool = open_database(data)
    conn = pool.get()
    # as a library made in an earlier release holds it (its graph extracted: nothing to redo)
    for name, ontology in (("on", FIRST), ("off", FIRST), ("edited", json.dumps(edited))):
        conn.execute(
            "UPDATE graph_settings SET ontology = ?, needs_rebuild = 0 WHERE library_id = ?",
            (ontology, ids[name]),
        )
    conn.commit()
    pool.close_all()

    pool = open_database(data)  # the next start
    state = {
        row[0]: (Ontology.model_validate_json(row[1]), row[2])
        for row in pool.get().execute(
            "SELECT library_id, ontology, needs_rebuild FROM graph_settings"
        )
    }
    pool.close_all()
    assert state[ids["on"]] == (starter(), 1)  # its graph was extracted with the old patterns
    assert state[ids["off"]] == (starter(), 0)
    assert state[ids["edited"]][0].entity_types[0].name_en == "Staff"
    assert state[ids["edited"]][1] == 0
