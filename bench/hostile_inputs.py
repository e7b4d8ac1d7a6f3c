"""Time and peak memory of each hostile input of issue 19, in a child process per case.

    python bench/hostile_inputs.py                      # this tree
    python bench/hostile_inputs.py --src OLD/src        # another tree (e.g. before the fixes)

Each case runs in its own Python process (``PYTHONPATH`` = the chosen ``src``) so its peak
resident memory is its own (``wait4``); a case still running at ``--timeout`` seconds is killed
and reported as such. Loopback servers with the misbehaviour run in this process. The outcome
column says what the code did: the reason it gave, or the exception that escaped.
"""

from __future__ import annotations

import argparse
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
    )
    peak = 0.0
    killed = False
    while child.poll() is None:
        peak = max(peak, _hwm(child.pid))
        if time.monotonic() - started > timeout:
            child.send_signal(signal.SIGKILL)
            child.wait()
            killed = True
            break
        time.sleep(0.05)
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--timeout", type=float, default=45.0)
    args = parser.parse_args()
    rows: list[tuple[str, float, float, str]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)

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

        rows += stream_cases(args.src, args.timeout, PRELUDE, run_case, raw_server)

    print(
        f"source: {args.src}   (timeout {args.timeout:.0f} s and {MEMORY_CAP_MB} MB address"
        " space per case; machine shared)"
    )
    print(f"{'case':<52} {'time s':>7} {'peak MB':>8}  outcome   (time: the operation alone)")
    for label, elapsed, peak, outcome in rows:
        print(f"{label:<52} {elapsed:>7.1f} {peak:>8.0f}  {outcome}")


if __name__ == "__main__":
    main()
