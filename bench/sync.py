"""Sync benchmark: 2,000 Markdown files of about 3 KB through the real backend (parse, chunk,
full-text and CJK index; embeddings off). Prints first-sync throughput and the unchanged re-sync
time, beside the time to merely read and hash the same files (the floor of any re-sync).

    .venv/bin/python bench/sync.py [--files N]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import tempfile
import time
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, NOTIFY_TASK, SOURCE_ADD, SOURCE_SYNC

WORDS_ZH = [
    "员工",
    "请假",
    "报销",
    "制度",
    "流程",
    "审批",
    "系统",
    "安全",
    "数据",
    "账号",
    "密码",
    "合同",
    "项目",
    "会议",
    "客户",
]
WORDS_EN = [
    "gateway",
    "policy",
    "release",
    "config",
    "error",
    "token",
    "cache",
    "upstream",
    "latency",
    "deploy",
]


def write_corpus(folder: Path, count: int) -> int:
    rng = random.Random(7)
    total = 0
    for i in range(count):
        paragraphs = []
        while sum(len(p) for p in paragraphs) < 2600:
            zh = "".join(rng.choice(WORDS_ZH) for _ in range(30))
            en = " ".join(rng.choice(WORDS_EN) for _ in range(25))
            paragraphs.append(f"{zh}。{en}.")
        text = f"# 文档 {i}\n\n## 第一节\n\n" + "\n\n".join(paragraphs) + "\n"
        path = folder / f"d{i // 200:02d}" / f"doc{i:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def wait(client: BlockingClient, task_id: str) -> t.TaskInfo:
    while True:
        method, params = client.next_notification(timeout=600)
        if (
            method == NOTIFY_TASK.name
            and params["id"] == task_id
            and params["state"] in t.FINISHED_STATES
        ):
            return t.TaskInfo.model_validate(params)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        size = write_corpus(root / "corpus", args.files)
        start = time.perf_counter()
        for path in sorted((root / "corpus").rglob("*.md")):
            hashlib.sha256(path.read_bytes()).hexdigest()
        hash_floor = time.perf_counter() - start
        backend = BackendProcess.start(root / "data")
        try:
            client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()
            library_id = client.call(
                LIBRARY_CREATE, lib.LibraryCreateRequest(name="bench")
            ).library.id
            start = time.perf_counter()
            added = client.call(
                SOURCE_ADD,
                c.SourceAddRequest(
                    library_id=library_id, kind="folder", location=str(root / "corpus"), watch=False
                ),
            )
            assert added.task_id
            first = wait(client, added.task_id)
            first_s = time.perf_counter() - start
            start = time.perf_counter()
            again = client.call(SOURCE_SYNC, c.SourceSyncRequest(library_id=library_id))
            second = wait(client, again.task_ids[0])
            resync_s = time.perf_counter() - start
            client.close()
        finally:
            backend.stop()
    assert first.state == second.state == "completed", (first, second)
    print(f"{args.files} Markdown files, {size / 1048576:.1f} MB")
    print(f"first sync:      {first_s:7.2f} s  = {args.files / first_s:7.0f} documents/s")
    print(
        f"unchanged resync:{resync_s:7.2f} s  (read+hash floor {hash_floor:.2f} s, ratio {resync_s / hash_floor:.1f}×)"
    )


if __name__ == "__main__":
    main()
