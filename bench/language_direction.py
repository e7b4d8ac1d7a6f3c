"""Derives the bundled model's language direction (``embeddings/language_fit.py``): the unit
vector from the mean embedding of English passages to the mean embedding of Chinese ones.

The model's similarities carry the language of the text as well as its meaning, so in a library
holding both languages every same-language passage outranks the other language's answer. The
vector channel takes this direction out of the question's embedding (``embeddings/language.py``);
see ARCHITECTURE.md for the figures. Reference texts are any long Chinese and English prose that
no evaluation set contains; the shipped direction was derived from the product requirements and
user stories (Chinese) and ARCHITECTURE.md and README.md (English):

    .venv/bin/python bench/language_direction.py \\
        --zh ../shared/spec/knowledge-rag-enhancement-prd.md \\
        --zh ../shared/spec/knowledge-rag-enhancement-user-stories.md \\
        --en ARCHITECTURE.md --en README.md --write
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

from goodbuddy_kb.main_process.embeddings.local import LocalE5Provider
from goodbuddy_kb.main_process.lexical.tokens import is_cjk

FIT = (
    Path(__file__).resolve().parents[1] / "src/goodbuddy_kb/main_process/embeddings/language_fit.py"
)


def passages(paths: list[Path], cjk: bool) -> list[str]:
    """Paragraphs of at least 20 characters (headings alone left out), each wholly in the one
    language: mostly CJK characters for Chinese, none for English."""
    out = []
    for path in paths:
        for raw in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            para = raw.strip()
            if len(para) < 20 or (para.startswith("#") and "\n" not in para):
                continue
            han = sum(1 for ch in para if is_cjk(ch))
            words = len(re.findall(r"[A-Za-z]+", para))
            if (cjk and han > words) or (not cjk and han == 0):
                out.append(para[:1000])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zh", type=Path, action="append", required=True)
    parser.add_argument("--en", type=Path, action="append", required=True)
    parser.add_argument("--write", action="store_true", help="write language_fit.py")
    args = parser.parse_args()
    zh, en = passages(args.zh, True), passages(args.en, False)
    model = LocalE5Provider()
    z = np.asarray(model.embed_passages(zh), dtype=np.float64)
    e = np.asarray(model.embed_passages(en), dtype=np.float64)
    direction = z.mean(axis=0) - e.mean(axis=0)
    gap = float(np.linalg.norm(direction))
    direction /= gap
    print(f"{len(zh)} Chinese and {len(en)} English passages; the means are {gap:.4f} apart")
    print(
        "projection on the direction: Chinese "
        f"{float((z @ direction).mean()):+.4f}, English {float((e @ direction).mean()):+.4f}"
    )
    if args.write:
        values = [f"{v:.6f}" for v in direction]
        rows = [", ".join(values[i : i + 8]) + "," for i in range(0, len(values), 8)]
        FIT.write_text(
            '"""The bundled model\'s language direction, written by '
            "``bench/language_direction.py --write``\n(do not edit by hand): a unit vector from the "
            'mean English passage to the mean Chinese one."""\n\n'
            "from __future__ import annotations\n\n"
            "# fmt: off\n"
            "DIRECTION: tuple[float, ...] = (\n"
            + "".join(f"    {row}\n" for row in rows)
            + ")\n# fmt: on\n",
            encoding="utf-8",
        )
        print(f"wrote {FIT}")


if __name__ == "__main__":
    main()
