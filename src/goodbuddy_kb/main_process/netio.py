"""Outbound HTTP under one total deadline, with bounded decompression and redacted URLs.

httpx's timeouts bound each socket operation, so a server that sends its headers one byte every
two seconds, or trickles a reply, holds a request for ever. Here every request runs inside
``deadline(seconds, cancel)``: a network backend below httpcore clamps each connect, read and
write to the time left (so the request ends at the deadline, whatever the server does), and a
cancel shuts the request's sockets down at once, which wakes a blocked read.

Bodies are read raw and decoded here, with at most one content encoding (identity, gzip or
deflate) and the decoded size counted on the stream, so an 826-byte ``gzip, gzip`` bomb stops at
the limit instead of expanding in memory. ``redact_url`` drops ``user:password@`` from any URL
that is shown or logged.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpcore
import httpx

from goodbuddy_kb.contracts.errors import redact
from goodbuddy_kb.main_process.cancel import CancelToken

#: What the backend asks servers to send (and all it decodes).
ACCEPT_ENCODING = "gzip, deflate"


class BodyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is larger than {limit // 1048576 or 1} MB")
        self.limit = limit


class BadEncoding(Exception):
    """The server used a content encoding that is not accepted (several, or unknown)."""


def redact_url(url: str) -> str:
    """``url`` without user name and password (``https://user:pw@host/`` → ``https://host/``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an address)"
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


class RedactingFilter(logging.Filter):
    """Removes URL userinfo and credentials from every log record's rendered message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message, 4_000)
        if cleaned != message:
            record.msg = cleaned
            record.args = None
        return True


def install_log_redaction() -> None:
    """Redact every handler of the root logger; keep httpx's per-request lines out of the log."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)


# -- the deadline ------------------------------------------------------------------------------
@dataclass
class _Deadline:
    at: float
    cancel: CancelToken | None
    sockets: list[socket.socket] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    aborted: bool = False

    def left(self, timeout: float | None, kind: type[Exception]) -> float:
        if self.aborted or (self.cancel is not None and self.cancel.cancelled):
            raise httpcore.ReadError("the request was cancelled")
        remaining = self.at - time.monotonic()
        if remaining <= 0:
            raise kind("the request's total time ran out")
        return remaining if timeout is None else min(timeout, remaining)

    def adopt(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self.lock:
            self.sockets.append(sock)
            aborted = self.aborted
        if aborted:
            _shut(sock)

    def abort(self) -> None:
        with self.lock:
            self.aborted = True
            sockets = list(self.sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


_local = threading.local()


def _active() -> _Deadline | None:
    return getattr(_local, "deadline", None)


@contextlib.contextmanager
def deadline(seconds: float, cancel: CancelToken | None = None) -> Iterator[None]:
    """Every request made on this thread inside the block ends by ``seconds`` from now (and at
    once on ``cancel``); httpx raises its timeout error (or a read error on cancel)."""
    outer = _active()
    active = _Deadline(time.monotonic() + seconds, cancel)
    if outer is not None:
        active.at = min(active.at, outer.at)
        active.cancel = active.cancel or outer.cancel
    _local.deadline = active
    if cancel is not None:
        cancel.on_cancel(active.abort)
    try:
        yield
    finally:
        _local.deadline = outer


def extend(seconds: float) -> None:
    """Move this thread's current deadline to ``seconds`` from now (a stream that has started)."""
    active = _active()
    if active is not None:
        active.at = time.monotonic() + seconds


def _left(timeout: float | None, kind: type[Exception]) -> float | None:
    active = _active()
    return timeout if active is None else active.left(timeout, kind)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
        )
        active = _active()
        if active is not None:
            active.adopt(inner.get_extra_info("socket"))
        return _Stream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(
            host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        active = _active()
        if active is not None:
            active.adopt(stream.get_extra_info("socket"))
        return _Stream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _Transport(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=20,
            max_keepalive_connections=5,
            keepalive_expiry=5.0,
            network_backend=_Backend(),
        )


def client(timeout_s: float, headers: dict[str, str] | None = None) -> httpx.Client:
    """An httpx client whose requests obey ``deadline`` blocks (each operation also bounded by
    ``timeout_s``); no proxies from the environment; only encodings this module decodes."""
    merged = {"Accept-Encoding": ACCEPT_ENCODING, **(headers or {})}
    return httpx.Client(
        transport=_Transport(),
        timeout=httpx.Timeout(timeout_s),
        headers=merged,
        trust_env=False,
        follow_redirects=False,
    )


# -- bodies ------------------------------------------------------------------------------------
def _decoder(response: httpx.Response) -> Any:
    raw = response.headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in raw.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if len(codings) > 1:
        raise BadEncoding(f"more than one content encoding ({', '.join(codings[:3])})")
    if not codings:
        return None
    if codings[0] in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if codings[0] == "deflate":
        return zlib.decompressobj()
    raise BadEncoding(f"unsupported content encoding “{codings[0][:20]}”")


def iter_body(response: httpx.Response, limit: int) -> Iterator[bytes]:
    """The decoded body in pieces, never more than ``limit`` bytes in all (then BodyTooLarge);
    decompression runs in bounded steps, so a bomb never expands past the limit in memory."""
    declared = response.headers.get("content-length")
    if (
        declared
        and declared.isdigit()
        and int(declared) > limit
        and not response.headers.get("content-encoding")
    ):
        raise BodyTooLarge(limit)
    decoder = _decoder(response)
    total = 0
    for raw in response.iter_raw():
        data = raw
        while data:
            if decoder is None:
                piece, data = data, b""
            else:
                try:
                    piece = decoder.decompress(data, limit + 1 - total)
                except zlib.error as exc:
                    raise BadEncoding("the compressed answer is damaged") from exc
                data = decoder.unconsumed_tail
            total += len(piece)
            if total > limit:
                raise BodyTooLarge(limit)
            if piece:
                yield piece


def read_body(response: httpx.Response, limit: int) -> bytes:
    return b"".join(iter_body(response, limit))


def iter_lines(response: httpx.Response, limit: int) -> Iterator[str]:
    """Decoded UTF-8 lines of a streamed body (SSE, NDJSON), within ``limit`` bytes in all."""
    buffer = b""
    for piece in iter_body(response, limit):
        buffer += piece
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8", errors="replace")
    if buffer:
        yield buffer.rstrip(b"\r").decode("utf-8", errors="replace")


# -- what an error answer says -----------------------------------------------------------------
#: The most of an error answer read for the service's own words.
ERROR_BODY_BYTES = 4_096
#: The most of those words kept.
SAYS_CHARACTERS = 200


def service_says(response: httpx.Response) -> str | None:
    """What an error answer says in its own words, one line, bounded: OpenAI-compatible
    ``{"error": {"message": …}}``, Ollama ``{"error": "…"}``, Cohere/Jina-style ``{"message": …}``
    or ``{"detail": …}``, or a short plain text; None when it says nothing readable. Never
    raises. Only a connection test shows it: a service may echo what it was sent, and indexing
    and search send document text."""
    try:
        head = b""
        for piece in iter_body(response, 1 << 30):
            head += piece
            if len(head) >= ERROR_BODY_BYTES:
                break
    except (httpx.HTTPError, BodyTooLarge, BadEncoding):
        return None
    text = head[:ERROR_BODY_BYTES].decode("utf-8", errors="replace").strip()
    if not text:
        return None
    words: object = None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        parsed = None
        if not text.startswith(("{", "[", "<")):  # a truncated JSON or an HTML page says nothing
            words = text
    if isinstance(parsed, dict):
        for name in ("error", "message", "detail", "msg"):
            value = parsed.get(name)
            if isinstance(value, dict):
                value = value.get("message") or value.get("msg")
            if isinstance(value, str) and value.strip():
                words = value
                break
    if not isinstance(words, str):
        return None
    line = " ".join("".join(ch if ch.isprintable() else " " for ch in words).split())
    if not line:
        return None
    return line if len(line) <= SAYS_CHARACTERS else line[: SAYS_CHARACTERS - 1] + "…"
