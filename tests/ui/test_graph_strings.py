"""Every string of the Knowledge graph tab exists in zh-CN and en with the same placeholders,
and every key the tab's modules ask for exists."""

from __future__ import annotations

import re
from pathlib import Path

from goodbuddy_kb.ui.i18n import STRINGS
from goodbuddy_kb.ui.i18n.graph import GRAPH_STRINGS

UI = Path(__file__).resolve().parents[2] / "src" / "goodbuddy_kb" / "ui"


def test_both_languages_with_the_same_placeholders() -> None:
    for key, (zh, en) in GRAPH_STRINGS.items():
        assert zh.strip() and en.strip(), key
        assert sorted(re.findall(r"{(\w+)}", zh)) == sorted(re.findall(r"{(\w+)}", en)), key
        assert STRINGS[key] == (zh, en), f"{key} is shadowed in i18n.STRINGS"


def test_every_key_the_tab_uses_exists() -> None:
    used: set[str] = set()
    for path in sorted((UI / "graph").glob("*.py")):
        text = path.read_text("utf-8")
        used |= set(re.findall(r'"((?:graph|ontology|task|dialog|settings)\.[a-z_.]+)"', text))
    dynamic = {k for k in used if k.endswith(".")}
    missing = sorted(k for k in used - dynamic if k not in STRINGS)
    assert not missing
    for prefix in dynamic:
        assert any(k.startswith(prefix) for k in STRINGS), prefix
