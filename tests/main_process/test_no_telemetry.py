"""ONNX Runtime (OCR, the int8 encoder and the int8 vector scan) never sets up its telemetry: no
device identifier or offline upload cache appears in the user's home, and nothing is sent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import goodbuddy_kb  # the product's processes all import the package first
import numpy as np
from goodbuddy_kb.main_process.vectors import int8_kernel
int8_kernel.dots(np.zeros((1, 384), np.uint8), np.zeros((384, 64), np.int8))
"""


def test_onnx_runtime_leaves_no_telemetry_files_in_home(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env["HOME"] = str(tmp_path)
    env["XDG_CACHE_HOME"] = str(tmp_path / ".cache")
    subprocess.run([sys.executable, "-c", SCRIPT], env=env, check=True, timeout=120)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()) == []
