"""The local record of external tool calls: which tool, how it ended, how long it took — never
a query or an argument. Kept by the backend (bounded); the GUI shows the counts.

A server middleware times every `tools/call` of our tools, including calls refused for their
arguments before a tool runs (those get a clean message here instead of a validation dump). A
call the protocol refuses before any tool could run — a `tools/call` before `initialize` — is
not a tool call and is not recorded.

Records are sent to the backend in small batches, about once a second, and at shutdown
(``finish``, bounded in time) after the batch in flight, if any, has had its answer. A batch is
sent once: if its connection is lost after it went out, the backend may have stored it, and it
is dropped rather than stored twice.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_REQUEST, CallToolResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from goodbuddy_kb.contracts.errors import KbError, TimeoutError_
from goodbuddy_kb.contracts.external import (
    EXTERNAL_TOOLS,
    MAX_CALLS_PER_RECORD,
    ExternalCall,
    ExternalCallsRecordRequest,
    ExternalTool,
)
from goodbuddy_kb.contracts.methods import EXTERNAL_CALLS_RECORD
from goodbuddy_kb.mcp_server.link import BackendLink, DeliveryUnknown

log = logging.getLogger(__name__)
FLUSH_AFTER_S = 1.0
#: Calls kept while the backend cannot take them (oldest dropped first).
MAX_PENDING = 1_000
NOT_INITIALIZED = "the session is not initialized: send initialize first, then call tools"


@dataclass
class Outcome:
    """Filled in by a tool that fails, so the record can say how."""

    code: str | None = None


CURRENT: contextvars.ContextVar[Outcome | None] = contextvars.ContextVar(
    "goodbuddy_mcp_outcome", default=None
)


def fail_with(code: str) -> None:
    outcome = CURRENT.get()
    if outcome is not None:
        outcome.code = code


def _is_error(result: HandlerResult) -> bool:
    if isinstance(result, CallToolResult):
        return bool(result.is_error)
    return isinstance(result, dict) and result.get("isError") is True


class CallRecorder:
    """Server middleware; ``check`` returns a readable problem with a call's arguments or None."""

    def __init__(
        self, link: BackendLink, check: Callable[[str, dict[str, Any]], str | None]
    ) -> None:
        self._link = link
        self._check = check
        self.pending: list[ExternalCall] = []
        self._flush_task: asyncio.Task[None] | None = None
        self._sending = False
        self._finishing = False
        #: The handshake is done (`initialize` answered, or `notifications/initialized` seen).
        self._initialized = False

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method in ("initialize", "notifications/initialized"):
            result = await call_next(ctx)
            self._initialized = True
            return result
        params = ctx.params or {}
        tool = params.get("name")
        if ctx.method != "tools/call" or tool not in EXTERNAL_TOOLS:
            return await call_next(ctx)
        if not (self._initialized or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS):
            raise MCPError(code=INVALID_REQUEST, message=NOT_INITIALIZED)
        return await self._timed(ctx, call_next, tool)

    async def _timed(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext, tool: ExternalTool
    ) -> HandlerResult:
        started = time.perf_counter()
        outcome = Outcome()
        token = CURRENT.set(outcome)
        ok = False
        try:
            arguments = (ctx.params or {}).get("arguments") or {}
            problem = self._check(tool, arguments if isinstance(arguments, dict) else {})
            if problem is not None:
                outcome.code = "invalid_request"
                return CallToolResult(
                    content=[TextContent(type="text", text=problem)], is_error=True
                )
            result = await call_next(ctx)
            ok = not _is_error(result)
            return result
        except MCPError:
            outcome.code = "protocol"  # refused by the protocol layer: no tool ran
            raise
        except asyncio.CancelledError:
            outcome.code = "cancelled"
            raise
        finally:
            CURRENT.reset(token)
            if outcome.code != "protocol":
                self._add(
                    ExternalCall(
                        tool=tool,
                        ok=ok,
                        error_code=None if ok else (outcome.code or "internal"),
                        ms=(time.perf_counter() - started) * 1000,
                    )
                )

    def _add(self, call: ExternalCall) -> None:
        self.pending.append(call)
        del self.pending[:-MAX_PENDING]
        if self._finishing:
            return  # ``finish`` takes it
        if self._flush_task is None or self._flush_task.done():
            self._flush_task = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(FLUSH_AFTER_S)
        if self._link.problem() is not None:
            return  # no data directory to record into; kept (bounded) in case one appears
        await self._send(self._take(), None)

    async def _send(self, batch: list[ExternalCall], timeout: float | None) -> None:
        if not batch:
            return
        self._sending = True
        try:
            await self._link.call(
                EXTERNAL_CALLS_RECORD, ExternalCallsRecordRequest(calls=batch), timeout
            )
        except (DeliveryUnknown, TimeoutError_) as exc:
            # It went out: the backend may have stored it, so it is not sent again.
            log.warning("%d call records may not be stored: %s", len(batch), exc.message)
        except KbError as exc:
            log.warning("could not store the call record: %s", exc.message)
            self.pending[:0] = batch
        finally:
            self._sending = False

    def _take(self) -> list[ExternalCall]:
        batch, self.pending = (
            self.pending[:MAX_CALLS_PER_RECORD],
            self.pending[MAX_CALLS_PER_RECORD:],
        )
        return batch

    async def finish(self, timeout: float) -> None:
        """At shutdown, before the server closes its connection: let a batch in flight have its
        answer, then store what is left — all within ``timeout`` seconds."""
        self._finishing = True
        deadline = asyncio.get_running_loop().time() + timeout
        task = self._flush_task
        if task is not None and not task.done():
            if not self._sending:
                task.cancel()  # still waiting to send: nothing of it is out yet
            await asyncio.wait({task}, timeout=max(0.0, deadline - _now()))
            if not task.done():
                task.cancel()  # the backend did not answer in time: the batch may be lost
            await asyncio.gather(task, return_exceptions=True)
        while self.pending and self._link.problem() is None:
            left = deadline - _now()
            if left <= 0:
                break
            before = len(self.pending)
            await self._send(self._take(), left)
            if len(self.pending) >= before:
                break  # refused: the backend cannot take them now
        if self.pending and self._link.problem() is None:
            log.warning("%d call records were not stored", len(self.pending))


def _now() -> float:
    return asyncio.get_running_loop().time()
