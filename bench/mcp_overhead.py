"""The MCP layer's overhead: `knowledge_search` over stdio (the SDK's own client, a real
`goodbuddy-kb mcp` process) against the same search over the bridge, at 10,000 chunks.

Both paths reach the same backend and run `external:search` with the same arguments; calls are
interleaved (alternating which goes first). Two overhead figures: the median of the paired
round-trip differences, and — steadier on a busy machine, where the search itself varies by tens
of milliseconds — the median of the paired differences of each round trip minus the backend's
own search time (`duration_ms`, reported by both paths). Target: p50 overhead ≤ 5 ms.

    .venv/bin/python bench/mcp_overhead.py [--chunks 10000] [--rounds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.external import ExternalSearchRequest
from goodbuddy_kb.contracts.methods import EXTERNAL_SEARCH, RETRIEVE
from goodbuddy_kb.contracts.retrieval import RetrievalOverrides, RetrieveRequest
from goodbuddy_kb.main_process.storage.db import DATABASE_FILE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieve import seed, vocabulary

TOP_K = 8


def server_cpu_s() -> float:
    """CPU seconds used so far by the `goodbuddy-kb mcp` child of this process (Linux /proc)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and b"\0mcp\0" in cmdline:
            total += (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    return total


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def measure(
    data_dir: Path, client: BlockingClient, library_id: str, queries: list[str], rounds: int
) -> dict[str, list[float]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "goodbuddy_kb", "mcp", "--data-dir", str(data_dir)],
        env=dict(os.environ),
    )
    samples: dict[str, list[float]] = {
        "mcp": [],
        "bridge": [],
        "retrieve": [],
        "diff": [],
        "net": [],
        "cpu_mcp_client": [],
        "cpu_bridge_client": [],
    }
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("list_libraries", {})  # attached and warm

        async def over_mcp(q: str) -> tuple[float, float]:
            t0, c0 = time.perf_counter(), time.process_time()
            result = await session.call_tool("knowledge_search", {"query": q, "top_k": TOP_K})
            elapsed = (time.perf_counter() - t0) * 1000
            samples["cpu_mcp_client"].append((time.process_time() - c0) * 1000)
            assert not result.is_error and result.structured_content is not None
            return elapsed, float(result.structured_content["diagnostics"]["duration_ms"])

        def over_bridge(q: str) -> tuple[float, float]:
            t0, c0 = time.perf_counter(), time.process_time()
            res = client.call(EXTERNAL_SEARCH, ExternalSearchRequest(query=q, top_k=TOP_K))
            samples["cpu_bridge_client"].append((time.process_time() - c0) * 1000)
            return (time.perf_counter() - t0) * 1000, res.retrieval.duration_ms

        def plain_retrieve(q: str) -> float:
            t0 = time.perf_counter()
            client.call(
                RETRIEVE,
                RetrieveRequest(
                    library_ids=[library_id], query=q, overrides=RetrievalOverrides(top_k=TOP_K)
                ),
            )
            return (time.perf_counter() - t0) * 1000

        for q in queries[:3]:  # warm-up
            await over_mcp(q)
            over_bridge(q)
        for key in ("cpu_mcp_client", "cpu_bridge_client"):
            samples[key].clear()
        cpu_before = server_cpu_s()
        for i in range(rounds):
            q = queries[i % len(queries)]
            if i % 2:
                m = await over_mcp(q)
                b = over_bridge(q)
            else:
                b = over_bridge(q)
                m = await over_mcp(q)
            samples["mcp"].append(m[0])
            samples["bridge"].append(b[0])
            samples["diff"].append(m[0] - b[0])
            samples["net"].append((m[0] - m[1]) - (b[0] - b[1]))
            samples["retrieve"].append(plain_retrieve(q))
        # The server's CPU per call; its record flushes (one small call a second) included.
        samples["cpu_server"] = [(server_cpu_s() - cpu_before) * 1000 / rounds]
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rng = random.Random(5)
    zh, en = vocabulary(rng)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        library_id = seed(data_dir, args.chunks, zh, en, rng)
        with sqlite3.connect(data_dir / DATABASE_FILE) as conn:
            conn.execute("UPDATE libraries SET external_access = 1")
        queries = ["".join(rng.choice(zh) for _ in range(8)) + "是什么？" for _ in range(10)]
        queries += [" ".join(rng.choice(en) for _ in range(4)) for _ in range(5)]
        backend = BackendProcess.start(data_dir)
        try:
            client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()
            samples = asyncio.run(measure(data_dir, client, library_id, queries, args.rounds))
            client.close()
        finally:
            backend.stop()
    print(f"knowledge_search at {args.chunks:,} chunks, top_k {TOP_K}, {args.rounds} rounds")
    print(f"{'path':<34}{'p50 ms':>9}{'p95 ms':>9}")
    for label, key in (
        ("knowledge:retrieve over the bridge", "retrieve"),
        ("external:search over the bridge", "bridge"),
        ("knowledge_search over MCP stdio", "mcp"),
    ):
        print(f"{label:<34}{statistics.median(samples[key]):>9.2f}{p(samples[key], 0.95):>9.2f}")
    ratio = statistics.median(samples["mcp"]) / statistics.median(samples["bridge"])
    print(
        f"MCP overhead, paired round trips: p50 {statistics.median(samples['diff']):.2f} ms,"
        f" p95 {p(samples['diff'], 0.95):.2f} ms; MCP/bridge p50 ratio {ratio:.2f}"
    )
    print(
        f"MCP overhead net of the backend's search time: p50 {statistics.median(samples['net']):.2f}"
        f" ms, p95 {p(samples['net'], 0.95):.2f} ms (target: p50 ≤ 5 ms)"
    )
    client_extra = statistics.median(samples["cpu_mcp_client"]) - statistics.median(
        samples["cpu_bridge_client"]
    )
    server = samples["cpu_server"][0]
    print(
        f"CPU per call: bridge client {statistics.median(samples['cpu_bridge_client']):.2f} ms;"
        f" MCP client {statistics.median(samples['cpu_mcp_client']):.2f} ms + server process"
        f" {server:.2f} ms (its own bridge client included) → the MCP path spends"
        f" {server + client_extra:.2f} ms more CPU"
    )


if __name__ == "__main__":
    main()
