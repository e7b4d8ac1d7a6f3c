"""Quality of local graph extraction on a dataset folder with gold entities and relations
(company-graph-dev's layout: ``corpus/*.md``, ``entities.jsonl``, ``graph_gold.jsonl``).

The corpus is imported the way a user imports a folder (a library, a folder source, the
product's own parsing and chunking), the library's graph is switched to the local strategy with
its default settings and extracted, and what the product wrote is scored as the dataset's
README defines it: names match after NFKC and case folding against an entity's name or alias;
entity precision, unordered pair recall and pair precision (an extracted relation with an
unmatched name counts against precision), typed accuracy — overall, per document language and
for the held-out documents (every fifth file, the ones not to tune on). Typed accuracy is given
twice: with the relation words compared as they are, and with the starter ontology's words
mapped onto the dataset's by the README's table (``crosswalk``: its ``owns`` is the dataset's
``owned_by`` or ``responsible_for``), since the first counts a difference of vocabulary as an
error; and the share of matched entities whose type is the dataset's.

    .venv/bin/python bench/graph_quality.py DATASET_DIR [--show-misses] [--only held-out|tuning]
    .venv/bin/python bench/graph_quality.py --junk CMRC_DIR [--sample 50] [--seed 30]

``--junk`` imports a folder of encyclopaedia articles (cmrc2018-trial's ``corpus``), prints a
seeded sample of extracted entities with their types for a human verdict, and counts names that
start or end with a function word or a measure word.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("GOODBUDDY_DEFAULT_EMBEDDING", "deterministic")

from goodbuddy_kb.contracts.graph import GraphSettings
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, SOURCE_ADD
from goodbuddy_kb.contracts.wire import request_message
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.extract import extract_library
from goodbuddy_kb.main_process.services import Services

#: Characters that never start or end a whole Chinese name (function words, measure words).
FUNCTION_EDGES = frozenset("的了和与及或在对向将把被为是从至到给跟每各该其此个种只张辆架艘晚任逾")


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def language(text: str) -> str:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return "zh" if cjk * 3 >= latin else "en"


@dataclass
class Extracted:
    """What the product extracted: entities (name, type, aliases, documents of their
    evidence) and relations (type, head, tail, documents of their evidence)."""

    entities: dict[str, tuple[str, str, list[str], set[str]]] = field(default_factory=dict)
    relations: list[tuple[str, str, str, set[str]]] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)


def _call(d: Dispatcher, name: str, params: dict[str, object]) -> dict[str, object]:
    reply = d.dispatch(request_message(1, name, params)).reply
    if "result" not in reply:
        raise RuntimeError(f"{name}: {reply}")
    return dict(reply["result"])


def extract(folder: Path) -> Extracted:
    """Imports ``folder`` into a new library and runs local extraction with default settings."""
    folder = folder.resolve()  # (a source's location is absolute)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir(mode=0o700)
        pool = open_database(data)
        services = Services.start(pool, data, lambda _m, _p: None)
        try:
            d = Dispatcher(services)
            library = _call(d, LIBRARY_CREATE.name, {"name": "Quality"})["library"]
            library_id = str(library["id"])  # type: ignore[index]
            _call(
                d,
                SOURCE_ADD.name,
                {
                    "libraryId": library_id,
                    "kind": "folder",
                    "location": str(folder),
                    "watch": False,
                },
            )
            services.tasks.wait_idle()
            conn = pool.get()
            store.update(conn, library_id, GraphSettings(strategy="local"), None)
            extract_library(conn, library_id, CancelToken())
            return _read(conn, library_id)
        finally:
            services.stop()
            pool.close_all()


def _read(conn: sqlite3.Connection, library_id: str) -> Extracted:
    out = Extracted()
    for path, content in conn.execute(
        "SELECT d.relative_path, c.content FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE c.library_id = ? AND c.role != 'parent' ORDER BY d.relative_path, c.ordinal",
        (library_id,),
    ):
        out.texts[path] = out.texts.get(path, "") + "\n" + content
    docs_of: dict[str, set[str]] = {}
    for entity_id, relation_id, path in conn.execute(
        "SELECT v.entity_id, v.relation_id, d.relative_path FROM graph_evidence v"
        " JOIN chunks c ON c.seq = v.chunk_seq JOIN documents d ON d.id = c.document_id"
        " WHERE v.library_id = ?",
        (library_id,),
    ):
        docs_of.setdefault(entity_id or relation_id, set()).add(path)
    aliases: dict[str, list[str]] = {}
    for entity_id, alias in conn.execute(
        "SELECT entity_id, alias FROM graph_aliases WHERE library_id = ?", (library_id,)
    ):
        aliases.setdefault(entity_id, []).append(alias)
    for entity_id, name, type_key in conn.execute(
        "SELECT id, name, type_key FROM graph_entities WHERE library_id = ?", (library_id,)
    ):
        out.entities[entity_id] = (
            name,
            type_key,
            aliases.get(entity_id, []),
            docs_of.get(entity_id, set()),
        )
    for relation_id, type_key, head, tail in conn.execute(
        "SELECT id, type_key, head_id, tail_id FROM graph_relations WHERE library_id = ?",
        (library_id,),
    ):
        out.relations.append((type_key, head, tail, docs_of.get(relation_id, set())))
    return out


@dataclass
class Gold:
    canonical: dict[str, str]  # normalised name or alias → canonical name
    types: dict[str, str]
    lines: list[dict[str, str]]

    @classmethod
    def load(cls, root: Path) -> Gold:
        canonical: dict[str, str] = {}
        types: dict[str, str] = {}
        for line in (root / "entities.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                types[row["name"]] = row["type"]
                for n in [row["name"], *row.get("aliases", [])]:
                    canonical.setdefault(norm(n), row["name"])
        lines = [
            json.loads(line)
            for line in (root / "graph_gold.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        return cls(canonical, types, lines)

    def match(self, name: str, aliases: Iterable[str] = ()) -> str | None:
        for n in [name, *aliases]:
            found = self.canonical.get(norm(n))
            if found is not None:
                return found
        return None


_TYPE = {"location": "place"}


def crosswalk(type_key: str, head_type: str, tail_type: str) -> tuple[str, bool]:
    """The dataset's relation word for the product's, and whether it reads the other way,
    from the README's table (head → tail by type): the starter ontology's ``owns`` is the
    dataset's ``owned_by`` read backwards for a system or policy a unit owns, and its
    ``responsible_for`` for a person or for a process or project; ``belongs_to`` is
    ``member_of`` for a person and ``part_of`` for a unit. The other words are the same."""
    if type_key == "owns":
        if head_type == "organization" and tail_type in {"system", "policy"}:
            return "owned_by", True
        return "responsible_for", False
    if type_key == "belongs_to":
        return ("member_of" if head_type == "person" else "part_of"), False
    return type_key, False


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f} ({a}/{b})" if b else "  n/a"


def score(
    gold: Gold, got: Extracted, docs: set[str], label: str, show: bool, lang_of: dict[str, str]
) -> None:
    gold_lines = [g for g in gold.lines if g["doc"] in docs]
    gold_pairs = {frozenset((g["head"], g["tail"])) for g in gold_lines}
    all_pairs = {frozenset((g["head"], g["tail"])) for g in gold.lines}
    ents = {i: e for i, e in got.entities.items() if e[3] & docs}
    matched = {i: gold.match(e[0], e[2]) for i, e in ents.items()}
    good_entities = sum(1 for m in matched.values() if m is not None)
    # the product calls a place "location"; every other type has the dataset's name
    typed_right = [
        i
        for i, m in matched.items()
        if m is not None and gold.types.get(m) == _TYPE.get(ents[i][1], ents[i][1])
    ]
    found_pairs: set[frozenset[str]] = set()
    extracted: set[tuple[str, str]] = set()
    typed_ok: set[frozenset[str]] = set()
    mapped_ok: set[frozenset[str]] = set()
    false: list[str] = []
    typed_as: dict[frozenset[str], list[str]] = {}
    for type_key, head, tail, rel_docs in got.relations:
        if not rel_docs & docs:
            continue
        h, t = got.entities[head], got.entities[tail]
        mh, mt = gold.match(h[0], h[2]), gold.match(t[0], t[2])
        key = (mh or "?" + h[0], mt or "?" + t[0])
        pair_key = tuple(sorted(key))
        if pair_key in extracted:
            continue
        extracted.add(pair_key)  # type: ignore[arg-type]
        pair = frozenset(key)
        if mh and mt and pair in all_pairs:
            found_pairs.add(pair)
            typed_as.setdefault(pair, []).append(f"{h[0]} —{type_key}→ {t[0]}")
            if any(
                g["head"] == mh and g["tail"] == mt and g["relation"] == type_key
                for g in gold.lines
            ):
                typed_ok.add(pair)
            word, back = crosswalk(type_key, h[1], t[1])
            head_, tail_ = (mt, mh) if back else (mh, mt)
            if any(
                g["head"] == head_ and g["tail"] == tail_ and g["relation"] == word
                for g in gold.lines
            ):
                mapped_ok.add(pair)
        else:
            false.append(f"{h[0]} —{type_key}→ {t[0]}  [{', '.join(sorted(rel_docs & docs))}]")
    recalled = gold_pairs & found_pairs
    # one thing, one node: gold entities several extracted entities are named for (财务部 beside
    # 财务管理部 although the note says 财务管理部（简称"财务部"）), and aliases that name their
    # entity (not a bracketed qualifier: "Priya Nair (remote)", "采购管理办法（摘要）")
    named_by: dict[str, list[str]] = {}
    alias_total = alias_good = 0
    wrong_aliases: list[str] = []
    for e in ents.values():
        own = gold.canonical.get(norm(e[0]))
        if own is not None:
            named_by.setdefault(own, []).append(f"{e[0]} ({e[1]})")
        for a in e[2]:
            alias_total += 1
            if own is not None and gold.canonical.get(norm(a)) == own:
                alias_good += 1
            else:
                wrong_aliases.append(f"{e[0]} = {a}")
    split = sorted(n for n, k in named_by.items() if len(k) > 1)
    print(
        f"{label:10s} entity precision {_ratio(good_entities, len(ents))}"
        f"   pair recall {_ratio(len(recalled), len(gold_pairs))}"
        f"   pair precision {_ratio(len(extracted) - len(false), len(extracted))}"
        f"   typed accuracy {_ratio(len(typed_ok & recalled), len(recalled))}"
        f"   typed, words mapped {_ratio(len(mapped_ok & recalled), len(recalled))}"
        f"   entity type {_ratio(len(typed_right), good_entities)}"
        f"   split entities {len(split)}"
        f"   alias precision {_ratio(alias_good, alias_total)}"
    )
    if show:
        for g in gold_lines:
            if frozenset((g["head"], g["tail"])) not in found_pairs:
                print(f"   missed  {g['head']} —{g['relation']}→ {g['tail']}  [{g['doc']}]")
                print(f"           {g['evidence']}")
        for line in false:
            print(f"   false   {line}")
        for g in gold_lines:
            pair = frozenset((g["head"], g["tail"]))
            if pair in found_pairs and pair not in mapped_ok:
                print(
                    f"   typed   {'; '.join(typed_as[pair])}  (gold {g['head']} —{g['relation']}→"
                    f" {g['tail']})  [{g['doc']}]"
                )
                print(f"           {g['evidence']}")
        for name in split:
            print(f"   split   {name}: {', '.join(named_by[name])}")
        for line in wrong_aliases:
            print(f"   alias   {line}")
        for i, e in ents.items():
            m = matched[i]
            if m is not None and i not in typed_right:
                print(f"   e-type  {e[0]} ({e[1]}, gold {gold.types.get(m)})")
            if matched[i] is None:
                print(f"   entity  {e[0]} ({e[1]})  [{', '.join(sorted(e[3] & docs))[:80]}]")


def held_out(paths: list[str]) -> set[str]:
    """Every fifth document (sorted by path), not to tune on."""
    return {p for i, p in enumerate(sorted(paths)) if i % 5 == 4}


def quality(root: Path, show: bool, only: str | None) -> None:
    gold = Gold.load(root)
    got = extract(root / "corpus")
    paths = sorted(got.texts)
    lang_of = {p: language(got.texts[p]) for p in paths}
    held = held_out(paths)
    print(
        f"{len(paths)} documents ({sum(v == 'zh' for v in lang_of.values())} zh,"
        f" {sum(v == 'en' for v in lang_of.values())} en), {len(gold.lines)} gold relations;"
        f" {len(got.entities)} entities and {len(got.relations)} relations extracted"
    )
    subsets = {
        "all": set(paths),
        "zh": {p for p in paths if lang_of[p] == "zh"},
        "en": {p for p in paths if lang_of[p] == "en"},
        "tuning": set(paths) - held,
        "held-out": held,
        "held zh": {p for p in held if lang_of[p] == "zh"},
        "held en": {p for p in held if lang_of[p] == "en"},
    }
    for label, docs in subsets.items():
        detail = show and ((only is None and label == "all") or label == only)
        score(gold, got, docs, label, detail, lang_of)


def bad_edge(name: str) -> bool:
    return bool(name) and (name[0] in FUNCTION_EDGES or name[-1] in FUNCTION_EDGES)


def junk(folder: Path, sample: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        shutil.copytree(folder, corpus)
        got = extract(corpus)
    names = sorted((e[0], e[1]) for e in got.entities.values())
    print(f"{len(names)} entities extracted from {len(got.texts)} documents")
    edges = [n for n, _t in names if re.search(r"[\u4e00-\u9fff]", n) and bad_edge(n)]
    print(f"names starting or ending with a function or measure word: {len(edges)}")
    for n in edges:
        print(f"   {n}")
    picked = random.Random(seed).sample(names, min(sample, len(names)))
    print(f"seeded sample ({len(picked)}, seed {seed}):")
    for i, (n, t) in enumerate(picked, 1):
        print(f"  {i:2d}. {n}  ({t})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, nargs="?")
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--only", help="the subset whose misses to list (default: all)")
    parser.add_argument("--junk", type=Path, help="a folder of documents to sample entities of")
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    if args.junk is not None:
        folder = args.junk / "corpus" if (args.junk / "corpus").is_dir() else args.junk
        junk(folder, args.sample, args.seed)
    elif args.dataset is not None:
        quality(args.dataset, args.show_misses, args.only)
    else:
        parser.error("a dataset folder or --junk FOLDER")


if __name__ == "__main__":
    main()
