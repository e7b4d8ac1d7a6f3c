"""`goodbuddy-kb mcp`'s life: serve the tools (``tools``) over stdio until the client leaves, then
shut down in order.

The server stops when standard input closes, or on SIGTERM/SIGINT (an MCP client closes stdin,
waits a little, then signals). Either way the same shutdown runs, bounded in time: the call
records not yet stored are flushed (after the batch in flight has its answer), the server closes
its own connection — which is then never mistaken for a lost backend — and a backend this server
started stops (or stays for a window using it).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any, cast

import anyio
from anyio.abc import TaskStatus
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

from goodbuddy_kb.mcp_server.datadir_check import startup_warning
from goodbuddy_kb.mcp_server.link import BackendLink
from goodbuddy_kb.mcp_server.pipes import stdio_pipes
from goodbuddy_kb.mcp_server.record import CallRecorder
from goodbuddy_kb.mcp_server.tools import build_server
from goodbuddy_kb.qt import QtCore

#: Longest the last call records may take to reach the backend at shutdown. An MCP client
#: signals about two seconds after closing stdin; the flush normally takes milliseconds.
FINISH_TIMEOUT_S = 3.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def serve_stdio(server: MCPServer) -> None:
    """The SDK's stdio transport, over non-blocking pipes where the platform has them."""
    lowlevel = getattr(server, "_lowlevel_server", None)  # no public accessor in mcp 2.3
    async with stdio_pipes() as pipes:
        if pipes is None or lowlevel is None:
            await server.run_stdio_async()
            return
        stdin, stdout = pipes
        async with stdio_server(stdin=cast(Any, stdin), stdout=cast(Any, stdout)) as (read, write):
            await lowlevel.run(read, write, lowlevel.create_initialization_options())


async def _stop_on_signal(
    serving: anyio.CancelScope, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """Ends serving on SIGTERM/SIGINT; while the bounded shutdown runs, more are ignored."""
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        task_status.started()
        async for _signum in signals:
            serving.cancel()


async def _serve(server: MCPServer, recorder: CallRecorder, link: BackendLink) -> None:
    async with anyio.create_task_group() as tasks:
        serving = anyio.CancelScope()
        if sys.platform != "win32":
            await tasks.start(_stop_on_signal, serving)
        try:
            with serving:
                await serve_stdio(server)
        finally:
            with anyio.CancelScope(shield=True):
                link.begin_shutdown()
                await recorder.finish(FINISH_TIMEOUT_S)
                link.close_stream()  # on its own loop; the session (and its backend) after
            tasks.cancel_scope.cancel()


def run(data_dir: Path, libraries: list[str] | None = None) -> int:
    """Serve MCP on stdin/stdout until stdin closes or a stop signal; then stop a backend this
    server started."""
    QtCore.QCoreApplication.instance() or QtCore.QCoreApplication([])  # sockets need a core app
    warning = startup_warning(data_dir)
    if warning is not None:
        print(warning, file=sys.stderr)
    link = BackendLink(data_dir)
    server, recorder = build_server(link, libraries or None)
    try:
        anyio.run(_serve, server, recorder, link)
    except KeyboardInterrupt:
        pass
    finally:
        link.close()
    print("goodbuddy-kb mcp: stdin closed or stop signal, stopped", file=sys.stderr)
    return 0
