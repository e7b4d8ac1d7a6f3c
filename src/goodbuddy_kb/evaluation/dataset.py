"""Reading an evaluation dataset in the shared layout (shared/benchmarks/README.md):
`dataset.json`, `corpus/`, `queries.jsonl` with id, query, lang, relevant [{doc, answers}],
optional exclude (and an optional `tags` list this project's fixtures use)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Relevant:
    doc: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    lang: str
    relevant: tuple[Relevant, ...]
    exclude: frozenset[str] = frozenset()
    tags: tuple[str, ...] = ()


@dataclass
class Dataset:
    name: str
    root: Path
    queries: list[Query] = field(default_factory=list)

    @property
    def corpus(self) -> Path:
        return self.root / "corpus"


class DatasetError(Exception):
    pass


def load(root: Path) -> Dataset:
    root = root.resolve()
    if not (root / "corpus").is_dir() or not (root / "queries.jsonl").is_file():
        raise DatasetError(
            f"{root} is not a dataset folder (corpus/ and queries.jsonl are required)"
        )
    meta = {}
    if (root / "dataset.json").is_file():
        meta = json.loads((root / "dataset.json").read_text(encoding="utf-8"))
    dataset = Dataset(str(meta.get("name", root.name)), root)
    seen: set[str] = set()
    for number, line in enumerate(
        (root / "queries.jsonl").read_text(encoding="utf-8").splitlines(), start=1
    ):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            query = Query(
                id=str(raw["id"]),
                text=str(raw["query"]),
                lang=str(raw["lang"]),
                relevant=tuple(
                    Relevant(str(r["doc"]), tuple(str(a) for a in r.get("answers", [])))
                    for r in raw["relevant"]
                ),
                exclude=frozenset(str(e) for e in raw.get("exclude", [])),
                tags=tuple(str(t) for t in raw.get("tags", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(
                f"queries.jsonl line {number} is malformed ({exc.__class__.__name__})"
            ) from exc
        if query.id in seen:
            raise DatasetError(f"queries.jsonl line {number}: duplicate id")
        seen.add(query.id)
        dataset.queries.append(query)
    return dataset
