"""Handlers of `system:*`."""

from __future__ import annotations

import os

from goodbuddy_kb import __version__
from goodbuddy_kb.contracts.methods import SYSTEM_PING
from goodbuddy_kb.contracts.system import PingRequest, PingResponse
from goodbuddy_kb.contracts.wire import API_VERSION
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles


@handles(SYSTEM_PING)
def ping(ctx: CallContext, request: PingRequest) -> PingResponse:
    return PingResponse(version=__version__, api_version=API_VERSION, pid=os.getpid())
