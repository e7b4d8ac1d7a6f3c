"""What the Knowledge graph tab knows of its library, shared by the tab, its entity list, its
entity panel and its edit actions: the library shown, its graph (ontology, settings, counts),
the retrieval weight of the graph channel, the last extraction task and the entity shown."""

from __future__ import annotations

from dataclasses import dataclass

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import tasks as t


@dataclass
class GraphState:
    library_id: str | None = None
    info: g.GraphInfo | None = None
    weight: float | None = None
    task: t.TaskInfo | None = None
    detail: g.EntityDetail | None = None
    #: The name of the entity last asked for when the graph no longer held it (an extraction
    #: merged or dropped it after it was listed); the empty panel says so.
    gone: str | None = None

    @property
    def ontology(self) -> g.Ontology | None:
        return self.info.ontology if self.info else None

    @property
    def shown_id(self) -> str | None:
        """The id of the entity in the panel."""
        return self.detail.entity.id if self.detail is not None else None

    def forget(self) -> None:
        """Another library: nothing of the last one stays."""
        self.info, self.detail, self.task, self.gone = None, None, None, None
