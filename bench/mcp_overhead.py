"""The MCP layer's overhead: `knowledge_search` over stdio (the SDK's own client, a real
`goodbuddy-kb mcp` process) against the same search over the bridge, at 10,000 chunks.

Both paths reach the same backend and run `external:search` with the same arguments; calls are
interleaved (alternating which goes first) and the overhead is the median of the paired
differences, so load on the machine falls on both sides alike. Target: p50 overhead ≤ 5 ms.

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
    samples: dict[str, list[float]] = {"mcp": [], "bridge": [], "retrieve": [], "diff": []}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("list_libraries", {})  # attached and warm

        async def over_mcp(q: str) -> float:
            t0 = time.perf_counter()
            result = await session.call_tool("knowledge_search", {"query": q, "top_k": TOP_K})
            elapsed = (time.perf_counter() - t0) * 1000
            assert not result.is_error and result.structured_content is not None
            return elapsed

        def over_bridge(q: str) -> float:
            t0 = time.perf_counter()
            client.call(EXTERNAL_SEARCH, ExternalSearchRequest(query=q, top_k=TOP_K))
            return (time.perf_counter() - t0) * 1000

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
        for i in range(rounds):
            q = queries[i % len(queries)]
            if i % 2:
                m = await over_mcp(q)
                b = over_bridge(q)
            else:
                b = over_bridge(q)
                m = await over_mcp(q)
            samples["mcp"].append(m)
            samples["bridge"].append(b)
            samples["diff"].append(m - b)
            samples["retrieve"].append(plain_retrieve(q))
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
    overhead = statistics.median(samples["diff"])
    ratio = statistics.median(samples["mcp"]) / statistics.median(samples["bridge"])
    print(
        f"MCP layer overhead (paired) p50 {overhead:.2f} ms, p95 {p(samples['diff'], 0.95):.2f} ms;"
        f" MCP/bridge p50 ratio {ratio:.2f} (target: overhead p50 ≤ 5 ms)"
    )


if __name__ == "__main__":
    main()
