"""Time and peak memory of the hostile presentations, OpenDocument files and RTF of issue 35, in
a child process per case (the harness of ``bench/hostile_inputs.py``).

    python bench/hostile_slides.py                      # this tree
    python bench/hostile_slides.py --src OLD/src        # another tree
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.hostile_inputs import PARSE, _print, run_case  # noqa: E402
from tests.slidegen import (  # noqa: E402
    make_odp,
    make_odt,
    make_pptx,
    make_rtf,
    pptx_with_slides,
    rtf_escaped,
    with_member,
)


def cases() -> list[tuple[str, str, bytes]]:
    zeros = b"\0" * (300 * 1024 * 1024)
    many_rows = [["Item", "Value"]] + [[f"row {i}", str(i)] for i in range(20_000)]
    long_body = [("p", f"paragraph text number {i} with words") for i in range(150_000)]
    return [
        ("PPTX, 10,000 slides", "x.pptx", pptx_with_slides(10_000)),
        ("PPTX, 900 slides", "x.pptx", pptx_with_slides(900)),
        ("PPTX bomb, 300 MB of zeros", "x.pptx", with_member(make_pptx([]), "z.bin", zeros)),
        ("ODP, 10,000 pages", "x.odp", make_odp([{"boxes": [("p", 1, 1)]}] * 10_000)),
        ("ODP bomb, 300 MB of zeros", "x.odp", with_member(make_odp([]), "z.bin", zeros)),
        ("ODT bomb, 300 MB of zeros", "x.odt", with_member(make_odt([]), "z.bin", zeros)),
        ("ODT, 150,000 paragraphs (8 MB body)", "x.odt", make_odt(long_body)),
        ("ODT, a 20,000-row table", "x.odt", make_odt([("table", many_rows)])),
        (
            "RTF, 18 MB of GBK escapes",
            "x.rtf",
            make_rtf([rtf_escaped("中文段落内容很多") * 120] * 5000),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, name, data in cases():
            path = Path(tmp) / name
            path.write_bytes(data)
            outcome = run_case(args.src, PARSE, [str(path), name], args.timeout)
            rows.append((f"{label} [{len(data) // 1024} KB]", *outcome))
    _print(args, rows)


if __name__ == "__main__":
    main()
