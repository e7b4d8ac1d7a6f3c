"""Reading order: recognised lines (boxes) → rows → paragraphs, by geometry alone.

Pure functions, no image or model: lines are sorted top to bottom, lines whose vertical
centres fall within half a line height of each other form a row (read left to right), and a
paragraph ends where the gap to the next row is larger than ``PARAGRAPH_GAP`` line heights or
the next row starts clearly further right (an indented first line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import median

#: A vertical gap (in median line heights) above which a new paragraph starts.
PARAGRAPH_GAP = 0.8
#: An indent (in median line heights) that starts a new paragraph.
INDENT = 1.5


@dataclass(frozen=True)
class Line:
    text: str
    confidence: float
    left: float
    top: float
    right: float
    bottom: float

    @property
    def height(self) -> float:
        return max(1.0, self.bottom - self.top)

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


def line_from_box(text: str, confidence: float, box: list[list[float]]) -> Line:
    """A line from a four-point box (any rotation: its bounding rectangle)."""
    xs = [p[0] for p in box]
    ys = [p[1] for p in box]
    return Line(text, float(confidence), min(xs), min(ys), max(xs), max(ys))


def rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into rows, top to bottom, each row left to right."""
    result: list[list[Line]] = []
    for line in sorted(lines, key=lambda item: (item.middle, item.left)):
        if result:
            row = result[-1]
            row_middle = sum(item.middle for item in row) / len(row)
            row_height = max(item.height for item in row)
            if abs(line.middle - row_middle) < 0.5 * min(row_height, line.height):
                row.append(line)
                continue
        result.append([line])
    return [sorted(row, key=lambda item: item.left) for row in result]


def _cjk(char: str) -> bool:
    return bool(re.match(r"[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]", char))


def join_text(left: str, right: str) -> str:
    """Join two pieces of one paragraph: no space between CJK characters, one otherwise."""
    if not left:
        return right
    if not right:
        return left
    if _cjk(left[-1]) or _cjk(right[0]):
        return left + right
    return left + " " + right


@dataclass(frozen=True)
class Paragraph:
    text: str
    lines: tuple[Line, ...]


def paragraphs(lines: list[Line]) -> list[Paragraph]:
    """Rows joined into paragraphs in reading order."""
    grouped = rows([line for line in lines if line.text.strip()])
    if not grouped:
        return []
    height = median(line.height for row in grouped for line in row)
    left_edge = min(row[0].left for row in grouped)
    result: list[Paragraph] = []
    current: list[list[Line]] = []
    for row in grouped:
        if current:
            previous = current[-1]
            gap = min(item.top for item in row) - max(item.bottom for item in previous)
            indented = row[0].left - left_edge > INDENT * height and (
                previous[0].left - left_edge <= INDENT * height
            )
            if gap > PARAGRAPH_GAP * height or indented:
                result.append(_paragraph(current))
                current = []
        current.append(row)
    result.append(_paragraph(current))
    return result


def _paragraph(rows_: list[list[Line]]) -> Paragraph:
    text = ""
    for row in rows_:
        for line in row:
            text = join_text(text, line.text.strip())
    return Paragraph(text, tuple(line for row in rows_ for line in row))
