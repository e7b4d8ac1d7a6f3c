"""Handlers of `system:window:get|update`: where the person was in the window, kept in
``app_settings`` with the data directory (the GUI never writes files of its own)."""

from __future__ import annotations

from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.methods import WINDOW_STATE_GET, WINDOW_STATE_UPDATE
from goodbuddy_kb.contracts.window import (
    WindowState,
    WindowStateGetRequest,
    WindowStateResponse,
    WindowStateUpdateRequest,
)
from goodbuddy_kb.main_process.chat import store as chat_store
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import app_settings, libraries
from goodbuddy_kb.main_process.storage.setting_keys import WINDOW_SETTING


@handles(WINDOW_STATE_GET)
def window_get(ctx: CallContext, request: WindowStateGetRequest) -> WindowStateResponse:
    """The kept state (None if none was kept); a library deleted since is forgotten (the window
    picks another)."""
    conn = ctx.db.get()
    state = app_settings.read(conn, WINDOW_SETTING, WindowState)
    if state is not None and state.library_id is not None:
        try:
            libraries.get(conn, state.library_id)
        except NotFoundError:
            state = state.model_copy(update={"library_id": None})
    if state is not None and state.conversation_id is not None:
        try:
            chat_store.get_conversation(conn, state.conversation_id)
        except NotFoundError:  # deleted since: the newest opens
            state = state.model_copy(update={"conversation_id": None})
    return WindowStateResponse(state=state)


@handles(WINDOW_STATE_UPDATE)
def window_update(ctx: CallContext, request: WindowStateUpdateRequest) -> WindowState:
    if request.state.library_id is not None:
        libraries.get(ctx.db.get(), request.state.library_id)  # an unknown library is refused
    if request.state.conversation_id is not None:  # and so is an unknown conversation
        chat_store.get_conversation(ctx.db.get(), request.state.conversation_id)
    app_settings.write(ctx.db.get(), WINDOW_SETTING, request.state)
    return request.state
