"""The answer to an MCP message line over the size limit: one JSON-RPC error, to the request's
id when its first bytes name one, and the server keeps serving.

Such a line is never parsed whole. Its id is looked for in the first bytes only, as a key of
the outermost object (a client writes ``{"jsonrpc": "2.0", "id": 7, "method": …, "params": …}``
with the id before the large params); without one the error goes to id null, as JSON-RPC says
for a request that cannot be read.
"""

from __future__ import annotations

import json
import re

from goodbuddy_kb.contracts.limits import MAX_FRAME_BYTES

#: How much of an oversized line is kept to find its id.
HEAD_BYTES = 64 * 1024
#: JSON-RPC 2.0 "Invalid Request".
INVALID_REQUEST = -32600
_VALUE = re.compile(r'\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')

RequestId = int | str | None


def request_id(head: bytes) -> RequestId:
    """The top-level ``id`` of a JSON object whose first bytes are ``head``, or None."""
    text = head[:HEAD_BYTES].decode("utf-8", "replace")
    depth = 0
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            if end < 0:
                return None
            if depth == 1 and text[i + 1 : end] == "id":
                match = _VALUE.match(text, end + 1)
                return _id_value(match.group(1)) if match else None
            i = end + 1
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Index of the quote closing the string opened at ``start``, or -1."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _id_value(raw: str) -> RequestId:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


def refusal_line(head: bytes) -> bytes:
    """The JSON-RPC error line for an oversized message that began with ``head``."""
    limit_mb = MAX_FRAME_BYTES // (1024 * 1024)
    error = {
        "jsonrpc": "2.0",
        "id": request_id(head),
        "error": {
            "code": INVALID_REQUEST,
            "message": f"message too large: an MCP message may be at most {limit_mb} MB; "
            "this one was not read",
        },
    }
    return (json.dumps(error, separators=(",", ":")) + "\n").encode("utf-8")
