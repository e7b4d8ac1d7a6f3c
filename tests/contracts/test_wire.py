"""Framing and error payloads, without a socket."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goodbuddy_kb.contracts.errors import (
    ErrorCode,
    ErrorPayload,
    InvalidRequestError,
    KbError,
    PayloadTooLargeError,
    redact,
)
from goodbuddy_kb.contracts.wire import HEADER, FrameDecoder, encode_frame, error_message

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(
    st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=4), max_size=5),
    st.integers(1, 7),
)
def test_frames_survive_any_chunking(messages: list[dict[str, object]], step: int) -> None:
    stream = b"".join(encode_frame(m) for m in messages)
    decoder = FrameDecoder()
    out: list[dict[str, object]] = []
    for i in range(0, len(stream), step):
        out.extend(decoder.feed(stream[i : i + step]))
    assert out == messages


def test_oversized_frame_header_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder(limit=100)
    with pytest.raises(PayloadTooLargeError):
        decoder.feed(HEADER.pack(101))


def test_oversized_message_is_not_encoded() -> None:
    with pytest.raises(PayloadTooLargeError):
        encode_frame({"x": "a" * 200}, limit=100)


@pytest.mark.parametrize("body", [b"\xff\xfe", b"[1,2]", b"{not json"])
def test_garbage_frames_are_invalid_requests(body: bytes) -> None:
    with pytest.raises(InvalidRequestError):
        FrameDecoder().feed(HEADER.pack(len(body)) + body)


def test_error_message_carries_the_closed_code_and_a_numeric_jsonrpc_code() -> None:
    msg = error_message(7, InvalidRequestError("bad", {"fields": [{"field": "topK"}]}))
    assert msg["id"] == 7
    assert msg["error"]["code"] == -32602
    assert msg["error"]["data"] == {
        "code": "invalid_request",
        "message": "bad",
        "details": {"fields": [{"field": "topK"}]},
    }
    round_trip = KbError.from_payload(ErrorPayload.model_validate(msg["error"]["data"]))
    assert isinstance(round_trip, InvalidRequestError)


@pytest.mark.parametrize(
    "secret_text",
    [
        "Authorization: Bearer abc.def-123",
        "api_key=sk-ABCDEFGHIJKLMNOP",
        "failed with key sk-live-1234567890abcdef",
        'password: "hunter22"',
    ],
)
def test_redact_removes_credentials(secret_text: str) -> None:
    out = redact(f"request failed: {secret_text} (status 401)")
    for fragment in ("abc.def-123", "ABCDEFGHIJKLMNOP", "1234567890abcdef", "hunter22"):
        assert fragment not in out
    assert "[redacted]" in out


def test_errors_bound_their_message_and_details() -> None:
    err = KbError("x" * 5000, {"body": "y" * 5000})
    assert len(err.message) <= 1000
    assert len(err.details["body"]) <= 500
    assert json.dumps(err.to_payload().model_dump(mode="json"))
    assert err.to_payload().code is ErrorCode.INTERNAL
