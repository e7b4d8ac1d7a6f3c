"""An entity's neighbourhood for the graph picture: breadth-first along relations, at most two
hops and a bounded number of nodes, the strongest relations first; every relation among the
chosen nodes is an edge."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.contracts.graph import GraphEdge, GraphNode, NeighbourhoodResponse
from goodbuddy_kb.main_process.graph.checks import entity_row


def neighbourhood(
    conn: sqlite3.Connection, library_id: str, entity_id: str, hops: int, limit: int
) -> NeighbourhoodResponse:
    root = entity_row(conn, library_id, entity_id)
    depth: dict[str, int] = {entity_id: 0}
    frontier = [entity_id]
    truncated = False
    for hop in range(1, hops + 1):
        if not frontier or truncated:
            break
        marks = ",".join("?" for _ in frontier)
        rows = conn.execute(
            "SELECT head_id, tail_id FROM graph_relations WHERE library_id = ?"
            f" AND (head_id IN ({marks}) OR tail_id IN ({marks}))"
            " ORDER BY locked DESC, confidence DESC, id",
            (library_id, *frontier, *frontier),
        ).fetchall()
        found: list[str] = []
        for head_id, tail_id in rows:
            for other in (head_id, tail_id):
                if other not in depth:
                    if len(depth) >= limit:
                        truncated = True
                        break
                    depth[other] = hop
                    found.append(other)
        frontier = found
    ids = list(depth)
    marks = ",".join("?" for _ in ids)
    names = {
        r[0]: (r[1], r[2])
        for r in conn.execute(
            f"SELECT id, name, type_key FROM graph_entities WHERE id IN ({marks})", ids
        )
    }
    nodes = [
        GraphNode(id=i, name=names[i][0], type_key=names[i][1], hops=depth[i])
        for i in ids
        if i in names
    ]
    edges = [
        GraphEdge(
            id=r[0],
            type_key=r[1],
            head_id=r[2],
            tail_id=r[3],
            confidence=r[4],
            extractor=r[5],
            locked=bool(r[6]),
        )
        for r in conn.execute(
            "SELECT id, type_key, head_id, tail_id, confidence, extractor, locked"
            f" FROM graph_relations WHERE head_id IN ({marks}) AND tail_id IN ({marks})"
            " ORDER BY confidence DESC, id",
            (*ids, *ids),
        )
    ]
    assert root["id"] == entity_id
    return NeighbourhoodResponse(nodes=nodes, edges=edges, truncated=truncated)
