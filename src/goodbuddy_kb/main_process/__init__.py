"""The privileged backend process: owns SQLite, files, credentials and network.

Start it with ``python -m goodbuddy_kb.main_process``; the launcher in :mod:`goodbuddy_kb.bridge`
does that and hands over the per-launch secret on standard input.
"""

from __future__ import annotations
