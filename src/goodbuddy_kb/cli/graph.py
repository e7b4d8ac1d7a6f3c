"""`goodbuddy-kb graph LIB entities|relations|show NAME|extract|ontology export|import FILE`:
the knowledge graph of a library from the command line (JSON with --json)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import emit, plural
from goodbuddy_kb.cli.tasks import finish, wait_for_tasks
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_RELATIONS,
    GRAPH_UPDATE,
)


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser("graph", help="the knowledge graph of a library")
    actions = p.add_subparsers(dest="graph_action", required=True)
    for name, text in (
        ("entities", "list entities"),
        ("relations", "list relations"),
        ("status", "strategy, ontology size and counts"),
    ):
        q = actions.add_parser(name, parents=[common], help=text)
        q.add_argument("library", metavar="LIB")
        if name == "entities":
            q.add_argument("--search", help="only entities whose name or alias contains this")
            q.add_argument("--type", dest="type_key", help="only this entity type")
    q = actions.add_parser("show", parents=[common], help="one entity: relations and evidence")
    q.add_argument("library", metavar="LIB")
    q.add_argument("name")
    q = actions.add_parser("extract", parents=[common], help="extract the graph now")
    q.add_argument("library", metavar="LIB")
    q.add_argument("--strategy", choices=["local", "model"], help="switch the strategy first")
    q = actions.add_parser("ontology", parents=[common], help="export or import the ontology")
    q.add_argument("library", metavar="LIB")
    q.add_argument("direction", choices=["export", "import"])
    q.add_argument("file", nargs="?", help="the JSON file to import")


Action = Callable[[argparse.Namespace, Session, str], int]


def cmd_graph(args: argparse.Namespace, session: Session, library_id: str) -> int:
    return ACTIONS[args.graph_action](args, session, library_id)


def _status(args: argparse.Namespace, session: Session, library_id: str) -> int:
    info = session.client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    emit(
        args,
        info.to_wire(),
        f"strategy {info.settings.strategy} · {len(info.ontology.entity_types)} entity types,"
        f" {len(info.ontology.relation_types)} relation types · {info.entities} entities,"
        f" {info.relations} relations, {info.evidence} evidence spans"
        + (" · needs re-extraction" if info.needs_rebuild else "")
        + _runs_line(info),
    )
    return 0


def _entities(args: argparse.Namespace, session: Session, library_id: str) -> int:
    if args.type_key:
        info = session.client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
        keys = [t.key for t in info.ontology.entity_types]
        if args.type_key not in keys:  # "no entities" and exit 0 read as an empty graph
            raise InvalidRequestError(
                f"no entity type “{args.type_key}” in this library's ontology: {', '.join(keys)}"
            )
    found = session.client.call(
        GRAPH_ENTITIES,
        g.EntitiesListRequest(
            library_id=library_id, search=args.search, type_key=args.type_key, limit=500
        ),
    )
    lines = [
        f"{e.type_key:<13} {e.name}"
        + (f" ({', '.join(e.aliases)})" if e.aliases else "")
        + f" · {plural(e.mentions, 'mention')}"
        for e in found.entities
    ]
    emit(args, found.to_wire(), "\n".join(lines) or "no entities")
    return 0


def _relations(args: argparse.Namespace, session: Session, library_id: str) -> int:
    rels = session.client.call(
        GRAPH_RELATIONS, g.RelationsListRequest(library_id=library_id, limit=500)
    )
    lines = [
        f"{r.head_name} —{r.type_key}→ {r.tail_name} ({r.confidence:.2f}, {r.extractor})"
        for r in rels.relations
    ]
    emit(args, rels.to_wire(), "\n".join(lines) or "no relations")
    return 0


def _show(args: argparse.Namespace, session: Session, library_id: str) -> int:
    call = session.client.call
    found = call(
        GRAPH_ENTITIES,
        g.EntitiesListRequest(library_id=library_id, search=args.name, limit=500),
    )
    exact = [
        e
        for e in found.entities
        if args.name.casefold() in (e.name.casefold(), *(a.casefold() for a in e.aliases))
    ] or found.entities[:1]
    if not exact:
        raise NotFoundError(f"no entity named “{args.name}” in this library")
    detail = call(GRAPH_ENTITY, g.EntityGetRequest(library_id=library_id, entity_id=exact[0].id))
    lines = [f"{detail.entity.name} [{detail.entity.type_key}]"]
    said = {x.relation_id: x.spans for x in detail.relation_evidence}
    for r in detail.relations:
        lines.append(f"  {r.head_name} —{r.type_key}→ {r.tail_name}")
        # where the text states it, so a wrong relation can be traced to its sentence
        lines += [f"      “{v.context}” ({v.document_path})" for v in said.get(r.id, [])[:2]]
    lines += [f"  “{v.text}” in chunk {v.chunk_id[:8]}" for v in detail.evidence[:20]]
    emit(args, detail.to_wire(), "\n".join(lines))
    return 0


def _extract(args: argparse.Namespace, session: Session, library_id: str) -> int:
    call = session.client.call
    info = call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    before = info.settings
    if args.strategy and args.strategy != info.settings.strategy:
        settings = info.settings.model_copy(update={"strategy": args.strategy})
        info = call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings))
    if info.settings.strategy == "model":
        if info.estimated_model_calls is None:
            kept = ""
            if before.strategy != "model":  # a switch that cannot run is not made
                call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=before))
                kept = f"; the strategy stays {before.strategy}"
            print(
                "error: no chat model is configured; model extraction needs one"
                f" (`goodbuddy-kb model chat --provider … --url … --model …`){kept}",
                file=sys.stderr,
            )
            return 1
        # what the run will cost, before it starts (stderr keeps --json output clean)
        print(_estimate_line(info), file=sys.stderr if getattr(args, "json", False) else None)
    task_id = call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id)).task_id
    infos = wait_for_tasks(session, [task_id], getattr(args, "json", False))
    return finish(args, infos)


def _ontology(args: argparse.Namespace, session: Session, library_id: str) -> int:
    call = session.client.call
    if args.direction == "export":
        info = call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
        text = json.dumps(info.ontology.to_wire(), ensure_ascii=False, indent=2)
        if args.file:
            try:
                Path(args.file).write_text(text + "\n", encoding="utf-8")
            except OSError as exc:  # the general handler says "cannot read"
                reason = exc.strerror or str(exc)
                raise InvalidRequestError(f"cannot write {args.file}: {reason}") from None
        else:
            print(text)
        return 0
    if not args.file:
        raise InvalidRequestError("ontology import needs a JSON file")
    try:
        ontology = g.Ontology.model_validate_json(Path(args.file).read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise InvalidRequestError(
            f"the ontology file is not valid: {exc.errors()[0]['msg']}"
        ) from None
    info = call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, ontology=ontology))
    emit(args, info.to_wire(), "ontology imported; run `graph LIB extract` to apply it")
    return 0


ACTIONS: dict[str, Action] = {
    "status": _status,
    "entities": _entities,
    "relations": _relations,
    "show": _show,
    "extract": _extract,
    "ontology": _ontology,
}


def _estimate_line(info: g.GraphInfo) -> str:
    s = info.settings
    return (
        f"estimated model calls: {info.estimated_model_calls} (at most {s.model_max_chunks}"
        f" chunks per run, {s.model_concurrency} at a time, {s.model_timeout_s:g} s timeout,"
        f" {s.model_retries} retries)"
    )


#: What a model run's JSON mode says when the server refused a stricter one.
JSON_MODE_NOTES = {
    "json_object": "; the server refused a JSON schema: plain JSON mode was used",
    "plain": "; the server refused JSON mode: only the instructions asked for JSON",
}


def _runs_line(info: g.GraphInfo) -> str:
    text = ""
    if info.settings.strategy == "model" and info.estimated_model_calls is not None:
        text += f" · next model run: {plural(info.estimated_model_calls, 'call')}"
    run = info.last_run
    if run is not None:
        rejected = (
            run.rejected_unknown_type
            + run.rejected_endpoints
            + run.rejected_mention
            + run.rejected_malformed
            + run.rejected_over_limit
        )
        text += (
            f"\nlast run ({run.strategy}): {plural(run.chunks, 'chunk')},"
            f" {plural(run.entities, 'mention')}, {plural(run.relations, 'relation')}"
        )
        if run.strategy == "model":
            text += (
                f", {plural(run.model_calls, 'model call')},"
                f" {plural(rejected, 'answer part')} rejected"
                f" (unknown type {run.rejected_unknown_type}, endpoints {run.rejected_endpoints},"
                f" not in the chunk {run.rejected_mention}, malformed {run.rejected_malformed},"
                f" over the limit {run.rejected_over_limit}),"
                f" {plural(run.failed_chunks, 'chunk')} failed"
            )
            text += JSON_MODE_NOTES.get(run.json_mode or "", "")
    return text
