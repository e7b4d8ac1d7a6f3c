"""The local record of external tool calls: which tool, how it ended, how long it took — never
a query or an argument. Kept by the backend (bounded); the GUI shows the counts.

A server middleware times every `tools/call` of our tools, including calls refused for their
arguments before a tool runs (those get a clean message here instead of a validation dump).
Records are sent to the backend in small batches, about once a second and at exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import CallToolResult, TextContent

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.external import (
    EXTERNAL_TOOLS,
    MAX_CALLS_PER_RECORD,
    ExternalCall,
    ExternalCallsRecordRequest,
)
from goodbuddy_kb.contracts.methods import EXTERNAL_CALLS_RECORD
from goodbuddy_kb.mcp_server.link import BackendLink

log = logging.getLogger(__name__)
FLUSH_AFTER_S = 1.0
#: Calls kept while the backend cannot take them (oldest dropped first).
MAX_PENDING = 1_000


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

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params or {}
        tool = params.get("name")
        if ctx.method != "tools/call" or tool not in EXTERNAL_TOOLS:
            return await call_next(ctx)
        started = time.perf_counter()
        outcome = Outcome()
        token = CURRENT.set(outcome)
        ok = False
        try:
            arguments = params.get("arguments") or {}
            problem = self._check(tool, arguments if isinstance(arguments, dict) else {})
            if problem is not None:
                outcome.code = "invalid_request"
                return CallToolResult(
                    content=[TextContent(type="text", text=problem)], is_error=True
                )
            result = await call_next(ctx)
            ok = not _is_error(result)
            return result
        except asyncio.CancelledError:
            outcome.code = "cancelled"
            raise
        finally:
            CURRENT.reset(token)
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
        if self._flush_task is None or self._flush_task.done():
            self._flush_task = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(FLUSH_AFTER_S)
        batch = self._take()
        if batch:
            try:
                await self._link.call(
                    EXTERNAL_CALLS_RECORD, ExternalCallsRecordRequest(calls=batch)
                )
            except KbError as exc:
                log.warning("could not store the call record: %s", exc.message)
                self.pending[:0] = batch
            except asyncio.CancelledError:
                self.pending[:0] = batch  # stored at exit by flush_now
                raise

    def stop(self) -> None:
        """Before the event loop ends: no more flushes from it (flush_now stores the rest)."""
        if self._flush_task is not None:
            self._flush_task.cancel()

    def _take(self) -> list[ExternalCall]:
        batch, self.pending = (
            self.pending[:MAX_CALLS_PER_RECORD],
            self.pending[MAX_CALLS_PER_RECORD:],
        )
        return batch

    def flush_now(self) -> None:
        """At exit, after the event loop: store whatever is left."""
        while batch := self._take():
            with contextlib.suppress(KbError):
                self._link.call_sync(EXTERNAL_CALLS_RECORD, ExternalCallsRecordRequest(calls=batch))
