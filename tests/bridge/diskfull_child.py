"""Run inside a private mount namespace by ``test_disk_full_socket.py``: a small file system
(tmpfs) mounted at the data directory's parent, so the backend meets a genuinely full disk.
Prints one JSON line of what it saw; asserts nothing itself (the test does)."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.methods import RETRIEVE, SOURCE_ADD
from goodbuddy_kb.datadir import DATABASE_FILE
from tests.bridge.helpers import create_library, session, settle

#: Common characters, so every document brings many bigrams the index has not seen.
HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]


def write_docs(folder: Path, count: int) -> None:
    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(count):
        paras = ["".join(rng.choice(HAN) for _ in range(400)) + "。" for _ in range(20)]
        body = "\n\n".join(paras)
        (folder / f"doc-{d:03}.md").write_text(f"# 文档{d} 报销规定\n\n{body}\n", "utf-8")


def main(mount: str, size: str, docs: str) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mount], check=True)
    data = Path(mount) / "data"
    data.mkdir(mode=0o700)
    folder = Path(docs)
    write_docs(folder, 150)
    seen: dict[str, object] = {}
    with session(data) as (_backend, client):
        seen["reserve"] = (data / "space-reserve.bin").is_file()
        library_id = create_library(client, "Full")
        client.call(
            SOURCE_ADD,
            s.SourceAddRequest(
                library_id=library_id, kind="folder", location=str(folder), watch=False
            ),
        )
        tasks = settle(client, library_id, timeout=90)
        seen["listed"] = [(x.kind, x.state, x.error_code) for x in tasks]
    conn = sqlite3.connect(data / DATABASE_FILE)
    seen["recorded"] = [list(row) for row in conn.execute("SELECT kind, state FROM tasks")]
    conn.close()
    with session(data) as (_backend, client):
        found = client.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query="文档3 报销规定")
        )
        seen["after_restart"] = [x.document_title for x in found.results[:3]]
    print(json.dumps(seen))


if __name__ == "__main__":
    main(*sys.argv[1:4])
