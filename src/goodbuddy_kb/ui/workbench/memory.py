"""What the workbench remembers of each library for the session: the question, the result size
(top K), the rerank choice, the window's size and place, and the splitter between results and
diagnostics.
Closing the workbench, switching to another library and coming back finds them as they were;
nothing is saved to disk (a new session starts from the library's own settings)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class WorkbenchState:
    query: str
    top_k: int
    rerank: str
    fusion: str
    width: int
    height: int
    #: Whether the results sat over the diagnostics (a narrow window) or beside them.
    vertical: bool
    splitter: list[int] = field(default_factory=list)
    #: Where its window was (its frame's top left), so it opens again where it was moved.
    position: tuple[int, int] | None = None


class WorkbenchMemory:
    """One ``WorkbenchState`` per library, kept by the window for the session."""

    def __init__(self) -> None:
        self._states: dict[str, WorkbenchState] = {}

    def get(self, library_id: str) -> WorkbenchState | None:
        return self._states.get(library_id)

    def keep(self, library_id: str, state: WorkbenchState) -> None:
        self._states[library_id] = state
