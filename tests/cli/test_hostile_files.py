"""Hostile and legacy files through a real backend and the `goodbuddy-kb` command (issue 31).

Wide tables fail alone with a coded reason and keep the backend's memory bounded; text in
legacy encodings (and a web page that declares its charset) is found after a sync.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.messages import classify
from tests.cli.runner import cli_json, run
from tests.servers.httpserver import serve_handler

pytestmark = pytest.mark.integration


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def documents(data_dir: Path) -> dict[str, dict[str, Any]]:
    listed = cli_json(data_dir, "documents", "L", "--limit", "100")
    return {d["path"]: d for d in listed["documents"]}


def found_in(data_dir: Path, word: str) -> list[str]:
    """Paths of the hits the full-text or CJK channel gave for ``word`` (not vectors alone)."""
    answer = cli_json(data_dir, "retrieve", "L", word)
    return [
        r["documentPath"]
        for r in answer["results"]
        if {"fts", "cjk"} & set(r.get("channelRanks") or {})
    ]


def wide_table(columns: int, megabytes: float) -> str:
    header = "|" + "|".join(f"c{i}" for i in range(columns)) + "|\n"
    header += "|" + "|".join("-" for _ in range(columns)) + "|\n"
    row = "|" + "|".join("x" for _ in range(columns)) + "|\n"
    return "# Wide\n\n" + header + row * int(megabytes * 1e6 / len(row))


def test_a_wide_table_fails_alone_and_keeps_memory_bounded(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "wide.md").write_text(wide_table(5_000, 2), encoding="utf-8")
    (docs / "many.md").write_text(wide_table(1_500, 1), encoding="utf-8")
    (docs / "good.md").write_text("# Notes\n\nThe walrus password is here.\n", encoding="utf-8")
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    assert run(data_dir, "sync", "L").returncode == 0
    by_path = documents(data_dir)
    assert by_path["good.md"]["status"]["parse"] == "done"
    wide, many = by_path["wide.md"], by_path["many.md"]
    assert wide["status"]["parse"] == "failed" and many["status"]["parse"] == "failed"
    assert wide["error"] == (
        "the file is too large to parse: 5000 table columns; the limit is 2000"
    )
    assert wide["errorCode"] == "parse.limit_columns"
    coded = classify(many["error"])
    assert coded is not None and coded.code == "parse.limit_cells", many["error"]
    assert found_in(data_dir, "walrus") == ["good.md"]
    assert peak_mb(backend.pid) < 500


LEGACY = {
    "gb18030.txt": ("gb18030", "知识库管理系统可以帮助用户整理文档。关键词：蝴蝶效应。"),
    "big5.txt": ("big5", "知識庫管理系統可以幫助使用者整理文件。關鍵詞：鳳梨酥餅。"),
    "sjis.txt": ("shift_jis", "今日はベクトル検索について話します。キーワード：さくらんぼ。"),
    "euckr.txt": ("euc_kr", "오늘은 벡터 검색에 대해 이야기합니다. 키워드: 나비효과."),
    "cp1252.txt": ("cp1252", "Le système aide l’utilisateur — mot clé : crèmebrûlée."),
    "latin1.txt": ("latin-1", "Die Größe der Bücher ist wichtig. Schlüsselwort: Gemütlichkeit."),
    "utf16le.txt": ("utf-16-le", "A file in UTF-16 without a byte-order mark: zanzibar."),
    "utf16be.txt": ("utf-16-be", "Big-endian UTF-16 without a byte-order mark: quixotic."),
    "meta.html": (
        "shift_jis",
        '<html><head><meta charset="shift_jis"><title>頁</title></head>'
        "<body><p>宣言された文字コード：ひまわり畑。</p></body></html>",
    ),
}
WORDS = {
    "gb18030.txt": "蝴蝶效应",
    "big5.txt": "鳳梨酥餅",
    "sjis.txt": "さくらんぼ",
    "euckr.txt": "나비효과",
    "cp1252.txt": "crèmebrûlée",
    "latin1.txt": "Gemütlichkeit",
    "utf16le.txt": "zanzibar",
    "utf16be.txt": "quixotic",
    "meta.html": "ひまわり畑",
    "page": "あじさい",
}


@contextmanager
def serve_page(body: bytes, content_type: str) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler, "/page") as base:
        yield base


def test_legacy_encodings_are_found_after_a_sync(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, (encoding, text) in LEGACY.items():
        (docs / name).write_bytes(text.encode(encoding))
    (docs / "noise.txt").write_bytes(bytes((i * 7919) % 127 + 1 for i in range(20_000)))
    (docs / "random.txt").write_bytes(os.urandom(4096).replace(b"\0", b"\1"))
    page = "<html><body><p>ヘッダーで宣言された文字コード：あじさい。</p></body></html>"
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    with serve_page(page.encode("shift_jis"), "text/html; charset=shift_jis") as url:
        assert run(data_dir, "source", "add", "L", url).returncode == 0
        assert run(data_dir, "sync", "L").returncode == 0
    by_path = documents(data_dir)
    for name in LEGACY:
        assert by_path[name]["status"]["parse"] == "done", (name, by_path[name]["error"])
    assert by_path["random.txt"]["status"]["parse"] == "failed"
    assert by_path["random.txt"]["error"] in ("unknown text encoding", "binary content, not text")
    for name, word in WORDS.items():
        hits = found_in(data_dir, word)
        assert hits and (hits[0] == name or (name == "page" and hits[0].startswith("http"))), (
            name,
            word,
            hits,
        )
