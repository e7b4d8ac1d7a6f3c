"""Relation labels in the neighbourhood picture: placed where they cover no node, no name and
no other label (beside the line when its middle is taken), never hidden under a name's patch."""

from __future__ import annotations

import uuid

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.ui.graph.picture import NeighbourhoodView

pytestmark = pytest.mark.gui


def _id(i: int) -> str:
    return uuid.UUID(int=i + 1).hex


def _edge(n: int, type_key: str, head: int, tail: int) -> g.GraphEdge:
    return g.GraphEdge(
        id=_id(1000 + n),
        type_key=type_key,
        head_id=_id(head),
        tail_id=_id(tail),
        confidence=0.9,
        extractor="local",
        locked=False,
    )


def star(first: int, second: int) -> g.NeighbourhoodResponse:
    """A unit with ``first`` teams around it, each with ``second`` people: short names over
    long type captions, as a department's picture has."""
    nodes = [g.GraphNode(id=_id(0), name="财务管理部", type_key="organization", hops=0)]
    edges = []
    k = 1
    for i in range(first):
        team = k
        nodes.append(g.GraphNode(id=_id(team), name=f"核算{i}组", type_key="organization", hops=1))
        edges.append(_edge(team, "part_of", team, 0))
        k += 1
        for _ in range(second):
            nodes.append(g.GraphNode(id=_id(k), name=f"韦{k}", type_key="person", hops=2))
            edges.append(_edge(k, "led_by", team, k))
            k += 1
    return g.NeighbourhoodResponse(nodes=nodes, edges=edges, truncated=False)


def test_relation_labels_keep_clear_of_names(qtbot: QtBot) -> None:
    view = NeighbourhoodView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    captions = {"organization": "Organisation / department", "person": "Person"}
    for first, second in [(3, 1), (4, 2), (5, 1), (6, 2), (8, 1), (10, 1)]:
        view.show_neighbourhood(star(first, second), lambda _t: 0, captions.get, str)
        qtbot.wait(20)
        patches = [item.names_patch.sceneBoundingRect() for item in view.nodes.values()]
        labels = [label for label in view.edge_labels if label.isVisible()]
        for label in labels:
            rect = label.sceneBoundingRect()
            assert not any(rect.intersects(p) for p in patches), (first, second, label.text())


#: A finance department's neighbourhood as company-graph-dev's notes give it: two relations
#: between the same two units, a short name over a long type caption.
NAMES = [
    ("财务管理部", "organization", 0),
    ("费用核算组", "organization", 1),
    ("邵雨桐", "person", 1),
    ("A栋5楼", "location", 1),
    ("费用报销制度", "policy", 1),
    ("韦佳宁", "person", 2),
    ("费控系统", "system", 2),
    ("报销申请", "process", 2),
    ("财务总监", "role", 2),
]
CAPTIONS = {
    "organization": "Organisation / department",
    "person": "Person",
    "location": "Location",
    "policy": "Document / policy",
    "system": "System",
    "process": "Process",
    "role": "Role",
}
LINKS = [
    (1, "belongs_to", 0),
    (1, "part_of", 0),
    (0, "led_by", 2),
    (0, "located_in", 3),
    (0, "owns", 4),
    (1, "led_by", 5),
    (1, "owns", 6),
    (1, "approves", 7),
    (7, "uses", 6),
    (8, "approves", 7),
    (8, "led_by", 2),
]


def test_a_label_whose_middle_is_taken_goes_beside_the_line(qtbot: QtBot) -> None:
    # before: at the size of the window's picture beside a 1440-pixel list, "owns" was left
    # to the edge's tooltip (a helper: labels went missing under other nodes' captions)
    nodes = [
        g.GraphNode(id=_id(k), name=n, type_key=t, hops=h) for k, (n, t, h) in enumerate(NAMES)
    ]
    edges = [_edge(k, t, a, b) for k, (a, t, b) in enumerate(LINKS)]
    view = NeighbourhoodView()
    qtbot.addWidget(view)
    view.resize(565, 465)
    view.show()
    view.show_neighbourhood(
        g.NeighbourhoodResponse(nodes=nodes, edges=edges, truncated=False),
        lambda _t: 0,
        CAPTIONS.__getitem__,
        lambda t: t.replace("_", " "),
    )
    qtbot.wait(20)
    assert [label.text() for label in view.edge_labels if not label.isVisible()] == []
