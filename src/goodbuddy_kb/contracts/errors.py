"""The error model shared by both processes.

Every failure that crosses the bridge is one :class:`KbError` with a code from a closed set::

    KbError                      (base; never raised bare)
    ├── InvalidRequestError      invalid_request    — params fail the contract; details name fields
    ├── NotFoundError            not_found          — an id that does not exist (or is not yours)
    ├── UnauthorizedError        unauthorized       — missing or wrong launch secret
    ├── ConflictError            conflict           — the request clashes with stored state
    ├── CancelledError           cancelled          — the user or shutdown ended the work
    ├── TimeoutError_            timeout            — a bounded wait ran out
    ├── UnavailableError         unavailable        — backend, provider or file not reachable
    ├── PayloadTooLargeError     payload_too_large  — a frame or field over its limit
    └── InternalError            internal           — a bug; details carry no internals

On the wire the JSON-RPC ``error`` object is ``{code: <int>, message, data: ErrorPayload}``, and
``ErrorPayload`` is ``{code, message, details}``. Foreign exceptions (pydantic, sqlite3, httpx, OS)
are translated where they enter; :func:`redact` runs over every message and detail value.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from goodbuddy_kb.contracts.messages import classify


class ErrorCode(StrEnum):
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"
    UNAUTHORIZED = "unauthorized"
    CONFLICT = "conflict"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    INTERNAL = "internal"


#: JSON-RPC numeric codes; the -32000 range is "server error", reserved for the application.
JSONRPC_CODES: dict[ErrorCode, int] = {
    ErrorCode.INVALID_REQUEST: -32602,
    ErrorCode.NOT_FOUND: -32001,
    ErrorCode.UNAUTHORIZED: -32002,
    ErrorCode.CONFLICT: -32003,
    ErrorCode.CANCELLED: -32004,
    ErrorCode.TIMEOUT: -32005,
    ErrorCode.UNAVAILABLE: -32006,
    ErrorCode.PAYLOAD_TOO_LARGE: -32007,
    ErrorCode.INTERNAL: -32603,
}

DetailValue = str | int | float | bool | None | list[Any] | dict[str, Any]

_MAX_DETAIL_STRING = 500
_SECRET_PATTERNS = (
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+"),
    re.compile(r"(?i)\b(sk|pk|rk|key|token)-[A-Za-z0-9_-]{8,}"),
    re.compile(
        r"(?i)\b(api[_-]?key|authorization|password|secret|token)\b(\s*[:=]\s*|\s+)"
        r"[\"']?[^\s\"',;&]+"
    ),
)


_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@?#]+@")


def redact_userinfo(text: str) -> str:
    """``https://user:password@host/`` → ``https://[redacted]@host/``, anywhere in ``text``."""
    return _URL_USERINFO.sub(r"\1[redacted]@", text) if "@" in text else text


def redact(text: str, limit: int = _MAX_DETAIL_STRING) -> str:
    """Remove credentials from a message and bound its length (document bodies never fit)."""
    text = redact_userinfo(text)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: f"{m.group(1)} [redacted]", text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redact_value(v) for v in value[:50]]
    if isinstance(value, dict):
        return {str(k): _redact_value(v) for k, v in list(value.items())[:50]}
    return value


class ErrorPayload(BaseModel):
    """The ``data`` member of a JSON-RPC error: the closed code, a message and bounded details."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: ErrorCode
    message: str = Field(max_length=1_000)
    details: dict[str, Any] = Field(default_factory=dict)
    #: The message as a catalogue code and parameters (``contracts/messages.py``), if it is one.
    message_code: str | None = None
    message_params: dict[str, str] = Field(default_factory=dict)


class KbError(Exception):
    """Base of every error that may cross the bridge."""

    code: ClassVar[ErrorCode] = ErrorCode.INTERNAL
    #: A remote service's own words about the failure (``netio.service_says``), for a connection
    #: test to show; never part of the message, the details or the payload.
    says: str | None = None

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        self.message = redact(message, 1_000)
        self.details: dict[str, Any] = _redact_value(details or {})
        coded = classify(self.message)
        self.message_code: str | None = coded.code if coded else None
        self.message_params: dict[str, str] = coded.params if coded else {}
        super().__init__(self.message)

    def to_payload(self) -> ErrorPayload:
        return ErrorPayload(
            code=self.code,
            message=self.message,
            details=self.details,
            message_code=self.message_code,
            message_params=self.message_params,
        )

    @staticmethod
    def from_payload(payload: ErrorPayload) -> KbError:
        cls = _BY_CODE.get(payload.code, InternalError)
        error = cls(payload.message, dict(payload.details))
        if payload.message_code is not None:
            error.message_code, error.message_params = payload.message_code, payload.message_params
        return error


class InvalidRequestError(KbError):
    code = ErrorCode.INVALID_REQUEST


class NotFoundError(KbError):
    code = ErrorCode.NOT_FOUND


class UnauthorizedError(KbError):
    code = ErrorCode.UNAUTHORIZED


class ConflictError(KbError):
    code = ErrorCode.CONFLICT


class CancelledError(KbError):
    code = ErrorCode.CANCELLED


class TimeoutError_(KbError):  # noqa: N801 - trailing underscore avoids shadowing the builtin
    code = ErrorCode.TIMEOUT


class UnavailableError(KbError):
    code = ErrorCode.UNAVAILABLE


class PayloadTooLargeError(KbError):
    code = ErrorCode.PAYLOAD_TOO_LARGE


class InternalError(KbError):
    code = ErrorCode.INTERNAL


_BY_CODE: dict[ErrorCode, type[KbError]] = {
    cls.code: cls
    for cls in (
        InvalidRequestError,
        NotFoundError,
        UnauthorizedError,
        ConflictError,
        CancelledError,
        TimeoutError_,
        UnavailableError,
        PayloadTooLargeError,
        InternalError,
    )
}


def field_path(loc: tuple[int | str, ...]) -> str:
    """``("retrieval", "topK")`` → ``"retrieval.topK"``; list indexes become ``[i]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_UNPAIRED = re.compile("[\ud800-\udfff]")


def unpaired_surrogates(value: Any, loc: tuple[int | str, ...] = ()) -> list[str]:
    """The paths of every string (or object key) in ``value`` that holds an unpaired UTF-16
    surrogate: JSON can carry one as an escape, but it is not text and SQLite cannot store it."""
    if isinstance(value, str):
        return [field_path(loc) or "params"] if _UNPAIRED.search(value) else []
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and _UNPAIRED.search(key):
                found.append(field_path(loc) or "params")
            found += unpaired_surrogates(item, (*loc, key if isinstance(key, str) else str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += unpaired_surrogates(item, (*loc, i))
    return found


def refuse_unpaired_surrogates(params: dict[str, Any]) -> None:
    """``invalid_request`` naming each field whose text holds an unpaired surrogate."""
    paths = unpaired_surrogates(params)
    if not paths:
        return
    problem = "not valid Unicode text (an unpaired surrogate)"
    fields = [
        {"field": path, "problem": problem, "code": "validation.string_unicode", "params": {}}
        for path in paths[:50]
    ]
    names = ", ".join(paths[:5])
    raise InvalidRequestError(f"Invalid params: {names}: {problem}", {"fields": fields})


def invalid_request_from(
    exc: ValidationError, prefix: str = "params", nested: bool = False
) -> InvalidRequestError:
    """Translate a pydantic error into ``invalid_request`` naming each field, never echoing input.

    ``nested``: the validated object sits at ``prefix`` in the request, so fields are named
    ``prefix.field`` (e.g. ``overrides.topK``)."""
    fields: list[dict[str, Any]] = []
    for err in exc.errors(include_input=False, include_url=False):
        loc = (prefix, *err["loc"]) if nested else tuple(err["loc"])
        path = field_path(loc)
        fields.append(
            {
                "field": path or prefix,
                "problem": redact(str(err["msg"]), 300),
                # The problem as a code (``validation.<pydantic type>``) and its limits.
                "code": f"validation.{err['type']}",
                "params": {k: redact(str(v), 100) for k, v in (err.get("ctx") or {}).items()},
            }
        )
    names = ", ".join(f["field"] for f in fields[:5])
    first = fields[0]["problem"] if fields else "invalid"
    message = f"Invalid {prefix}: {names}: {first}" if names else f"Invalid {prefix}: {first}"
    return InvalidRequestError(message, {"fields": fields[:50]})
