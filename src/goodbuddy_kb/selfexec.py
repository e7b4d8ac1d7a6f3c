"""How this program starts itself again: the backend child the window and the command line
launch, and the `goodbuddy-kb mcp` command other AI tools are given.

From a source checkout or a virtualenv that is this interpreter with ``-m`` (or the installed
``goodbuddy-kb`` script beside it). A frozen bundle (PyInstaller) has no interpreter to hand
``-m`` to: there ``sys.executable`` is the bundle's own ``goodbuddy-kb``, which runs the backend
when its first argument is ``BACKEND_COMMAND``.

The backend's environment bounds how long numpy's OpenBLAS worker threads spin after a matrix
product (``BLAS_ENVIRONMENT``): OpenBLAS reads it once, when it loads, so it is set for the child
here rather than by the backend itself, whose imports load numpy before its first line runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The bundle's first argument that makes it the backend process (not listed by ``--help``:
#: only the launcher uses it, with the launch secret on standard input).
BACKEND_COMMAND = "backend"


def is_frozen() -> bool:
    """True inside a frozen bundle, where ``sys.executable`` is the application itself."""
    return bool(getattr(sys, "frozen", False))


def backend_argv() -> list[str]:
    """argv that starts the backend process (``--data-dir`` and the rest follow)."""
    if is_frozen():
        return [str(Path(sys.executable).absolute()), BACKEND_COMMAND]
    return [sys.executable, "-m", "goodbuddy_kb.main_process"]


#: OpenBLAS's workers spin (busy-wait with sched_yield) for 2^N CPU cycles after each product
#: before they sleep: N = 28 by default, about 0.1 s at 2.5 GHz, so every query left a core busy
#: for a tenth of a second after its answer. 2^22 cycles (1-2 ms) still spans the gap between the
#: pages of a vector scan and the layers of a query's embedding, so the team stays awake while
#: it has work; after the last product the backend is idle within milliseconds. Waking a
#: sleeping worker costs tens of microseconds. A value already in the environment is kept.
BLAS_ENVIRONMENT = {"OPENBLAS_THREAD_TIMEOUT": "22"}


def backend_env() -> dict[str, str]:
    """The environment the backend child starts with: this process's, plus ``BLAS_ENVIRONMENT``
    where it does not say otherwise."""
    return {**BLAS_ENVIRONMENT, **os.environ}


def program_argv() -> list[str]:
    """argv of the `goodbuddy-kb` command with absolute paths: the bundle's executable, else the
    installed script beside this interpreter when there is one, else the interpreter with
    ``-m goodbuddy_kb``."""
    interpreter = Path(sys.executable).absolute()
    if is_frozen():
        return [str(interpreter)]
    script = interpreter.parent / (
        "goodbuddy-kb.exe" if sys.platform == "win32" else "goodbuddy-kb"
    )
    return [str(script)] if script.is_file() else [str(interpreter), "-m", "goodbuddy_kb"]
