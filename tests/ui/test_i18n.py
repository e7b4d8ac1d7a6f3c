"""The string catalogues: each key is defined once (in one area's catalogue, once in it), and
every string exists in zh-CN and en with the same placeholders."""

from __future__ import annotations

import ast
import importlib
import inspect
import string
from collections import Counter

from goodbuddy_kb.ui.i18n import CATALOGUES, STRINGS

#: Empty in both languages on purpose: a suffix that adds nothing (the chunk dialog's "no
#: vector work needed" after a save).
EMPTY_ON_PURPOSE = {"chunks.vector.not_needed"}


def _placeholders(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


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
