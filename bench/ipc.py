"""IPC benchmark: median round trip of `system:ping` and of a ~1 MiB response over the real
socket, beside the same calls dispatched in-process (no socket). Prints ratios.

    .venv/bin/python bench/ipc.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from _timing import median_ms
from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, LIBRARY_LIST, SYSTEM_PING
from goodbuddy_kb.contracts.system import PingRequest
from goodbuddy_kb.contracts.wire import encode_frame, request_message
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        backend = BackendProcess.start(data_dir)
        try:
            client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open()
            # ~1 MiB list response: libraries with 100-character names.
            count = 0
            while True:
                name = f"{count:06d}-" + "知" * 93
                client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name=name))
                count += 1
                if count % 500 == 0:
                    size = len(
                        encode_frame(client.call(LIBRARY_LIST, c.LibraryListRequest()).to_wire())
                    )
                    if size >= 1024 * 1024:
                        break
            ping_socket = median_ms(
                lambda: client.call(SYSTEM_PING, PingRequest()), args.rounds, warmup=20
            )
            big_socket = median_ms(
                lambda: client.call(LIBRARY_LIST, c.LibraryListRequest()),
                max(20, args.rounds // 40),
                warmup=20,
            )
            client.close()
        finally:
            backend.stop()
        pool = open_database(data_dir)
        services = Services.start(pool, data_dir, lambda _m, _p: None)
        dispatcher = Dispatcher(services)
        ping_msg = request_message(1, SYSTEM_PING.name, {})
        list_msg = request_message(1, LIBRARY_LIST.name, {})
        ping_direct = median_ms(lambda: dispatcher.dispatch(ping_msg), args.rounds, warmup=20)
        big_direct = median_ms(
            lambda: dispatcher.dispatch(list_msg), max(20, args.rounds // 40), warmup=20
        )
        services.stop()
        pool.close_all()
    print(f"response of {size / 1048576:.2f} MiB = {count} libraries")
    print(f"{'call':<22}{'socket ms':>12}{'in-process ms':>16}{'ratio':>8}")
    print(
        f"{'system:ping':<22}{ping_socket:>12.3f}{ping_direct:>16.3f}{ping_socket / ping_direct:>8.1f}"
    )
    print(
        f"{'1 MiB library list':<22}{big_socket:>12.3f}{big_direct:>16.3f}{big_socket / big_direct:>8.2f}"
    )
    print(
        json.dumps(
            {
                "pingSocketMs": ping_socket,
                "pingDirectMs": ping_direct,
                "bigSocketMs": big_socket,
                "bigDirectMs": big_direct,
            }
        )
    )


if __name__ == "__main__":
    main()
