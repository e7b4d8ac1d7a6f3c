"""The picture of an entity's neighbourhood: nodes coloured *and* labelled by type, edges
labelled with their relation type, a layout from networkx (spring layout, seeded, so the same
neighbourhood draws the same way), zoom with the wheel or +/−/0, pan by dragging or with the
arrow keys, and a click (or Enter on the focused node) that navigates to a node."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import networkx as nx

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.theme import Colours, current_colours, graph_colour

NODE_RADIUS = 16
#: Scene units per layout unit (networkx positions lie in about [-1, 1]).
SCALE = 60
#: Room around the outermost nodes for their names (left and right) and type labels (below).
MARGIN_X = 70
MARGIN_TOP = 28
MARGIN_BOTTOM = 48


def layout(nodes: list[g.GraphNode], edges: list[g.GraphEdge]) -> dict[str, tuple[float, float]]:
    """Positions in layout units, the centre entity at the origin: a seeded spring layout."""
    graph: nx.Graph = nx.Graph()
    graph.add_nodes_from(n.id for n in nodes)
    graph.add_edges_from((e.head_id, e.tail_id) for e in edges if e.head_id != e.tail_id)
    if len(nodes) == 1:
        return {nodes[0].id: (0.0, 0.0)}
    centre = nodes[0].id
    positions = nx.spring_layout(
        graph, seed=7, k=1.6 / math.sqrt(len(nodes)), iterations=80, center=(0, 0)
    )
    cx, cy = positions[centre]
    return {key: (float(x - cx), float(y - cy)) for key, (x, y) in positions.items()}


def spread_for(
    positions: dict[str, tuple[float, float]], width: int, height: int
) -> tuple[tuple[float, float], bool]:
    """Scene units per layout unit, across and down, so that the picture fills a ``width`` ×
    ``height`` view with its names at their own size; never tighter than names can stand apart
    (then the picture is a pan away, and False says it does not fit), never looser than the
    natural spread."""
    most = SCALE * max(2.5, math.sqrt(len(positions)) * 1.8)
    least = SCALE * 1.6
    xs = [x for x, _y in positions.values()]
    ys = [y for _x, y in positions.values()]
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    across = (width - 2 * MARGIN_X) / span_x if span_x > 0 else most
    down = (height - MARGIN_TOP - MARGIN_BOTTOM) / span_y if span_y > 0 else most
    fits = across >= least and down >= least
    return (max(least, min(across, most)), max(least, min(down, most))), fits


#: Room kept between two nodes' boxes (the circle, its name and its type), scene units.
GAP = 6.0


def apart(
    positions: dict[str, tuple[float, float]],
    boxes: dict[str, QtCore.QRectF],
    fixed: str,
    rounds: int = 200,
) -> dict[str, tuple[float, float]]:
    """The positions moved the least way that no two nodes' boxes (item coordinates, placed at
    the positions) overlap: each overlapping pair is pushed apart along the axis it overlaps
    less on, ``fixed`` (the centre entity) never moves. A spring layout places nodes by their
    links alone: at 800 px a name sat under another node and a label covered its neighbour's."""
    at = {k: [x, y] for k, (x, y) in positions.items()}
    keys = list(at)
    for _ in range(rounds):
        moved = False
        for i, a in enumerate(keys):
            for j, b in enumerate(keys[i + 1 :], start=i + 1):
                ra = boxes[a].translated(*at[a]).adjusted(-GAP / 2, -GAP / 2, GAP / 2, GAP / 2)
                rb = boxes[b].translated(*at[b]).adjusted(-GAP / 2, -GAP / 2, GAP / 2, GAP / 2)
                if not ra.intersects(rb):
                    continue
                moved = True
                dx = min(ra.right(), rb.right()) - max(ra.left(), rb.left())
                dy = min(ra.bottom(), rb.bottom()) - max(ra.top(), rb.top())
                axis = 0 if dx < dy else 1
                need = (dx if axis == 0 else dy) + 0.5
                side = at[b][axis] - at[a][axis] or (1.0 if j % 2 else -1.0)
                sign = 1.0 if side > 0 else -1.0
                share_a = 0.0 if a == fixed else (1.0 if b == fixed else 0.5)
                at[a][axis] -= sign * need * share_a
                at[b][axis] += sign * need * (1.0 - share_a)
        if not moved:
            break
    return {k: (x, y) for k, (x, y) in at.items()}


class NodeItem(QtWidgets.QGraphicsEllipseItem):
    def __init__(self, node: g.GraphNode, colour: str, type_name: str) -> None:
        r = NODE_RADIUS * (1.35 if node.hops == 0 else 1.0)
        super().__init__(-r, -r, 2 * r, 2 * r)
        self.node = node
        self.setBrush(QtGui.QBrush(QtGui.QColor(colour)))
        colours = current_colours()
        pen = QtGui.QPen(QtGui.QColor(colours.text if node.hops == 0 else colours.border))
        pen.setWidthF(3.0 if node.hops == 0 else 1.0)
        self.setPen(pen)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsFocusable)
        self.setZValue(2)
        self.setToolTip(f"{node.name} · {type_name}")
        # the names on a patch of the background: an edge passing under them does not cross
        # the text
        patch = QtWidgets.QGraphicsRectItem(self)
        ground = QtGui.QColor(colours.base)
        ground.setAlpha(200)
        patch.setBrush(QtGui.QBrush(ground))
        patch.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        name = QtWidgets.QGraphicsSimpleTextItem(node.name, self)
        font = name.font()
        font.setBold(node.hops == 0)
        name.setFont(font)
        name.setBrush(QtGui.QColor(colours.text))
        box = name.boundingRect()
        name.setPos(-box.width() / 2, r + 2)
        kind = QtWidgets.QGraphicsSimpleTextItem(f"[{type_name}]", self)
        small = kind.font()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.8))
        kind.setFont(small)
        kind.setBrush(QtGui.QColor(colours.muted))
        kbox = kind.boundingRect()
        kind.setPos(-kbox.width() / 2, r + 2 + box.height())
        wide = max(box.width(), kbox.width())
        patch.setRect(-wide / 2 - 2, r + 2, wide + 4, box.height() + kbox.height())
        self.name_item, self.type_item, self.names_patch = name, kind, patch


class NeighbourhoodView(QtWidgets.QGraphicsView):
    """Emits ``navigate(entity_id)`` when a node other than the centre is chosen."""

    navigate = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QtWidgets.QGraphicsScene(self))
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        # dragging and the arrow keys pan; scroll bars would only take room
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAccessibleName(tr("graph.picture"))
        self.nodes: dict[str, NodeItem] = {}
        self.edge_labels: list[QtWidgets.QGraphicsSimpleTextItem] = []
        self._press: QtCore.QPointF | None = None
        #: The person zoomed: a resize keeps their zoom instead of fitting the picture again.
        self._zoomed = False
        self._drawn: tuple[Any, ...] | None = None
        self._positions: dict[str, tuple[float, float]] = {}
        self._spread = (0.0, 0.0)
        #: Where nodes, names and edge labels already are (edge labels avoid them).
        self._taken: list[QtCore.QRectF] = []
        #: The theme's colours the picture was drawn in (a theme switch draws it again).
        self._colours = current_colours()

    def show_neighbourhood(
        self,
        result: g.NeighbourhoodResponse,
        type_index: Callable[[str], int],
        type_name: Callable[[str], str],
        relation_name: Callable[[str], str],
    ) -> None:
        self._drawn = (result, type_index, type_name, relation_name)
        self._positions = layout(result.nodes, result.edges) if result.nodes else {}
        self._spread = (0.0, 0.0)
        self.reset_zoom()

    def _draw(self, spread: tuple[float, float]) -> None:
        """The picture at ``spread`` scene units per layout unit (across, down); names keep
        their size."""
        scene = self.scene()
        scene.clear()
        self.nodes, self.edge_labels = {}, []
        self._spread = spread
        colours = self._colours = current_colours()
        self.setBackgroundBrush(QtGui.QColor(colours.base))
        if self._drawn is None or not self._positions:
            return
        result, type_index, type_name, relation_name = self._drawn
        sx, sy = spread
        positions = {k: (x * sx, y * sy) for k, (x, y) in self._positions.items()}
        self._taken = []
        for node in result.nodes:
            item = NodeItem(node, graph_colour(type_index(node.type_key)), type_name(node.type_key))
            self.nodes[node.id] = item
        boxes = {
            key: item.boundingRect() | item.childrenBoundingRect()
            for key, item in self.nodes.items()
        }
        centre = result.nodes[0].id
        positions = apart(positions, boxes, fixed=centre)
        for node in result.nodes:
            item = self.nodes[node.id]
            item.setPos(*positions[node.id])
            scene.addItem(item)
            # (the names' patch, as wide as the longer of the two lines: a label beside the
            # shorter name went under it, "led by" read "led")
            self._taken += [item.sceneBoundingRect(), item.names_patch.sceneBoundingRect()]
        for edge in result.edges:
            self._edge(edge, positions, relation_name(edge.type_key), colours)

    def _edge(
        self,
        edge: g.GraphEdge,
        positions: dict[str, tuple[float, float]],
        label: str,
        colours: Colours,
    ) -> None:
        (x1, y1), (x2, y2) = positions[edge.head_id], positions[edge.tail_id]
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        r1 = self.nodes[edge.head_id].rect().width() / 2 if edge.head_id in self.nodes else 0
        r2 = self.nodes[edge.tail_id].rect().width() / 2 if edge.tail_id in self.nodes else 0
        start = QtCore.QPointF(x1 + ux * r1, y1 + uy * r1)
        end = QtCore.QPointF(x2 - ux * (r2 + 1), y2 - uy * (r2 + 1))
        pen = QtGui.QPen(QtGui.QColor(colours.muted))
        pen.setWidthF(2.0 if edge.locked else 1.2)
        if edge.confidence < 0.6:
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        scene = self.scene()
        line = scene.addLine(QtCore.QLineF(start, end), pen)
        line.setZValue(0)
        # the arrow head at the tail end
        angle = math.atan2(uy, ux)
        head = QtGui.QPolygonF(
            [
                end,
                end - QtCore.QPointF(math.cos(angle - 0.4) * 9, math.sin(angle - 0.4) * 9),
                end - QtCore.QPointF(math.cos(angle + 0.4) * 9, math.sin(angle + 0.4) * 9),
            ]
        )
        scene.addPolygon(head, pen, QtGui.QBrush(QtGui.QColor(colours.muted))).setZValue(0)
        # the label on a patch of the background: legible where it crosses a line or a name
        patch = QtWidgets.QGraphicsRectItem()
        ground = QtGui.QColor(colours.base)
        ground.setAlpha(215)
        patch.setBrush(QtGui.QBrush(ground))
        patch.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        text = QtWidgets.QGraphicsSimpleTextItem(("✎ " if edge.locked else "") + label, patch)
        text.setBrush(QtGui.QColor(colours.text))
        small = text.font()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
        text.setFont(small)
        box = text.boundingRect()
        patch.setRect(box.adjusted(-2, 0, 2, 0))
        patch.setZValue(1)
        line.setToolTip(text.text())
        # the middle of the edge, or a little towards either end, on the line or beside it,
        # wherever the label covers no name and no other label (at the middle alone, a label
        # near a node's type caption was hidden); where none is free, the edge's tooltip
        # carries it
        aside = box.height() * 0.75
        for side, share in itertools.product((0, 1, -1), (0.5, 0.35, 0.65, 0.25, 0.75)):
            x = start.x() + (end.x() - start.x()) * share - box.width() / 2 - uy * aside * side
            y = start.y() + (end.y() - start.y()) * share - box.height() / 2 + ux * aside * side
            if not self._covers(QtCore.QRectF(x - 2, y, box.width() + 4, box.height())):
                patch.setPos(x, y)
                scene.addItem(patch)
                self._taken.append(patch.sceneBoundingRect())
                break
        else:
            text.setVisible(False)
            patch.setVisible(False)
            scene.addItem(patch)  # (kept: the label, its child, would go with it)
        self.edge_labels.append(text)

    def _covers(self, rect: QtCore.QRectF) -> bool:
        """Whether ``rect`` overlaps a node, a name or a label already placed."""
        return any(rect.intersects(taken) for taken in self._taken)

    # -- zoom and pan --------------------------------------------------------------------
    def zoom(self, factor: float) -> None:
        self._zoomed = True
        current = self.transform().m11()
        factor = max(0.1 / current, min(factor, 6.0 / current))
        self.scale(factor, factor)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if (
            event.type() == QtCore.QEvent.Type.PaletteChange
            and self._drawn is not None
            and self._colours is not current_colours()
        ):
            self._restyle()

    def _restyle(self) -> None:
        """The theme changed: the same picture in the new colours, where the person left it."""
        zoomed, transform = self._zoomed, self.transform()
        centre = self.mapToScene(self.viewport().rect().center())
        self._draw(self._spread)
        if zoomed:
            self._zoomed = True
            self.setTransform(transform)
        self.centerOn(centre)

    def reset_zoom(self) -> None:
        """Fit the picture by laying it out for the view's size at full scale, so names stay
        readable at 800×600; when the nodes cannot stand apart in that room, the centre entity
        is in view and the rest is a pan away."""
        self._zoomed = False
        self.resetTransform()
        view = self.viewport().rect()
        fits = True
        if not self._positions:
            self._draw((SCALE, SCALE))  # nothing to show: an empty scene
        else:
            # not laid out yet (hidden): the natural spread, fitted again when it is shown
            width, height = (view.width(), view.height()) if view.width() > 0 else (10**6, 10**6)
            spread, fits = spread_for(self._positions, width, height)
            moved = max(abs(a - b) for a, b in zip(spread, self._spread, strict=True))
            if moved > 0.5 or not self.nodes:
                self._draw(spread)
        rect = self.scene().itemsBoundingRect().adjusted(-30, -30, 30, 30)
        self.setSceneRect(rect.adjusted(-400, -400, 400, 400))
        # names pushed apart (``apart``) may have widened the picture past the view
        inner = self.scene().itemsBoundingRect()
        fits = fits and inner.width() <= view.width() and inner.height() <= view.height()
        centre = next((i for i in self.nodes.values() if i.node.hops == 0), None)
        self.centerOn(rect.center() if fits or centre is None else centre.scenePos())

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if not self._zoomed:
            self.reset_zoom()  # drawn while hidden, the fit was made for no size at all

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._zoomed and self.isVisible():
            self.reset_zoom()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        key = event.key()
        if key in (QtCore.Qt.Key.Key_Plus, QtCore.Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == QtCore.Qt.Key.Key_Minus:
            self.zoom(1 / 1.25)
        elif key == QtCore.Qt.Key.Key_0:
            self.reset_zoom()
        elif key in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):
            item = self.scene().focusItem()
            if isinstance(item, NodeItem):
                self.navigate.emit(item.node.id)
        elif key == QtCore.Qt.Key.Key_N and self.nodes:
            self._focus_next()
        else:
            super().keyPressEvent(event)

    def _focus_next(self) -> None:
        """N walks the nodes (Enter opens the focused one): the picture without a mouse."""
        items = list(self.nodes.values())
        current = self.scene().focusItem()
        index = items.index(current) + 1 if current in items else 1
        item = items[index % len(items)]
        self.scene().setFocusItem(item)
        for each in items:
            each.setSelected(False)
        pen = item.pen()
        pen.setColor(QtGui.QColor(current_colours().accent))
        pen.setWidthF(3.0)
        for each in items:
            if each is not item and each.node.hops != 0:
                p = each.pen()
                p.setColor(QtGui.QColor(current_colours().border))
                p.setWidthF(1.0)
                each.setPen(p)
        item.setPen(pen)
        self.ensureVisible(item)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        if press is None or (event.position() - press).manhattanLength() > 4:
            return  # a drag pans; only a click navigates
        item = self.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, NodeItem):
            item = item.parentItem()
        if isinstance(item, NodeItem) and item.node.hops != 0:
            self.navigate.emit(item.node.id)
