"""Install test of the Linux packages, as a new user would meet them: no Python, no checkout.

    python packaging/test_install.py --deb dist/goodbuddy-kb_0.1.0_amd64.deb   (as root)
    python packaging/test_install.py --tarball dist/goodbuddy-kb-0.1.0-linux-x86_64.tar.gz

Each installed program runs with a clean environment (``env -i`` with only an empty ``HOME``,
``PATH`` and ``QT_QPA_PLATFORM=offscreen``): ``--version``; a library built from
``fixtures/eval`` and a Chinese and an English question answered by the bundled embedding model,
the expected documents first; ``goodbuddy-kb mcp`` listing its tools over stdio (raw JSON-RPC);
the window opened from the menu entry's ``Exec`` line and closed (``--smoke``); for the .deb,
Qt's X11 platform plugin finding every library it loads (``ldd``); uninstalled,
leaving no program files and the user's data directory. Standard library only.
`test_install.sh` (`make test-install`) runs the two packages' tests side by side.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: (question, the document that must rank first), from fixtures/eval/queries.jsonl
QUESTIONS = [
    ("去北京出差酒店一晚最多能报多少钱", "zh/travel.md"),
    ("what hardware does a production gateway server need", "en/orion-install.md"),
]
MCP_TOOLS = {"list_libraries", "knowledge_search", "get_reference_context"}
DEB_DESKTOP_FILE = "/usr/share/applications/goodbuddy-kb.desktop"
DEB_FILES = [
    "/opt/goodbuddy-kb/goodbuddy-kb",
    "/opt/goodbuddy-kb/THIRD_PARTY_NOTICES",
    "/usr/bin/goodbuddy-kb",
    DEB_DESKTOP_FILE,
    "/usr/share/icons/hicolor/scalable/apps/goodbuddy-kb.svg",
    "/usr/share/icons/hicolor/256x256/apps/goodbuddy-kb.png",
]


class Failed(Exception):
    """A check a user would notice did not hold."""


def clean_env(home: Path, path: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": path, "QT_QPA_PLATFORM": "offscreen"}


def run(argv: list[str], env: dict[str, str], timeout: float = 600) -> str:
    started = time.monotonic()
    done = subprocess.run(
        argv, check=False, env=env, capture_output=True, text=True, timeout=timeout
    )
    took = time.monotonic() - started
    print(f"  $ {' '.join(argv)}  ({took:.1f} s, exit {done.returncode})", flush=True)
    if done.returncode != 0:
        raise Failed(f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def check_retrieval(exe: str, env: dict[str, str], corpus: Path) -> None:
    run([exe, "library", "create", "Eval"], env)
    run([exe, "source", "add", "Eval", str(corpus)], env, timeout=1200)
    for question, expected in QUESTIONS:
        answer = json.loads(run([exe, "retrieve", "Eval", question, "--json"], env))
        diagnostics = answer["diagnostics"]
        first = answer["results"][0] if answer["results"] else {}
        if first.get("documentPath") != expected:
            raise Failed(f"{question!r}: first is {first.get('documentPath')}, not {expected}")
        if "vector" not in diagnostics["usedChannels"] or first.get("vectorSimilarity") is None:
            raise Failed(f"{question!r}: the bundled model was not used: {diagnostics}")
        print(f"    {question!r} → {expected} (similarity {first['vectorSimilarity']:.3f})")


def check_mcp(exe: str, env: dict[str, str]) -> None:
    """`goodbuddy-kb mcp` answers initialize and tools/list (newline-delimited JSON-RPC)."""
    server = subprocess.Popen(
        [exe, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdin is not None and server.stdout is not None

    def ask(message: dict[str, object]) -> dict[str, object] | None:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        if "id" not in message:
            return None
        while line := server.stdout.readline():
            reply: dict[str, object] = json.loads(line)
            if reply.get("id") == message["id"]:
                return reply
        raise Failed(f"the MCP server closed its output before answering {message['method']}")

    try:
        ask(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "install-test", "version": "1"},
                },
            }
        )
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        reply = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) or {}
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    result = reply.get("result")
    names = {tool["name"] for tool in result["tools"]} if isinstance(result, dict) else set()
    if not names >= MCP_TOOLS:
        raise Failed(f"tools/list: {reply}")
    print(f"    mcp tools: {', '.join(sorted(names))}")


def desktop_exec(desktop_file: Path) -> list[str]:
    for line in desktop_file.read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            return line.removeprefix("Exec=").split()
    raise Failed(f"{desktop_file} has no Exec line")


def check_program(exe: str, env: dict[str, str], desktop_file: Path, version: str) -> None:
    out = run([exe, "--version"], env)
    if version not in out:
        raise Failed(f"--version printed {out!r}, expected {version}")
    corpus = Path(env["HOME"]) / "documents"
    shutil.copytree(ROOT / "fixtures" / "eval" / "corpus", corpus)
    check_retrieval(exe, env, corpus)
    check_mcp(exe, env)
    run([*desktop_exec(desktop_file), "--smoke"], env, timeout=180)


def data_dir_left(home: Path) -> None:
    database = home / ".local" / "share" / "goodbuddy-kb" / "goodbuddy-kb.sqlite3"
    if not database.is_file():
        raise Failed(f"uninstalling removed the user's data ({database})")


def check_x11_libraries(bundle: Path) -> None:
    """Qt's X11 platform plugin finds every library it loads, as the bundle's loader looks for
    them (its own folder, then the system). The window opened by ``--smoke`` is offscreen, so a
    missing one shows only on a desktop: Qt then names one of them and the window never opens."""
    internal = bundle / "_internal"
    plugins = sorted(internal.rglob("platforms/libqxcb.so"))
    if not plugins:
        raise Failed(f"no X11 platform plugin in {internal}")
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(internal)}
    out = run(["ldd", str(plugins[0])], env)
    missing = sorted({line.split()[0] for line in out.splitlines() if "not found" in line})
    if missing:
        raise Failed(f"the X11 platform plugin cannot load {missing}")
    print("    the X11 platform plugin finds all its libraries")


def test_deb(deb: Path, version: str) -> None:
    print(f"deb: {deb.name}", flush=True)
    home = Path(tempfile.mkdtemp(prefix="gbkb-deb-home-"))
    system = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"}
    # as a user installs a downloaded .deb: apt brings the system libraries it depends on
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", str(deb)]
    try:
        run(install, system)
    except Failed:
        run(["apt-get", "update", "-qq"], system)  # a bare image has no package lists yet
        run(install, system)
    missing = [f for f in DEB_FILES if not Path(f).exists()]
    if missing:
        raise Failed(f"the .deb did not install {missing}")
    check_x11_libraries(Path("/opt/goodbuddy-kb"))
    env = clean_env(home, "/usr/bin:/bin")
    check_program("goodbuddy-kb", env, Path(DEB_DESKTOP_FILE), version)
    run(["apt-get", "remove", "-y", "-qq", "goodbuddy-kb"], system)
    left = [f for f in [*DEB_FILES, "/opt/goodbuddy-kb"] if Path(f).exists()]
    if left:
        raise Failed(f"uninstalling left {left}")
    data_dir_left(home)
    shutil.rmtree(home)


def test_tarball(tarball: Path, version: str) -> None:
    print(f"tar.gz: {tarball.name}", flush=True)
    home = Path(tempfile.mkdtemp(prefix="gbkb-tar-home-"))
    unpacked = Path(tempfile.mkdtemp(prefix="gbkb-tar-"))
    run(["tar", "-xzf", str(tarball), "-C", str(unpacked)], clean_env(home, "/usr/bin:/bin"))
    (installer,) = unpacked.glob("*/install.sh")
    env = clean_env(home, f"{home}/.local/bin:/usr/bin:/bin")
    run(["sh", str(installer)], env)
    shutil.rmtree(unpacked)  # the installed program must not need the archive
    desktop_file = home / ".local" / "share" / "applications" / "goodbuddy-kb.desktop"
    check_program("goodbuddy-kb", env, desktop_file, version)
    run([str(home / ".local" / "lib" / "goodbuddy-kb" / "uninstall.sh")], env)
    program_files = [
        p
        for p in home.rglob("*")
        if p.is_file() and ".local/share/goodbuddy-kb" not in str(p) and "documents" not in p.parts
    ]
    if program_files:
        raise Failed(f"uninstalling left {program_files[:10]}")
    data_dir_left(home)
    shutil.rmtree(home)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deb", type=Path)
    parser.add_argument("--tarball", type=Path)
    parser.add_argument("--version", required=True, help="the version --version must print")
    args = parser.parse_args()
    started = time.monotonic()
    try:
        if args.deb:
            test_deb(args.deb.resolve(), args.version)
        if args.tarball:
            test_tarball(args.tarball.resolve(), args.version)
    except (Failed, subprocess.TimeoutExpired) as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"install tests passed in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
