"""Chunking throughput in MB/s per mode, over the fixture documents repeated to ~8 MB,
beside a plain str.split reference over the same text (how far from a trivial splitter)."""

from __future__ import annotations

import time
from pathlib import Path

from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.chunking import chunk_document
from goodbuddy_kb.main_process.parsing import parse

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    docs = []
    for name in ("policy_zh.md", "manual_en.md"):
        data = (ROOT / "fixtures" / "chunking" / name).read_bytes()
        docs.append(parse(data * 60, name))
    size = sum(len(s.text.encode()) for d in docs for s in d.sections)
    rounds = 4
    start = time.perf_counter()
    for _ in range(rounds):
        for d in docs:
            "\n".join(s.text for s in d.sections).split("。")
    ref = size * rounds / (time.perf_counter() - start) / 1048576
    print(f"input {size * rounds / 1048576:.1f} MB per mode; str.split reference {ref:.0f} MB/s")
    for mode in ("fixed", "structure", "parent-child"):
        cfg = KnowledgeChunkingSettings(mode=mode)  # type: ignore[arg-type]
        start = time.perf_counter()
        chunks = 0
        for _ in range(rounds):
            for d in docs:
                chunks += len(chunk_document(d, "0" * 32, cfg, contextual=True))
        rate = size * rounds / (time.perf_counter() - start) / 1048576
        print(f"{mode:<13} {rate:6.2f} MB/s  ({chunks // rounds} chunks per pass)")


if __name__ == "__main__":
    main()
