"""What a chat model's stream may say, checked where it enters: each OpenAI-compatible SSE
event and each Ollama NDJSON line is read with bounded nesting (``boundedjson``) and its shape
checked field by field — ``choices`` a list of objects, ``delta``/``message`` an object, text a
string, ``tool_calls`` a list of objects with a string id, name and arguments and an integer
index. Anything else is ``InvalidStream`` (an ``UnavailableError`` naming what was wrong), so a
hostile answer never reaches a caller as an AttributeError or a RecursionError."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.main_process import boundedjson

INVALID_STREAM = "the chat model sent an invalid stream"


class InvalidStream(UnavailableError):
    """The stream's bytes arrived but do not say what a chat stream says; ``detail`` says
    what was wrong (for the run's summary and the logs)."""

    def __init__(self, detail: str) -> None:
        super().__init__(INVALID_STREAM)
        self.detail = detail


@dataclass
class CallPart:
    """A piece of one tool call: OpenAI streams a call in pieces joined by ``index``."""

    index: int
    id: str
    name: str
    arguments: str


@dataclass
class Event:
    text: str = ""
    model: str | None = None
    calls: list[CallPart] = field(default_factory=list)
    #: Ollama's last line of a reply.
    done: bool = False


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        value = boundedjson.loads(text)
    except boundedjson.TooDeep as exc:
        raise InvalidStream(f"{what} nests deeper than {exc.limit} levels") from None
    except ValueError:
        raise InvalidStream(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise InvalidStream(f"{what} is not a JSON object")
    return value


def _object(value: object, what: str) -> dict[str, Any]:
    """``value`` when it is an object; an absent (null) one is empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidStream(f"{what} is not an object")
    return value


def _list(value: object, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidStream(f"{what} is not a list")
    return value


def _text(value: object, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidStream(f"{what} is not a string")
    return value


def _model(event: dict[str, Any]) -> str | None:
    model = event.get("model")
    return model if isinstance(model, str) else None


def openai_event(data: str) -> Event:
    """One ``data:`` payload of an OpenAI-compatible stream (not ``[DONE]``)."""
    event = _json_object(data, "an event")
    choices = event.get("choices")
    if not isinstance(choices, list):
        raise InvalidStream("an event has no choices list")
    if not choices:
        return Event(model=_model(event))
    delta = _object(_object(choices[0], "choices[0]").get("delta"), "delta")
    calls = []
    for position, item in enumerate(_list(delta.get("tool_calls"), "tool_calls")):
        call = _object(item, "a tool call")
        index = call.get("index", position)
        if isinstance(index, bool) or not isinstance(index, int):
            raise InvalidStream("a tool call's index is not an integer")
        function = _object(call.get("function"), "a tool call's function")
        calls.append(
            CallPart(
                index,
                _text(call.get("id"), "a tool call's id"),
                _text(function.get("name"), "a tool call's name"),
                _text(function.get("arguments"), "a tool call's arguments"),
            )
        )
    return Event(_text(delta.get("content"), "content"), _model(event), calls)


def ollama_line(line: str) -> Event:
    """One line of an Ollama ``/api/chat`` stream."""
    obj = _json_object(line, "a line")
    message = _object(obj.get("message"), "message")
    calls = []
    for position, item in enumerate(_list(message.get("tool_calls"), "tool_calls")):
        function = _object(_object(item, "a tool call").get("function"), "a tool call's function")
        arguments = function.get("arguments", {})
        calls.append(
            CallPart(
                position,
                "",
                _text(function.get("name"), "a tool call's name"),
                arguments if isinstance(arguments, str) else json.dumps(arguments),
            )
        )
    return Event(
        _text(message.get("content"), "content"), _model(obj), calls, done=bool(obj.get("done"))
    )
