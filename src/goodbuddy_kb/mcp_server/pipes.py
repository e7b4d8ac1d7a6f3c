"""Standard input/output as non-blocking asyncio pipes for the SDK's stdio transport.

The SDK's `stdio_server` parses and serialises every message itself; by default it reads and
writes through worker threads (one hop per line read, two per message written), which on a busy
machine was most of the MCP layer's overhead. Handing it these pipe-backed streams keeps all of
its protocol handling and removes the hops. Like the SDK, the wire gets private copies of fd 0
and 1, and the process's own fd 0 and 1 then point at the null device and at stderr, so stray
output of this process or a child can never corrupt the wire. Where pipes cannot be used (a
regular file as stdin, a platform without pipe transports) the caller falls back to the SDK's
own streams. A message line over ``MAX_FRAME_BYTES`` is refused on its own (``oversize``): the
server answers it with one JSON-RPC error and reads on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from typing import IO

from goodbuddy_kb.contracts.limits import MAX_FRAME_BYTES
from goodbuddy_kb.mcp_server.oversize import HEAD_BYTES, refusal_line


class PipeLines:
    """stdin as the SDK reads it: ``async for line in stdin``. A line over the size limit is
    skipped without being held whole, and answered with one JSON-RPC error (``refuse``)."""

    def __init__(self, reader: asyncio.StreamReader, refuse: Callable[[bytes], None]) -> None:
        self._reader = reader
        self._refuse = refuse

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial  # the last line, without its newline
                if not line:
                    raise StopAsyncIteration from None
            except asyncio.LimitOverrunError as exc:
                self._refuse(await self._skip_line(exc.consumed))
                continue
            return line.decode("utf-8", "replace")

    async def _skip_line(self, consumed: int) -> bytes:
        """Drops the rest of an oversized line (up to its newline); returns its first bytes."""
        head = await self._reader.readexactly(min(consumed, HEAD_BYTES))
        rest = consumed - len(head)
        while True:
            if rest:
                await self._reader.readexactly(rest)
            try:
                await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError:
                return head  # the stream ended inside the line
            except asyncio.LimitOverrunError as exc:
                rest = exc.consumed
                continue
            return head


class PipeWriter:
    """stdout as the SDK writes it: ``await write(text)`` then ``await flush()``."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    def refuse(self, head: bytes) -> None:
        """Answers an oversized message; one whole line, so it never splits another."""
        self._writer.write(refusal_line(head))

    async def flush(self) -> None:
        await self._writer.drain()

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            self._writer.close()


@contextlib.asynccontextmanager
async def stdio_pipes() -> AsyncIterator[tuple[PipeLines, PipeWriter] | None]:
    """Yields (stdin, stdout) streams over the wire, or None when pipes are not available."""
    if sys.platform == "win32":
        yield None
        return
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    files: list[IO[bytes]] = []
    try:
        stdin = os.fdopen(wire_in, "rb", buffering=0)
        stdout = os.fdopen(wire_out, "wb", buffering=0)
        files += [stdin, stdout]
        reader = asyncio.StreamReader(limit=MAX_FRAME_BYTES, loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, stdout
        )
    except (OSError, ValueError):
        for file in files:
            file.close()
        yield None
        return
    writer = PipeWriter(asyncio.StreamWriter(transport, protocol, reader, loop))
    saved = _divert()
    try:
        yield PipeLines(reader, writer.refuse), writer
    finally:
        _restore(saved)
        writer.close()


def _divert() -> tuple[int, int]:
    saved = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return saved


def _restore(saved: tuple[int, int]) -> None:
    for fd, copy in zip((0, 1), saved, strict=True):
        with contextlib.suppress(OSError):
            os.dup2(copy, fd)
            os.close(copy)
