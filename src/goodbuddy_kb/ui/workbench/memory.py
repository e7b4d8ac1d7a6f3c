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
    #: Whether top K, rerank and fusion were the library's own then (not the person's choice):
    #: those follow the library's settings as they are when the workbench opens again.
    followed: tuple[bool, bool, bool] = (True, True, True)


class WorkbenchMemory:
    """One ``WorkbenchState`` per library, kept by the window for the session."""

    def __init__(self) -> None:
        self._states: dict[str, WorkbenchState] = {}

    def get(self, library_id: str) -> WorkbenchState | None:
        return self._states.get(library_id)

    def keep(self, library_id: str, state: WorkbenchState) -> None:
        self._states[library_id] = state


Choices = tuple[int, str, str]


def following(
    now: Choices, before: Choices | None, remembered: WorkbenchState | None, opened: Choices
) -> list[bool]:
    """Which of top K, rerank and fusion follow the library's settings as they arrive, the
    rest being the person's choice: those that held the library's value ``before`` (settings
    saved while the workbench was open showed the old top K and floor beside results made with
    the new ones), else those left that way last time, else those still as they ``opened``."""
    if before is not None:
        return [a == b for a, b in zip(now, before, strict=True)]
    if remembered is not None:
        return list(remembered.followed)
    return [a == b for a, b in zip(now, opened, strict=True)]


def followed(now: Choices, library: Choices | None) -> tuple[bool, bool, bool]:
    """Which of ``now`` are the library's own (all, while its settings are unknown)."""
    if library is None:
        return (True, True, True)
    return (now[0] == library[0], now[1] == library[1], now[2] == library[2])
