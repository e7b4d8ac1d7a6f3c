"""The string catalogues: each key is defined once (in one area's catalogue, once in it), and
every string exists in zh-CN and en with the same placeholders."""

from __future__ import annotations

import ast
import importlib
import inspect
import string
from collections import Counter

from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.messages import english, placeholders
from goodbuddy_kb.ui.i18n import CATALOGUES, STRINGS

#: Empty in both languages on purpose: a suffix that adds nothing (the chunk dialog's "no
#: vector work needed" after a save).
EMPTY_ON_PURPOSE = {"chunks.vector.not_needed"}


def _placeholders(text: str) -> list[str]:
    """The names filled in (an English plural names its count twice: "{n} {n:plural:…}")."""
    return sorted({name for _, name, _, _ in string.Formatter().parse(text) if name is not None})


def _keys_in_source(area: str) -> list[str]:
    """The keys as written in the catalogue module (a repeated key in one dict literal would
    silently keep only its last value)."""
    module = importlib.import_module(f"goodbuddy_kb.ui.i18n.{area}")
    keys: list[str] = []
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Dict):
            keys += [k.value for k in node.keys if isinstance(k, ast.Constant)]
    return keys


def test_no_key_is_defined_twice() -> None:
    seen: dict[str, str] = {}
    twice = []
    for area, catalogue in CATALOGUES.items():
        repeated = [key for key, count in Counter(_keys_in_source(area)).items() if count > 1]
        assert not repeated, f"defined twice in i18n.{area}: {repeated}"
        for key in catalogue:
            if key in seen:
                twice.append(f"{key} ({seen[key]} and {area})")
            seen[key] = area
    assert not twice, twice
    assert len(STRINGS) == sum(len(catalogue) for catalogue in CATALOGUES.values())


def test_every_string_in_both_languages_with_the_same_placeholders() -> None:
    for key, (zh, en) in STRINGS.items():
        if key in EMPTY_ON_PURPOSE:
            assert zh == en == "", key
            continue
        assert zh.strip() and en.strip(), key
        assert _placeholders(zh) == _placeholders(en), key


def test_english_counts_of_one_read_in_the_singular() -> None:
    """Every English string filled with 1 for each value reads "1 time", "1 document", never
    "The model searched 1 times" (a plural is written ``{n} {n:plural:time|times}``)."""
    from goodbuddy_kb.ui.i18n import set_language, tr

    plurals = [
        "times",
        "documents",
        "chunks",
        "results",
        "characters",
        "libraries",
        "events",
        "models",
        "calls",
        "relations",
        "entities",
        "lines",
        "pages",
        "sources",
        "items",
        "dimensions",
        "files",
        "attachments",
        "matches",
        "answers",
    ]
    set_language("en")
    texts: dict[str, str] = {}
    for key, (_zh, en) in STRINGS.items():
        names = set(_placeholders(en))
        # (an entity type is a word: "the {type} entities")
        texts[key] = tr(key, **{n: "T" if n == "type" else 1 for n in names}) if names else en
    # the backend's sentences (the CLI's, and the English GUI's)
    for code, template in CATALOGUE.items():
        texts[code] = english(
            code, {n: "T" if n == "type" else "1" for n in placeholders(template)}
        )
    wrong = []
    for key, text in texts.items():
        words = text.replace(",", " ").split()
        for a, b, c in zip(words, words[1:], [*words[2:], ""], strict=False):
            if a == "1" and (b in plurals or (c in plurals and b.islower() and b != "of")):
                wrong.append(f"{key}: {text}")
    assert not wrong, wrong
