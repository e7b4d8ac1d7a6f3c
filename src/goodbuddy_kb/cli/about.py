"""`goodbuddy-kb notices` and `goodbuddy-kb --version`: what this build is and the licences of
what it ships. Neither needs a backend or a data directory (a packager writes
`THIRD_PARTY_NOTICES` from `notices`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from goodbuddy_kb import __version__, notices


def add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"goodbuddy-kb {__version__}")


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "notices",
        help="print the third-party notices (bundled models, runtime packages, licences)",
        description="The bundled models and every installed runtime package with its version, "
        "licence and home page.",
    )
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="JSON output")


def cmd_notices(args: argparse.Namespace) -> int:
    info = notices.about()
    if getattr(args, "json", False):
        payload = info.to_wire()
        del payload["dataDir"], payload["notices"]
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(info.notices, end="")
    return 0
