"""Hostile chat-model streams for ``bench/hostile_inputs.py``: each case streams one hostile
answer from a loopback server to the chat client in a child process, then reads the reply as the
graph extractor reads an answer, and reports what the code did (the reason it gave, or the
exception that escaped) with the time and peak memory."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

STREAM = """
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chat.clients import ChatClient, Turn
from goodbuddy_kb.main_process.graph.model_answer import parse_answer
client = ChatClient("openai-compatible", sys.argv[1] + "/v1", "m", None, float(sys.argv[2]))
STARTED = time.monotonic()
try:
    turn = client.turn([{"role": "user", "content": "x"}], [], lambda _t: None, CancelToken(), Turn())
    answer = parse_answer(turn.text)
    report(f"answer read as {type(answer).__name__}: {str(answer)[:60]}")
except BaseException as exc:
    report(f"{type(exc).__name__}: {getattr(exc, 'message', exc)}")
"""

DEEP = 100_000


def _content(text: str, piece: int = 65_536) -> list[str]:
    return [
        json.dumps({"choices": [{"delta": {"content": text[i : i + piece]}}]})
        for i in range(0, len(text), piece)
    ]


CASES: list[tuple[str, list[str]]] = [
    ("8 chat stream: choices[0] a string", ['{"choices": ["x"]}']),
    ("8 chat stream: delta a list", ['{"choices": [{"delta": [1]}]}']),
    ("8 chat stream: tool_calls a string", ['{"choices": [{"delta": {"tool_calls": "c"}}]}']),
    ("8 chat stream: 100k-deep event", ["[" * DEEP + "]" * DEEP]),
    ("8 chat answer: 100k-deep JSON", _content('{"entities": ' + "[" * DEEP + "]" * DEEP + "}")),
    ("8 chat answer: 20k-deep JSON", _content('{"entities": ' + "[" * 20_000 + "]" * 20_000 + "}")),
    ("8 chat answer: 8 MB of flat lists", _content('{"entities": [' + "[]," * 2_700_000 + "[]]}")),
]


def sse(payloads: list[str]) -> Callable[[socket.socket], None]:
    body = b"".join(b"data: " + p.encode() + b"\n\n" for p in payloads) + b"data: [DONE]\n\n"

    def send(conn: socket.socket) -> None:
        head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        conn.sendall(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        # close gracefully: a close with the request unread would reset the connection
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(5)
        while conn.recv(65536):
            pass

    return send


def stream_cases(
    src: Path,
    timeout: float,
    prelude: str,
    run_case: Callable[[Path, str, list[str], float], tuple[float, float, str]],
    raw_server: Callable[[Callable[[socket.socket], None]], AbstractContextManager[str]],
) -> list[tuple[str, float, float, str]]:
    rows = []
    for label, payloads in CASES:
        with raw_server(sse(payloads)) as base:
            rows.append((label, *run_case(src, prelude + STREAM, [base, "30"], timeout)))
    return rows
