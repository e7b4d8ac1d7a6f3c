"""How closely the bundled model's int8 encoder reproduces its float32 vectors: the cosine of
each text's two vectors over short sentences (cnsd-sts-b-train), long passages (cmrc2018-trial
paragraphs and whole articles, several 510-token windows) and the sets' queries, with the
minimum, mean and 1st percentile per group. Both encoders run in this process on one lane each.

    .venv/bin/python bench/encoder_agreement.py [--sentences 1500] [--paragraphs 400]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

import numpy as np

from goodbuddy_kb.main_process.embeddings.local import _blas_threads_here, _int8_model, _model

BENCHMARKS = Path(__file__).resolve().parents[1] / "../shared/benchmarks"


def groups(root: Path, sentences: int, paragraphs: int) -> dict[str, tuple[list[str], bool]]:
    short = sorted((root / "cnsd-sts-b-train" / "corpus").rglob("*.md"))[:sentences]
    articles = sorted((root / "cmrc2018-trial" / "corpus").glob("*.md"))
    paras = [p for a in articles for p in a.read_text("utf-8").split("\n\n") if len(p) > 80]
    queries = [
        json.loads(line)["query"]
        for name in ("cmrc2018-trial", "cnsd-sts-b-train")
        for line in (root / name / "queries.jsonl").read_text("utf-8").splitlines()[:200]
    ]
    return {
        "cnsd sentences": ([p.read_text("utf-8") for p in short], False),
        "cmrc paragraphs": (paras[:paragraphs], False),
        "cmrc articles": ([a.read_text("utf-8") for a in articles[:40]], False),
        "queries": (queries, True),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--benchmarks", type=Path, default=BENCHMARKS)
    parser.add_argument("--sentences", type=int, default=1500)
    parser.add_argument("--paragraphs", type=int, default=400)
    args = parser.parse_args()
    f32, int8 = _model(), _int8_model()
    all_cos = []
    for name, (texts, is_query) in groups(args.benchmarks, args.sentences, args.paragraphs).items():
        out: dict[str, np.ndarray] = {}

        def run(
            key: str,
            texts: list[str] = texts,
            is_query: bool = is_query,
            out: dict[str, np.ndarray] = out,
        ) -> None:
            _blas_threads_here(1)
            encoder = f32 if key == "float32" else int8
            out[key] = encoder.encode(texts, is_query=is_query)

        lanes = [threading.Thread(target=run, args=(k,)) for k in ("float32", "int8")]
        for lane in lanes:
            lane.start()
        for lane in lanes:
            lane.join()
        cos = (out["float32"] * out["int8"]).sum(axis=1)
        all_cos.append(cos)
        print(
            f"{name:<16}{len(texts):>6} texts  cosine min {cos.min():.4f}  p1"
            f" {np.percentile(cos, 1):.4f}  mean {cos.mean():.4f}",
            flush=True,
        )
    cos = np.concatenate(all_cos)
    print(f"{'all':<16}{len(cos):>6} texts  cosine min {cos.min():.4f}  mean {cos.mean():.4f}")
    sys.exit(0 if cos.min() >= 0.98 else 1)


if __name__ == "__main__":
    main()
