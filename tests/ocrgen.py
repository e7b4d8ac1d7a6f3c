"""Scanned-document fixtures made at test time: Chinese and English lines rendered with a CJK
font into PNG pages and an image-only PDF (no text layer), plus character accuracy.

The CJK font is a system one (``.ci/run`` installs Debian's fonts-noto-cjk): ``cjk_font()``
returns None when none is installed, and the Chinese lines are then left out with a reason.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
)
NO_CJK_FONT = "no CJK font installed (.ci/run installs fonts-noto-cjk): Chinese lines left out"

#: Page 1 and page 2 of the scanned notice: (Chinese, English) lines.
PAGES: list[list[str]] = [
    [
        "员工报销制度第三条：差旅费用须在三十日内提交。",
        "Expense claims must be filed within thirty days.",
        "签字确认后生效，解释权归行政部所有。",
    ],
    [
        "The quarterly budget review happens in March.",
        "会议纪要由秘书处统一归档保存。",
        "Visitors sign in at the front desk before noon.",
    ],
]


def cjk_font() -> str | None:
    for path in FONT_CANDIDATES:
        if Path(path).is_file():
            return path
    if shutil.which("fc-match"):
        found = subprocess.run(
            ["fc-match", "-f", "%{file}", ":lang=zh-cn"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if found and Path(found).is_file() and "cjk" in found.lower():
            return found
    return None


def is_cjk(line: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in line)


def page_lines(page: int) -> list[str]:
    """The lines of page ``page`` (1-based) that can be rendered on this machine."""
    font = cjk_font()
    return [line for line in PAGES[page - 1] if font is not None or not is_cjk(line)]


def render_page(lines: list[str], size: int = 30) -> Image.Image:
    """One page: an A4-proportioned white image (144 dpi width) with the lines in black."""
    path = cjk_font()
    font = ImageFont.truetype(path, size) if path else ImageFont.load_default(size)
    image = Image.new("RGB", (1190, 80 + 70 * len(lines) + 60), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((70, 80 + 70 * i), line, font=font, fill="black")
    return image


def smudge(image: Image.Image, top: int, bottom: int, factor: int = 4) -> Image.Image:
    """The band ``top``–``bottom`` pixelated (scaled down ``factor`` times and back up), as a
    poor scan or a photocopy of a photocopy leaves a line: still legible, recognised with less
    confidence than clean print."""
    band = image.crop((0, top, image.width, bottom))
    small = band.resize((band.width // factor, band.height // factor), Image.Resampling.BILINEAR)
    image.paste(small.resize(band.size, Image.Resampling.NEAREST), (0, top))
    return image


def png_with_smudged_line(clear: list[str], smudged: str) -> bytes:
    """A page of clear lines and, last, one smudged line (see :func:`smudge`)."""
    image = render_page([*clear, smudged])
    top = 80 + 70 * len(clear) - 15
    out = io.BytesIO()
    smudge(image, top, top + 70).save(out, "PNG")
    return out.getvalue()


def png(lines: list[str]) -> bytes:
    out = io.BytesIO()
    render_page(lines).save(out, "PNG")
    return out.getvalue()


def image_only_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose pages are pictures only: no text layer at all, as a scanner makes them."""
    images = [render_page(lines) for lines in pages]
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=144.0, save_all=True, append_images=images[1:])
    return out.getvalue()


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def character_accuracy(expected: str, recognised: str) -> float:
    """1 − (edit distance / expected length), over characters with all whitespace removed."""
    want = "".join(expected.split())
    got = "".join(recognised.split())
    if not want:
        return 1.0 if not got else 0.0
    return max(0.0, 1.0 - _distance(want, got) / len(want))
