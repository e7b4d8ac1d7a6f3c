"""Validates one JSON-RPC request against the method table, runs its handler, validates the reply.

Transport-free, so the in-process benchmark and the socket server share every rule. Foreign
exceptions are translated here: pydantic at the request boundary, sqlite3 at the storage boundary,
anything else becomes an ``internal`` error with no internals in it.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.contracts.errors import (
    InternalError,
    InvalidRequestError,
    KbError,
    NotFoundError,
    invalid_request_from,
    refuse_unpaired_surrogates,
)
from goodbuddy_kb.contracts.methods import METHODS, MethodSpec
from goodbuddy_kb.contracts.wire import error_message, message_id, result_message
from goodbuddy_kb.main_process.handlers import REGISTRY, check_complete
from goodbuddy_kb.main_process.handlers.registry import CallContext, Changes
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import translate

log = logging.getLogger(__name__)
MsgId = int | str | None


@dataclass(frozen=True)
class Outcome:
    reply: dict[str, Any]
    changes: Changes | None
    method: str


def envelope(message: dict[str, Any]) -> tuple[MsgId, MethodSpec[Any, Any], dict[str, Any]]:
    """Check the JSON-RPC envelope and look the method up; raise ``invalid_request`` if wrong."""
    msg_id = message.get("id")
    if message.get("jsonrpc") != "2.0" or not isinstance(msg_id, int | str):
        raise InvalidRequestError("not a JSON-RPC 2.0 request with an id")
    method = message.get("method")
    spec = METHODS.get(method) if isinstance(method, str) else None
    if spec is None:
        raise NotFoundError("unknown method", {"method": str(method)[:80]})
    params = message.get("params", {})
    if not isinstance(params, dict):
        raise InvalidRequestError("params must be an object", {"fields": [{"field": "params"}]})
    refuse_unpaired_surrogates(params)
    return msg_id, spec, params


class Dispatcher:
    def __init__(self, services: Services) -> None:
        check_complete()
        self._services = services

    def spec_of(self, message: dict[str, Any]) -> MethodSpec[Any, Any] | None:
        method = message.get("method")
        return METHODS.get(method) if isinstance(method, str) else None

    def dispatch(self, message: dict[str, Any]) -> Outcome:
        msg_id = message_id(message)
        name = str(message.get("method", ""))[:80]
        ctx = CallContext(
            db=self._services.db, data_dir=self._services.data_dir, services=self._services
        )
        try:
            msg_id, spec, params = envelope(message)
            try:
                request = spec.request.model_validate(params)
            except ValidationError as exc:
                raise invalid_request_from(exc) from None
            result = REGISTRY[spec.name](ctx, request)
            reply = result.model_dump(mode="json", by_alias=True)
            try:
                spec.response.model_validate(reply)
            except ValidationError as exc:
                log.error("response of %s failed its contract: %s", spec.name, exc)
                raise InternalError("the backend produced an invalid response") from None
            return Outcome(
                result_message(msg_id, reply), ctx.changes if spec.mutates else None, name
            )
        except KbError as exc:
            return Outcome(error_message(msg_id, exc), None, name)
        except sqlite3.Error as exc:
            return Outcome(error_message(msg_id, translate(exc)), None, name)
        except Exception:
            log.exception("handler for %s crashed", name)
            return Outcome(error_message(msg_id, InternalError("internal error")), None, name)
