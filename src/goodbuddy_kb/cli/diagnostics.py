"""`goodbuddy-kb diagnostics export FILE` and `goodbuddy-kb diagnostics show`: the local
diagnostics record (PRD §13) for a request for help — a redacted JSON bundle with no query text,
document text, file names, keys or URL credentials."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import emit
from goodbuddy_kb.contracts import diagnostics as d
from goodbuddy_kb.contracts.methods import DIAGNOSTICS_EXPORT, DIAGNOSTICS_SUMMARY


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser("diagnostics", help="show or export the local diagnostics record")
    cmds = p.add_subparsers(dest="action", required=True)
    e = cmds.add_parser("export", parents=[common], help="write a redacted JSON bundle to FILE")
    e.add_argument("file", metavar="FILE")
    e.add_argument("--force", action="store_true", help="replace FILE if it exists")
    cmds.add_parser("show", parents=[common], help="totals by kind of work")


def cmd_diagnostics(args: argparse.Namespace, session: Session) -> int:
    if args.action == "export":
        target = Path(args.file).expanduser().absolute()
        res = session.client.call(
            DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(target), overwrite=args.force)
        )
        emit(
            args,
            res.to_wire(),
            f"wrote {res.path} ({res.bytes // 1024 or 1} KB, {res.events} events); it holds no"
            " query text, document text, file names, keys or URL credentials",
        )
        return 0
    summary = session.client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=0))
    lines = [f"{summary.events} events recorded (the newest {summary.capacity} are kept)"]
    for t in summary.totals:
        lines.append(
            f"{t.kind:<10} {t.count:>6}  ok {t.ok}  degraded {t.degraded}  failed {t.failed}"
            f"  cancelled {t.cancelled}  average {t.average_ms:,.0f} ms"
        )
    emit(args, summary.to_wire(), "\n".join(lines))
    return 0
