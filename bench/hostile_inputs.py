"""Time and peak memory of each hostile input of issues 19, 31 and 35, in a child process per
case.

    python bench/hostile_inputs.py                      # this tree
    python bench/hostile_inputs.py --src OLD/src        # another tree (e.g. before the fixes)
    python bench/hostile_inputs.py --only 31            # just the issue-31 cases
    python bench/hostile_inputs.py --only 35            # just the issue-35 files (sheets, slides…)

Each case runs in its own Python process (``PYTHONPATH`` = the chosen ``src``) so its peak
resident memory is its own (``VmHWM``); a case still running at ``--timeout`` seconds is killed
(with its process group) and reported as such. Loopback servers with the misbehaviour run in
this process. The outcome column says what the code did: the reason it gave, or the exception
that escaped. The issue-31 cases (marked "31") start a real backend on a fresh data directory
and drive it with the `goodbuddy-kb` command (and the bridge for entities); their time and peak
memory are the backend process's own. The issue-35 cases (marked "35": ZIP bombs, 10,000
sheets or slides, a million-row sheet…) are files written by their formats' own libraries
(``bench/hostile_formats.py``), parsed like the DOCX cases.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.hostile_formats import format_cases  # noqa: E402
from bench.hostile_streams import stream_cases  # noqa: E402
from tests.docgen import docx_bomb, malformed_docx  # noqa: E402

PRELUDE = """
import json, os, sys, time
from pathlib import Path
STARTED = time.monotonic()
def peak_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0
def report(outcome):
    print(json.dumps({"outcome": str(outcome)[:160], "seconds": time.monotonic() - STARTED,
                      "peak": peak_mb()}), flush=True)
"""

SYNC = (
    PRELUDE
    + """
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.sync.engine import sync_source
data, folder, target, action = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
STARTED = time.monotonic()
pool = open_database(data)
conn = pool.get()
lib = libraries.create(conn, "B").id
src = sources.add(conn, lib, "folder", str(folder), [], [], False)
def swap():
    path = folder / target
    path.unlink()
    if action == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(action)
def progress(done, total, current, failed):
    if current == target and action != "none":
        swap()
try:
    report_ = sync_source(conn, src, CancelToken(), progress)
    leaked = len(search(conn, "fts", [lib], build_query("outsidesecretmarker"), 5))
    report(f"completed: {report_.processed} parsed, {report_.failed} failed, outside hits {leaked}")
except BaseException as exc:
    report(f"escaped {type(exc).__name__}")
"""
)

PARSE = (
    PRELUDE
    + """
from goodbuddy_kb.main_process.parsing import parse
data = Path(sys.argv[1]).read_bytes()
STARTED = time.monotonic()
try:
    doc = parse(data, sys.argv[2])
    report(f"parsed: {len(doc.sections)} sections")
except BaseException as exc:
    report(f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}")
"""
)

FETCH = (
    PRELUDE
    + """
from goodbuddy_kb.main_process.sync import web
STARTED = time.monotonic()
try:
    body, media = web.fetch(sys.argv[1], timeout=float(sys.argv[2]))
    report(f"fetched {len(body)} bytes")
except BaseException as exc:
    report(f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}")
"""
)

EMBED = (
    PRELUDE
    + """
from goodbuddy_kb.main_process.embeddings.remote import OpenAICompatibleProvider
provider = OpenAICompatibleProvider(sys.argv[1], "m", None, 8, 4, float(sys.argv[2]))
STARTED = time.monotonic()
try:
    provider.embed_query("hello")
    report("embedded")
except BaseException as exc:
    report(f"{type(exc).__name__}: {getattr(exc, 'message', exc)}")
"""
)


BACKEND = (
    PRELUDE
    + """
import subprocess, threading
from goodbuddy_kb.bridge.launcher import BackendProcess
data, action, rest = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
backend = BackendProcess.start(data)
PEAK = [0.0]
def hwm():
    try:
        for line in Path(f"/proc/{backend.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
def watch():
    while backend.alive():
        PEAK[0] = max(PEAK[0], hwm())
        time.sleep(0.05)
threading.Thread(target=watch, daemon=True).start()
def cli(*args):
    done = subprocess.run([sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data), "--json",
                           *args], capture_output=True, text=True, timeout=600)
    try:
        return done.returncode, json.loads(done.stdout or "null")
    except ValueError:
        return done.returncode, None
def found(word, name):
    _rc, answer = cli("retrieve", "L", word)
    results = (answer or {}).get("results") or []
    return any(r["documentPath"] == name and {"fts", "cjk"} & set(r.get("channelRanks") or {})
               for r in results)
def folder():
    cli("library", "create", "L")
    cli("source", "add", "L", rest[0], "--no-watch")
    rc, _ = cli("sync", "L")
    _rc, listed = cli("documents", "L", "--limit", "100")
    docs = (listed or {}).get("documents") or []
    done = [d for d in docs if d["status"]["parse"] == "done"]
    failed = [d for d in docs if d["status"]["parse"] == "failed"]
    outcome = f"sync exit {rc}: {len(done)} done, {len(failed)} failed"
    if failed:
        outcome += f" ({failed[0]['error']})"
    words = json.loads(rest[1]) if len(rest) > 1 else {}
    if words:
        hits = sum(found(word, name) for name, word in words.items())
        outcome = f"found {hits}/{len(words)}; " + outcome
    return outcome
def alias():
    from goodbuddy_kb.bridge.client import BlockingClient
    from goodbuddy_kb.contracts import graph as g
    from goodbuddy_kb.contracts.methods import GRAPH_ENTITY_CREATE, GRAPH_GET
    from goodbuddy_kb.qt import QtCore
    QtCore.QCoreApplication([])
    _rc, lib = cli("library", "create", "L")
    endpoint = backend.endpoint
    with BlockingClient(endpoint.server_name, endpoint.secret, "bench").open() as client:
        client.call(GRAPH_GET, g.GraphGetRequest(library_id=lib["id"]))
        try:
            client.call(GRAPH_ENTITY_CREATE, g.EntityCreateRequest(
                library_id=lib["id"], type_key="person", name="Alias probe",
                aliases=["a" * int(rest[0])]), timeout=120)
            made = "created"
        except Exception as exc:
            made = f"refused ({type(exc).__name__}: {str(exc)[:60]})"
    rc, _ = cli("retrieve", "L", "a" * 40)
    return f"{made}; retrieve exit {rc}; backend {'alive' if backend.alive() else 'dead'}"
STARTED = time.monotonic()
try:
    outcome = {"folder": folder, "alias": alias}[action]()
except BaseException as exc:
    outcome = f"escaped {type(exc).__name__}: {str(exc)[:80]}"
seconds = time.monotonic() - STARTED
PEAK[0] = max(PEAK[0], hwm())
alive = backend.alive()
backend.stop()
print(json.dumps({"outcome": outcome + ("" if alive else " [backend exited]"),
                  "seconds": seconds, "peak": PEAK[0]}), flush=True)
"""
)


def _group_peak(group: int) -> float:
    """The largest VmHWM among the processes of process group ``group`` (a killed case's
    backend is measured too, not only the child that started it)."""
    peak = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(group):
            peak = max(peak, _hwm(int(stat.parent.name)))
    return peak


def _hwm(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


#: Address-space cap of each child (MB), so that a runaway case ends in MemoryError instead of
#: taking the shared machine's memory.
MEMORY_CAP_MB = 3_000


def _cap_memory() -> None:
    import resource

    limit = MEMORY_CAP_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_case(src: Path, code: str, args: list[str], timeout: float) -> tuple[float, float, str]:
    """Seconds and peak MB of the operation itself (imports excluded: the child starts its clock
    after them), or of the whole child when it had to be killed."""
    env = dict(os.environ, PYTHONPATH=str(src), QT_QPA_PLATFORM="offscreen")
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        preexec_fn=_cap_memory,  # noqa: PLW1509 - no threads hold locks the child needs
        start_new_session=True,  # the child and the backend it starts: one group to kill
    )
    peak = 0.0
    killed = False
    while child.poll() is None:
        peak = max(peak, _group_peak(child.pid))
        if time.monotonic() - started > timeout:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            killed = True
            break
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)  # a backend left behind by a child that died
    elapsed = time.monotonic() - started
    out = child.stdout.read().decode() if child.stdout else ""
    if killed:
        return elapsed, peak, f"still running at {timeout:.0f} s: killed"
    try:
        result = json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return elapsed, peak, f"exit {child.returncode}"
    return float(result["seconds"]), max(float(result["peak"]), 0.0), str(result["outcome"])


@contextmanager
def raw_server(send: Callable[[socket.socket], None]) -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(120)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                send(conn)
            except OSError:
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


def trickle(data: bytes, every: float) -> Callable[[socket.socket], None]:
    def send(conn: socket.socket) -> None:
        for i in range(len(data)):
            conn.sendall(data[i : i + 1])
            time.sleep(every)

    return send


def encoded(body: bytes, encoding: str) -> Callable[[socket.socket], None]:
    def send(conn: socket.socket) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: {encoding}\r\n"
        conn.sendall(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    return send


def _wide_table(columns: int, megabytes: float) -> str:
    head = "|" + "|".join(f"c{i}" for i in range(columns)) + "|\n"
    head += "|" + "|".join("-" for _ in range(columns)) + "|\n"
    row = "|" + "|".join("x" for _ in range(columns)) + "|\n"
    return "# Wide\n\n" + head + row * int(megabytes * 1e6 / len(row))


#: name → (encoding, text, a word of it that retrieval must find)
LEGACY = {
    "gb18030.txt": ("gb18030", "知识库帮助用户整理文档。关键词：蝴蝶效应。", "蝴蝶效应"),
    "big5.txt": ("big5", "知識庫幫助使用者整理文件。關鍵詞：鳳梨酥餅。", "鳳梨酥餅"),
    "sjis.txt": ("shift_jis", "ベクトル検索について。キーワード：さくらんぼ。", "さくらんぼ"),
    "euckr.txt": ("euc_kr", "오늘은 벡터 검색에 대해 이야기합니다. 키워드: 나비효과.", "나비효과"),
    "cp1252.txt": ("cp1252", "Le système aide l’utilisateur : crèmebrûlée.", "crèmebrûlée"),
    "latin1.txt": ("latin-1", "Die Größe der Bücher: Gemütlichkeit.", "Gemütlichkeit"),
    "utf16le.txt": ("utf-16-le", "UTF-16 without a byte-order mark: zanzibar.", "zanzibar"),
    "utf16be.txt": ("utf-16-be", "Big-endian UTF-16 without a mark: quixotic.", "quixotic"),
}


def issue31_cases(tmp: Path, src: Path, timeout: float) -> list[tuple[str, float, float, str]]:
    """Backend cases: each a fresh data directory, one folder of files (or one entity)."""
    rows: list[tuple[str, float, float, str]] = []

    def folder_case(label: str, files: dict[bytes, bytes], words: dict[str, str]) -> None:
        case = tmp / f"b{len(rows)}"
        (case / "docs").mkdir(parents=True)
        for name, data in files.items():
            (case / "docs").joinpath(os.fsdecode(name)).write_bytes(data)
        args = [str(case / "data"), "folder", str(case / "docs"), json.dumps(words)]
        rows.append((label, *run_case(src, BACKEND, args, timeout)))
        print(rows[-1], file=sys.stderr, flush=True)

    good = {b"good.md": b"# Notes\n\nThe walrus password is here.\n"}
    for columns, mb in ((5_000, 2), (5_000, 6), (1_500, 2)):
        table = _wide_table(columns, mb).encode()
        folder_case(
            f"31 Markdown table, {columns:,} columns, {mb} MB", {b"wide.md": table, **good}, {}
        )
    row = "<tr>" + "<td>x</td>" * 3_000 + "</tr>"
    page = f"<html><body><table>{row * 60}</table></body></html>".encode()
    folder_case("31 HTML table, 3,000 columns × 60 rows", {b"wide.html": page, **good}, {})
    folder_case("31 text, 400,000 one-letter paragraphs", {b"many.txt": b"a\n\n" * 400_000}, {})
    legacy = {name.encode(): text.encode(enc) for name, (enc, text, _w) in LEGACY.items()}
    words = {name: word for name, (_e, _t, word) in LEGACY.items()}
    folder_case("31 legacy encodings, 8 files", legacy, words)
    names = {b"caf\xe9 \xb1\xa8\xb8\xe6.md": b"invalid name\n"}
    names |= {f"good{i:02}.md".encode(): f"good file {i}\n".encode() for i in range(20)}
    folder_case("31 file name not UTF-8, then 20 good files", names, {})
    case = tmp / "alias"
    args = [str(case / "data"), "alias", "200000"]
    rows.append(("31 entity alias of 200,000 characters", *run_case(src, BACKEND, args, timeout)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--timeout", type=float, default=45.0)
    parser.add_argument("--only", choices=("19", "31", "35"), help="one issue's cases only")
    args = parser.parse_args()
    rows: list[tuple[str, float, float, str]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.only in (None, "35"):
            rows += format_cases(args.src, max(args.timeout, 60.0), PARSE, run_case)
        if args.only == "35":
            _print(args, rows)
            return
        if args.only in (None, "31"):
            rows += issue31_cases(tmp, args.src, max(args.timeout, 120.0))
            rows += stream_cases(args.src, args.timeout, PRELUDE, run_case, raw_server)
        if args.only == "31":
            _print(args, rows)
            return

        def sync_case(label: str, target: str, action: str) -> None:
            case = tmp / label
            (case / "docs").mkdir(parents=True)
            (case / "data").mkdir()
            (case / "outside.md").write_text("outsidesecretmarker salary\n", encoding="utf-8")
            (case / "docs" / "a.md").write_text("alpha\n", encoding="utf-8")
            (case / "docs" / "b.md").write_text("bravo\n", encoding="utf-8")
            if target == "docx":
                for name, data in malformed_docx().items():
                    (case / "docs" / f"{name}.docx").write_bytes(data)
                target = "none"
            real_action = str(case / "outside.md") if action == "outside" else action
            result = run_case(
                args.src,
                SYNC,
                [str(case / "data"), str(case / "docs"), target, real_action],
                args.timeout,
            )
            rows.append((label, *result))

        sync_case("1 file swapped for a link to outside", "b.md", "outside")
        sync_case("2 file swapped for a FIFO", "a.md", "fifo")
        sync_case("2 file swapped for a link to /dev/zero", "a.md", "/dev/zero")
        sync_case("3 five malformed DOCX then good files", "docx", "none")

        for label, data in (
            ("4 DOCX bomb, 97 KB (30 MB document.xml)", docx_bomb(30)),
            ("4 DOCX bomb, 300 MB document.xml", docx_bomb(300)),
            ("4 DOCX, 100k numbered paragraphs", docx_bomb(3, varied=True)),
        ):
            path = tmp / "case.docx"
            path.write_bytes(data)
            rows.append(
                (
                    f"{label} [{len(data) // 1024} KB]",
                    *run_case(args.src, PARSE, [str(path), "x.docx"], args.timeout),
                )
            )
        for label, data in (
            ("HTML, 40,000 unclosed divs", b"<div>" * 40_000 + b"<p>x</p>"),
            ("text, random bytes without NUL", bytes((i * 7919) % 127 + 1 for i in range(200_000))),
        ):
            path = tmp / "case.bin"
            path.write_bytes(data)
            name = "x.html" if label.startswith("HTML") else "x.txt"
            rows.append((label, *run_case(args.src, PARSE, [str(path), name], args.timeout)))

        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
        with raw_server(trickle(head, 0.3)) as base:
            rows.append(
                (
                    "5 headers one byte every 0.3 s (3 s limit)",
                    *run_case(args.src, FETCH, [base, "3"], args.timeout),
                )
            )
        bomb = gzip.compress(gzip.compress(b"\0" * (1024 * 1024 * 1024)))
        with raw_server(encoded(bomb, "gzip, gzip")) as base:
            rows.append(
                (
                    f"6 'gzip, gzip' bomb, {len(bomb)} bytes",
                    *run_case(args.src, FETCH, [base, "20"], args.timeout),
                )
            )
        reply = json.dumps(
            {"data": [{"index": 0, "embedding": [0.1 * i for i in range(8)]}]}
        ).encode()
        slow = (
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(reply)}\r\n\r\n".encode()
            + reply
        )
        with raw_server(trickle(slow, 0.2)) as base:
            rows.append(
                (
                    "7 embedding reply trickled (2 s timeout)",
                    *run_case(args.src, EMBED, [base, "2"], args.timeout),
                )
            )

    _print(args, rows)


def _print(args: argparse.Namespace, rows: list[tuple[str, float, float, str]]) -> None:
    print(
        f"source: {args.src}   (timeout {args.timeout:.0f} s, 120 s for a backend case, and"
        f" {MEMORY_CAP_MB} MB address space per case; machine shared)"
    )
    print(f"{'case':<52} {'time s':>7} {'peak MB':>8}  outcome   (time: the operation alone)")
    for label, elapsed, peak, outcome in rows:
        print(f"{label:<52} {elapsed:>7.1f} {peak:>8.0f}  {outcome}")


if __name__ == "__main__":
    main()
