"""Contracts of where the person was in the window (`system:window:get|update`): the selected
library, the area and the library tab, the window's geometry and the chat's unsent question —
kept by the backend with the data directory, so a relaunch opens where the last session left
off."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.chat import MAX_MESSAGE_CHARACTERS
from goodbuddy_kb.contracts.library import EntityId

#: The window's two areas (top tabs) and the selected library's tabs, in the order shown.
WindowArea = Literal["knowledge", "chat"]
LibraryTab = Literal["documents", "graph", "tasks", "settings"]
AREAS: tuple[WindowArea, ...] = ("knowledge", "chat")
LIBRARY_TABS: tuple[LibraryTab, ...] = ("documents", "graph", "tasks", "settings")
#: The longest unsent question kept: as long as a message may be.
MAX_DRAFT_CHARACTERS = MAX_MESSAGE_CHARACTERS


class WindowState(ContractModel):
    library_id: EntityId | None = None
    area: WindowArea = "knowledge"
    tab: LibraryTab = "documents"
    #: The window's geometry as Qt saves it (base64); None lets the window choose.
    geometry: str | None = Field(None, max_length=4_096, pattern=r"^[A-Za-z0-9+/=]*$")
    #: The question typed in the chat and not sent (a person's words: never in a diagnostics
    #: export).
    draft: str = Field("", max_length=MAX_DRAFT_CHARACTERS)
    #: The chat conversation open (None: a new chat, or none yet).
    conversation_id: EntityId | None = None


class WindowStateGetRequest(ContractModel):
    pass


class WindowStateUpdateRequest(ContractModel):
    state: WindowState


class WindowStateResponse(ContractModel):
    #: None until a window has kept its state (the window then opens as it always did).
    state: WindowState | None
