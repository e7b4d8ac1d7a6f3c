"""Loopback embedding servers for tests: OpenAI-compatible and Ollama-compatible, scripted.

Vectors come from the deterministic provider, so results are reproducible; a ``Script`` can make
the server fail (status, malformed JSON, wrong dimensions, stall) from the Nth call on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from tests.servers.httpserver import Reply, serve


@dataclass
class Script:
    dims: int = 384
    fail_after: int | None = None  # calls before failures start
    failure: str = "500"  # "500" | "garbage" | "dims" | "stall"
    calls: int = 0
    seed_offset: int = 0
    delay_s: float = 0.0  # added to every successful answer (a slow service)


def _vectors(texts: list[str], script: Script) -> list[list[float]]:
    provider = DeterministicProvider(script.dims)
    matrix = provider.embed_passages(
        [f"{script.seed_offset}:{t}" if script.seed_offset else t for t in texts]
    )
    return matrix.tolist()


def _failure(script: Script, count: int, ollama: bool = False) -> Reply | None:
    if script.fail_after is None or script.calls <= script.fail_after:
        return None
    if script.failure == "garbage":
        return Reply(200, b"{not json", "application/json")
    if script.failure == "stall":
        return Reply(200, b"{}", "application/json", delay_s=5.0)
    if script.failure == "dims":
        return Reply(
            200,
            json.dumps({"data": [{"index": 0, "embedding": [0.1, 0.2]}]}).encode(),
            "application/json",
        )
    return Reply(500, b"internal error: key sk-should-never-leak-123456", "text/plain")


@contextmanager
def openai_server(script: Script) -> Iterator[str]:
    def embeddings(_path: str, body: bytes) -> Reply:
        script.calls += 1
        request = json.loads(body)
        inputs = request["input"] if isinstance(request["input"], list) else [request["input"]]
        failed = _failure(script, len(inputs))
        if failed is not None:
            return failed
        data = [
            {"object": "embedding", "index": i, "embedding": v}
            for i, v in enumerate(_vectors(inputs, script))
        ]
        return Reply(
            200,
            json.dumps({"object": "list", "data": data, "model": request["model"]}).encode(),
            "application/json",
            delay_s=script.delay_s,
        )

    with serve({"/v1/embeddings": embeddings}) as base:
        yield f"{base}/v1"


@contextmanager
def ollama_server(script: Script) -> Iterator[str]:
    def embed(_path: str, body: bytes) -> Reply:
        script.calls += 1
        request = json.loads(body)
        failed = _failure(script, len(request["input"]), ollama=True)
        if failed is not None:
            return failed
        return Reply(
            200,
            json.dumps(
                {"model": request["model"], "embeddings": _vectors(request["input"], script)}
            ).encode(),
            "application/json",
        )

    with serve({"/api/embed": embed}) as base:
        yield base


@contextmanager
def openai_server_process(script: Script | None = None) -> Iterator[str]:
    """The OpenAI-compatible server in a child process, for tests that hold a ``BlockingClient``
    (its blocking waits keep the GIL, so a server thread in the test process would starve)."""
    import subprocess
    import sys
    from pathlib import Path

    chosen = script or Script()
    code = (
        "import sys\n"
        "from tests.servers.embedserver import Script, openai_server\n"
        f"with openai_server(Script(dims={chosen.dims}, seed_offset={chosen.seed_offset},"
        f" delay_s={chosen.delay_s})) as base:\n"
        "    print(base, flush=True)\n"
        "    sys.stdin.read()\n"
    )
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.close()
        child.wait(timeout=10)
        child.stdout.close()
