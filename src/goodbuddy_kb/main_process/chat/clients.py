"""Streaming chat clients: OpenAI-compatible `/v1/chat/completions` (SSE, tool calls) and
Ollama `/api/chat` (NDJSON). The HTTP stream is read on a helper thread; the caller waits on a
queue and checks its cancel token, so a stop ends the request within a fraction of a second
(the connection is closed under the reader) and the partial reply is kept."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from goodbuddy_kb.contracts.errors import CancelledError, TimeoutError_, UnavailableError
from goodbuddy_kb.main_process import netio
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chat.events import ollama_line, openai_event

POLL_S = 0.05
#: The longest one streamed reply may take in all, and its largest size.
MAX_REPLY_SECONDS = 600.0
MAX_REPLY_BYTES = 16 * 1024 * 1024


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str


@dataclass
class Turn:
    """One model turn: its text and any tool calls it asked for."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    #: The model the answer names, and how many well-formed stream events arrived (a connection
    #: test tells a chat model from any other server that happens to answer 200).
    model: str = ""
    events: int = 0


class _Stream:
    def __init__(
        self,
        client: httpx.Client,
        url: str,
        body: dict[str, Any],
        timeout_s: float,
        cancel: CancelToken,
    ) -> None:
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._client = client
        self._url = url
        self._body = body
        self._timeout = timeout_s
        self._cancel = cancel
        self._response: httpx.Response | None = None
        threading.Thread(target=self._run, name="kb-chat-stream", daemon=True).start()

    def _run(self) -> None:
        # Connect and headers within the timeout; the whole reply within MAX_REPLY_SECONDS.
        # The deadline holds however slowly the server sends, and a cancel shuts the socket.
        try:
            with (
                netio.deadline(self._timeout, self._cancel),
                self._client.stream("POST", self._url, json=self._body) as response,
            ):
                self._response = response
                if response.status_code >= 400:
                    error = UnavailableError(
                        f"the chat model answered HTTP {response.status_code}",
                        {"status": response.status_code},
                    )
                    error.says = netio.service_says(response)
                    self.events.put(("error", error))
                    return
                netio.extend(max(self._timeout, MAX_REPLY_SECONDS))
                for line in netio.iter_lines(response, MAX_REPLY_BYTES):
                    self.events.put(("line", line))
            self.events.put(("end", None))
        except httpx.TimeoutException:
            self.events.put(("error", TimeoutError_("the chat model did not answer in time")))
        except (netio.BodyTooLarge, netio.BadEncoding) as exc:
            self.events.put(("error", UnavailableError(f"the chat model's reply: {exc}")))
        except (httpx.HTTPError, RuntimeError) as exc:
            self.events.put(
                (
                    "error",
                    UnavailableError(
                        f"the chat model cannot be reached ({exc.__class__.__name__})"
                    ),
                )
            )

    def close(self) -> None:
        response = self._response
        if response is not None:
            response.close()
        self._client.close()

    def lines(self, cancel: CancelToken) -> Iterator[str]:
        while True:
            if cancel.cancelled:
                self.close()
                raise CancelledError(cancel.reason)
            try:
                kind, value = self.events.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if kind != "line" and cancel.cancelled:
                # A cancel shuts the socket, which ends the stream: that end is the stop's.
                self.close()
                raise CancelledError(cancel.reason)
            if kind == "line":
                yield value
            elif kind == "error":
                raise value
            else:
                return


class ChatClient:
    def __init__(
        self, kind: str, base_url: str, model: str, api_key: str | None, timeout_s: float
    ) -> None:
        self.kind = kind
        self.model = model
        base = base_url.rstrip("/")
        if kind == "ollama":
            self.url = f"{base}/api/chat"
        else:
            self.url = (
                f"{base}/chat/completions"
                if base.endswith("/v1")
                else f"{base}/v1/chat/completions"
            )
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout_s

    def turn(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_text: Callable[[str], None],
        cancel: CancelToken,
        partial: Turn,
        max_tokens: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Turn:
        """Stream one model turn into ``partial`` (so a cancel keeps what arrived); ``extra``
        adds fields to the request body (e.g. a JSON mode)."""
        client = netio.client(self._timeout, self._headers)
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if tools:
            body["tools"] = tools
        if max_tokens is not None:
            if self.kind == "ollama":
                body["options"] = {"num_predict": max_tokens}
            else:
                body["max_tokens"] = max_tokens
        if extra:
            body.update(extra)
        stream = _Stream(client, self.url, body, self._timeout, cancel)
        try:
            if self.kind == "ollama":
                self._ollama(stream, on_text, cancel, partial)
            else:
                self._openai(stream, on_text, cancel, partial)
        finally:
            stream.close()
        return partial

    def _openai(
        self, stream: _Stream, on_text: Callable[[str], None], cancel: CancelToken, turn: Turn
    ) -> None:
        calls: dict[int, dict[str, str]] = {}
        # the text's pieces are joined once (also when the stream ends in an error or a
        # stop): joining as they come costs the square of the reply's length
        pieces = [turn.text]
        try:
            for line in stream.lines(cancel):
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                event = openai_event(data)
                turn.events += 1
                if event.model is not None:
                    turn.model = event.model
                if event.text:
                    pieces.append(event.text)
                    on_text(event.text)
                for part in event.calls:
                    slot = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = part.id or slot["id"]
                    slot["name"] += part.name
                    slot["arguments"] += part.arguments
        finally:
            turn.text = "".join(pieces)
        turn.tool_calls = [
            ToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"])
            for i, c in sorted(calls.items())
        ]

    def _ollama(
        self, stream: _Stream, on_text: Callable[[str], None], cancel: CancelToken, turn: Turn
    ) -> None:
        pieces = [turn.text]
        try:
            for line in stream.lines(cancel):
                if not line.strip():
                    continue
                event = ollama_line(line)
                turn.events += 1
                if event.model is not None:
                    turn.model = event.model
                if event.text:
                    pieces.append(event.text)
                    on_text(event.text)
                first = len(turn.tool_calls)
                for i, part in enumerate(event.calls):
                    turn.tool_calls.append(ToolCall(f"call_{first + i}", part.name, part.arguments))
                if event.done:
                    break
        finally:
            turn.text = "".join(pieces)
