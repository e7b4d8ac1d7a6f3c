"""Client-side message handling shared by the blocking and the asynchronous client."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import (
    ErrorPayload,
    InternalError,
    KbError,
    invalid_request_from,
)
from goodbuddy_kb.contracts.methods import MethodSpec

Resp = TypeVar("Resp", bound=ContractModel)


def params_of(spec: MethodSpec[Any, Any], request: ContractModel) -> dict[str, Any]:
    """Dump a request after checking it is the model the table declares (and still valid)."""
    if not isinstance(request, spec.request):
        raise TypeError(f"{spec.name} takes {spec.request.__name__}")
    params: dict[str, Any] = request.to_wire()
    try:
        spec.request.model_validate(params)
    except ValidationError as exc:
        raise invalid_request_from(exc) from None
    return params


def error_of(message: dict[str, Any]) -> KbError:
    error = message.get("error")
    data = error.get("data") if isinstance(error, dict) else None
    try:
        return KbError.from_payload(ErrorPayload.model_validate(data))
    except ValidationError:
        return InternalError("the backend sent a malformed error")


def result_of(spec: MethodSpec[Any, Resp], message: dict[str, Any]) -> Resp:
    """The validated response, or the backend's error raised as a KbError."""
    if "error" in message:
        raise error_of(message)
    try:
        return spec.response.model_validate(message.get("result"))
    except ValidationError as exc:
        raise InternalError(
            f"the backend's reply to {spec.name} failed its contract",
            {"problems": len(exc.errors())},
        ) from None
