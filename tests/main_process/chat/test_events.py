"""Each stream event's shape is checked where it enters, for both protocols: a field of the
wrong type is ``InvalidStream`` naming it (an ``UnavailableError`` with the catalogue sentence),
well-formed events read as before."""

from __future__ import annotations

import json

import pytest

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.main_process.chat.events import InvalidStream, ollama_line, openai_event


def test_well_formed_events_read_as_before() -> None:
    event = openai_event(
        json.dumps(
            {
                "model": "m",
                "choices": [
                    {
                        "delta": {
                            "content": "hi",
                            "tool_calls": [{"index": 1, "id": "c", "function": {"name": "f"}}],
                        }
                    }
                ],
            }
        )
    )
    assert (event.text, event.model, event.calls[0].index, event.calls[0].name) == (
        "hi",
        "m",
        1,
        "f",
    )
    assert openai_event('{"choices": []}').text == ""
    line = ollama_line(
        json.dumps(
            {
                "message": {
                    "content": "x",
                    "tool_calls": [{"function": {"name": "f", "arguments": {"q": 1}}}],
                },
                "done": True,
            }
        )
    )
    assert line.done and line.text == "x" and json.loads(line.calls[0].arguments) == {"q": 1}


@pytest.mark.parametrize(
    "data",
    [
        "[1]",
        '{"choices": "abc"}',
        '{"choices": ["x"]}',
        '{"choices": [{"delta": [1]}]}',
        '{"choices": [{"delta": {"content": 5}}]}',
        '{"choices": [{"delta": {"tool_calls": "x"}}]}',
        '{"choices": [{"delta": {"tool_calls": [{"index": true}]}}]}',
        '{"choices": [{"delta": {"tool_calls": [{"id": 7}]}}]}',
        '{"choices": [{"delta": {"tool_calls": [{"function": {"arguments": {}}}]}}]}',
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_openai_events_of_the_wrong_shape_are_invalid(data: str) -> None:
    with pytest.raises(InvalidStream) as raised:
        openai_event(data)
    assert isinstance(raised.value, UnavailableError)
    assert raised.value.message_code == "chat.invalid_stream" and raised.value.detail


@pytest.mark.parametrize(
    "line",
    [
        '"text"',
        '{"message": "x"}',
        '{"message": {"content": ["x"]}}',
        '{"message": {"tool_calls": {"a": 1}}}',
        '{"message": {"tool_calls": ["f"]}}',
        '{"message": {"tool_calls": [{"function": "f"}]}}',
        '{"message": {"tool_calls": [{"function": {"name": 3}}]}}',
        '{"message": ' * 100 + "{}" + "}" * 100,
    ],
)
def test_ollama_lines_of_the_wrong_shape_are_invalid(line: str) -> None:
    with pytest.raises(InvalidStream):
        ollama_line(line)
