"""The bridge's wire format: length-prefixed JSON-RPC 2.0 frames, pure Python.

A frame is a 4-byte big-endian payload length followed by that many bytes of UTF-8 JSON.
The first request on a connection must be the authentication handshake (`rpc.authenticate`,
a JSON-RPC system extension name), carrying the per-launch secret.
"""

from __future__ import annotations

import json
import re
import struct
from typing import Any

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import (
    JSONRPC_CODES,
    InvalidRequestError,
    KbError,
    PayloadTooLargeError,
)
from goodbuddy_kb.contracts.limits import MAX_FRAME_BYTES, MAX_JSON_DEPTH

HEADER = struct.Struct(">I")
#: Handshake method: JSON-RPC reserves the `rpc.` prefix for protocol extensions.
AUTHENTICATE = "rpc.authenticate"
API_VERSION = 1
#: Client names with a meaning to the backend. The GUI keeps a backend alive after its launcher
#: has gone; an external-tool client (the MCP server) may call only the `external` methods.
GUI_CLIENT = "gui"
EXTERNAL_CLIENT = "mcp"


class AuthenticateParams(ContractModel):
    secret: str = Field(min_length=16, max_length=256)
    client: str = Field(default="client", max_length=40)


def encode_frame(message: dict[str, Any], limit: int = MAX_FRAME_BYTES) -> bytes:
    payload = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(payload) > limit:
        raise PayloadTooLargeError(
            f"message of {len(payload)} bytes exceeds the {limit}-byte frame limit",
            {"bytes": len(payload), "limit": limit},
        )
    return HEADER.pack(len(payload)) + payload


_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def nesting_within(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text ``raw`` nests at most ``limit`` arrays/objects deep, decided before
    parsing (a deep frame would exhaust the parser's recursion): strings are blanked and only
    brackets kept; then innermost pairs are removed ``limit`` times over (what is left is nested
    deeper, or unbalanced, which the parser refuses anyway), or for many brackets the running
    depth is summed at once."""
    brackets = _STRING.sub(b"", raw).translate(_OPEN_CLOSE, _NOT_BRACKET)
    if len(brackets) > 65_536:  # many brackets: one vectorised running sum instead
        import numpy as np

        steps = np.where(np.frombuffer(brackets, dtype=np.uint8) == ord("("), 1, -1)
        return int(np.cumsum(steps, dtype=np.int64).max()) <= limit
    for _ in range(limit):
        if not brackets:
            return True
        brackets = brackets.replace(b"()", b"")
    return not brackets


class FrameDecoder:
    """Accumulates bytes and yields complete JSON messages; refuses frames over the limit."""

    def __init__(self, limit: int = MAX_FRAME_BYTES) -> None:
        self._buffer = bytearray()
        self._limit = limit

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._buffer += data
        messages: list[dict[str, Any]] = []
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            if length > self._limit:
                raise PayloadTooLargeError(
                    f"frame of {length} bytes exceeds the {self._limit}-byte limit",
                    {"bytes": length, "limit": self._limit},
                )
            end = HEADER.size + length
            if len(self._buffer) < end:
                break
            raw = bytes(self._buffer[HEADER.size : end])
            del self._buffer[:end]
            if not nesting_within(raw):
                raise InvalidRequestError(
                    f"frame is nested more than {MAX_JSON_DEPTH} levels deep",
                    {"limit": MAX_JSON_DEPTH},
                )
            try:
                message = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                raise InvalidRequestError(
                    f"frame is not UTF-8 JSON: {exc.__class__.__name__}"
                ) from exc
            if not isinstance(message, dict):
                raise InvalidRequestError("frame is not a JSON object")
            messages.append(message)
        return messages


def message_id(message: dict[str, Any]) -> int | str | None:
    """The request id of a message, or None when it has no usable one."""
    value = message.get("id")
    return value if isinstance(value, int | str) else None


def request_message(msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def result_message(msg_id: int | str | None, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def error_message(msg_id: int | str | None, error: KbError) -> dict[str, Any]:
    payload = error.to_payload()
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "error": {
            "code": JSONRPC_CODES[payload.code],
            "message": payload.message,
            # An uncoded message carries no messageCode/messageParams (they are optional).
            "data": payload.model_dump(
                mode="json",
                exclude={"message_code", "message_params"}
                if payload.message_code is None
                else None,
            ),
        },
    }


def notification_message(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}
