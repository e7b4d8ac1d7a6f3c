"""The MCP layer's overhead: `knowledge_search` over stdio against the same search over the
bridge, at 10,000 chunks.

Three paths reach one backend and run `external:search` with the same arguments, in a shuffled
order every round (so drift in load and caches hits each path alike):

- **bridge** — this process's `BlockingClient` calling `external:search` (the reference);
- **raw MCP** — a minimal line-delimited JSON-RPC client over the real stdin/stdout pipes of a
  `goodbuddy-kb mcp` process (`json.dumps` + write, `readline` + `json.loads`; no SDK here);
- **SDK MCP** — the official SDK's client (`mcp.client.stdio` + `ClientSession`), which an
  external AI tool would use, against a second `goodbuddy-kb mcp` process.

The MCP layer's overhead is each stdio round trip minus the paired bridge round trip. The raw
client costs almost nothing, so *raw − bridge* is the server-side overhead the ≤ 5 ms target is
read against; *SDK − bridge* adds the SDK client's own cost (the external tool's, not ours).
Both also "net": each round trip minus the backend's own search time (`duration_ms`), steadier
when the search itself varies by tens of milliseconds on a busy machine. CPU per call on each
side: this process (the client), the MCP server process, the backend (from each process's
per-thread scheduler statistics, nanoseconds).

    .venv/bin/python bench/mcp_overhead.py [--chunks 10000] [--rounds 200] [--keep DIR]
        [--profile-server DIR]   # the MCP servers under a CPU-time cProfile (measured rounds)
        [--compare-src DIR]      # + the raw client against a server from another src/ tree
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import LATEST_PROTOCOL_VERSION

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.external import ExternalSearchRequest
from goodbuddy_kb.contracts.methods import EXTERNAL_SEARCH
from goodbuddy_kb.main_process.storage.db import DATABASE_FILE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieve import seed, vocabulary

TOP_K = 8


def cpu_ns(pid: int) -> int:
    """CPU time used so far by every thread of ``pid`` (Linux scheduler statistics)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total


def mcp_children() -> set[int]:
    """`goodbuddy-kb mcp` processes started by this process."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and b"\0mcp\0" in cmdline:
            found.add(int(entry.name))
    return found


#: Runs `goodbuddy-kb mcp` with a CPU-time cProfile (on a busy machine a write that wakes another
#: process often costs this one its time slice, which a wall-clock profile would blame on the
#: write) that SIGUSR1 starts and SIGUSR2 stops and writes out: the measured rounds only.
PROFILED = (
    "import cProfile, runpy, signal, sys, time\n"
    "out = sys.argv.pop(1)\n"
    "sys.argv[0] = 'goodbuddy-kb'\n"
    "profile = cProfile.Profile(time.process_time)\n"
    "signal.signal(signal.SIGUSR1, lambda *_: profile.enable())\n"
    "signal.signal(signal.SIGUSR2, lambda *_: (profile.disable(), profile.dump_stats(out)))\n"
    "runpy.run_module('goodbuddy_kb', run_name='__main__')\n"
)


def server_argv(data_dir: Path, profile: Path | None) -> list[str]:
    head = [sys.executable, "-m", "goodbuddy_kb"]
    if profile is not None:
        head = [sys.executable, "-c", PROFILED, str(profile)]
    return [*head, "mcp", "--data-dir", str(data_dir)]


class RawClient:
    """Newline-delimited JSON-RPC over a `goodbuddy-kb mcp` process's real stdin/stdout."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.popen = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self._in: IO[bytes] = self.popen.stdin
        self._out: IO[bytes] = self.popen.stdout
        self._next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": LATEST_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench-raw", "version": "0"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        self._in.write(json.dumps(message).encode() + b"\n")
        self._in.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        while True:
            line = self._out.readline()
            if not line:
                raise RuntimeError("the MCP server closed its output")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(message["error"])
                result: dict[str, Any] = message["result"]
                return result

    def close(self) -> None:
        self._in.close()
        self.popen.wait(timeout=30)
        self._out.close()


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def measure(
    data_dir: Path,
    bridge: BlockingClient,
    backend_pid: int,
    queries: list[str],
    rounds: int,
    profile_dir: Path | None,
    compare_src: Path | None,
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    before = mcp_children()
    raws = {
        "raw": RawClient(server_argv(data_dir, profile_dir / "raw.prof" if profile_dir else None))
    }
    if compare_src is not None:  # the same raw client against a server from another source tree
        env = {**os.environ, "PYTHONPATH": str(compare_src)}
        raws["ref"] = RawClient(server_argv(data_dir, None), env)
    params = StdioServerParameters(
        command=sys.executable,
        args=server_argv(data_dir, profile_dir / "sdk.prof" if profile_dir else None)[1:],
        env=dict(os.environ),
    )
    try:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            server_pid = {path: raw.popen.pid for path, raw in raws.items()}
            (server_pid["sdk"],) = mcp_children() - before - set(server_pid.values())
            for raw in raws.values():
                raw.request("tools/call", {"name": "list_libraries", "arguments": {}})
            await session.call_tool("list_libraries", {})

            def over_bridge(q: str) -> float:
                res = bridge.call(EXTERNAL_SEARCH, ExternalSearchRequest(query=q, top_k=TOP_K))
                return res.retrieval.duration_ms

            def over_raw(path: str, q: str) -> float:
                result = raws[path].request(
                    "tools/call",
                    {"name": "knowledge_search", "arguments": {"query": q, "top_k": TOP_K}},
                )
                assert not result.get("isError"), result
                return float(result["structuredContent"]["diagnostics"]["duration_ms"])

            async def over_sdk(q: str) -> float:
                result = await session.call_tool("knowledge_search", {"query": q, "top_k": TOP_K})
                assert not result.is_error and result.structured_content is not None
                return float(result.structured_content["diagnostics"]["duration_ms"])

            async def one(path: str, q: str) -> None:
                pid = server_pid.get(path)
                s0, b0 = (cpu_ns(pid) if pid else 0), cpu_ns(backend_pid)
                t0, c0 = time.perf_counter(), time.process_time()
                if path == "sdk":
                    searched = await over_sdk(q)
                elif path == "bridge":
                    searched = over_bridge(q)
                else:
                    searched = over_raw(path, q)
                wall = (time.perf_counter() - t0) * 1000
                add(f"cpu_client_{path}", (time.process_time() - c0) * 1000)
                add(f"cpu_backend_{path}", (cpu_ns(backend_pid) - b0) / 1e6)
                if pid:
                    add(f"cpu_server_{path}", (cpu_ns(pid) - s0) / 1e6)
                add(f"rt_{path}", wall)
                add(f"search_{path}", searched)

            order = ["bridge", "sdk", *raws]
            shuffle = random.Random(11).shuffle
            for q in queries[:4]:  # warm-up, not kept
                for path in order:
                    await one(path, q)
            samples.clear()
            if profile_dir is not None:
                for pid in server_pid.values():
                    os.kill(pid, signal.SIGUSR1)
            for i in range(rounds):
                shuffle(order)
                for path in order:
                    await one(path, queries[i % len(queries)])
            if profile_dir is not None:
                for pid in server_pid.values():
                    os.kill(pid, signal.SIGUSR2)
                await asyncio.sleep(1.0)
    finally:
        for raw in raws.values():
            raw.close()
    for path in ("sdk", *raws):
        for key, minus in (("diff", "rt"), ("net", "net")):
            mine, ref = samples[f"rt_{path}"], samples["rt_bridge"]
            if minus == "net":
                mine = [a - b for a, b in zip(mine, samples[f"search_{path}"], strict=True)]
                ref = [a - b for a, b in zip(ref, samples["search_bridge"], strict=True)]
            samples[f"{key}_{path}"] = [a - b for a, b in zip(mine, ref, strict=True)]
    return samples


def report(samples: dict[str, list[float]], chunks: int, rounds: int) -> None:
    med: Callable[[str], float] = lambda key: statistics.median(samples[key])  # noqa: E731
    load = os.getloadavg()
    print(
        f"knowledge_search at {chunks:,} chunks, top_k {TOP_K}, {rounds} interleaved rounds;"
        f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
    )
    print(f"{'round trip':<46}{'p50 ms':>9}{'p95 ms':>9}")
    for label, key in (
        ("external:search over the bridge (reference)", "rt_bridge"),
        ("knowledge_search, raw JSON-RPC client, stdio", "rt_raw"),
        ("knowledge_search, SDK ClientSession, stdio", "rt_sdk"),
        ("knowledge_search, raw client, reference server", "rt_ref"),
    ):
        if key in samples:
            print(f"{label:<46}{med(key):>9.2f}{p(samples[key], 0.95):>9.2f}")
    print(f"{'MCP overhead (stdio − bridge, paired)':<46}{'p50 ms':>9}{'p95 ms':>9}")
    for label, key in (
        ("raw client (server side; target p50 ≤ 5 ms)", "diff_raw"),
        ("  net of the backend's search time", "net_raw"),
        ("SDK client (server + SDK client)", "diff_sdk"),
        ("  net of the backend's search time", "net_sdk"),
        ("raw client, reference server", "diff_ref"),
        ("  net of the backend's search time", "net_ref"),
    ):
        if key in samples:
            print(f"{label:<46}{med(key):>9.2f}{p(samples[key], 0.95):>9.2f}")
    print(f"{'CPU per call, p50 ms':<28}{'client':>9}{'MCP server':>12}{'backend':>9}")
    for label, path in (
        ("bridge", "bridge"),
        ("raw client + server", "raw"),
        ("SDK + server", "sdk"),
        ("raw + reference server", "ref"),
    ):
        if f"cpu_client_{path}" not in samples:
            continue
        server = (
            f"{med(f'cpu_server_{path}'):>12.2f}"
            if f"cpu_server_{path}" in samples
            else (f"{'—':>12}")
        )
        print(
            f"{label:<28}{med(f'cpu_client_{path}'):>9.2f}{server}"
            f"{med(f'cpu_backend_{path}'):>9.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="seed here once and reuse")
    parser.add_argument("--profile-server", type=Path, help="write the servers' cProfile here")
    parser.add_argument(
        "--compare-src", type=Path, help="also a server from this src/ tree (before/after)"
    )
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rng = random.Random(5)
    zh, en = vocabulary(rng)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.keep / str(args.chunks) if args.keep else Path(tmp)
        marker = data_dir / "bench-mcp-library"
        if not marker.is_file():
            data_dir.mkdir(parents=True, exist_ok=True)
            marker.write_text(seed(data_dir, args.chunks, zh, en, rng))
            with sqlite3.connect(data_dir / DATABASE_FILE) as conn:
                conn.execute("UPDATE libraries SET external_access = 1")
        pick = random.Random(6)
        queries = ["".join(pick.choice(zh) for _ in range(8)) + "是什么？" for _ in range(10)]
        queries += [" ".join(pick.choice(en) for _ in range(4)) for _ in range(5)]
        if args.profile_server:
            args.profile_server.mkdir(parents=True, exist_ok=True)
        backend = BackendProcess.start(data_dir)
        try:
            bridge = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()
            samples = asyncio.run(
                measure(
                    data_dir,
                    bridge,
                    backend.pid,
                    queries,
                    args.rounds,
                    args.profile_server,
                    args.compare_src,
                )
            )
            bridge.close()
        finally:
            backend.stop()
    report(samples, args.chunks, args.rounds)


if __name__ == "__main__":
    main()
