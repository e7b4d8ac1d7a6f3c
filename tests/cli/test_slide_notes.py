"""Presentations, OpenDocument and RTF through a real backend and the `goodbuddy-kb` command
(issue 35): a question answered only by a slide's speaker notes returns that slide with its
``slide N`` locator; every format reaches full-text "done"; a corrupt deck fails alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.widgets.locator import format_locator
from tests.cli.runner import cli_json, run
from tests.slidegen import make_odp, make_odt, make_pptx, make_rtf, rtf_escaped, rtf_unicode

pytestmark = pytest.mark.integration

DECK = [
    {"title": "Welcome", "boxes": [("Company onboarding for new staff", 1, 5)]},
    {"title": "Travel", "table": [["City", "Hotel"], ["Beijing", "800"]]},
    {
        "title": "Office",
        "boxes": [("Badges and doors", 1, 5)],
        "notes": "The fire assembly point is the red pagoda behind building C",
    },
    {
        "title": "报销",
        "boxes": [("报销流程介绍", 1, 5)],
        "notes": "讲者备注：发票原件寄往深圳财务中心",
    },
]


def test_a_speaker_notes_question_returns_its_slide_and_every_format_is_read(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "onboarding.pptx").write_bytes(make_pptx(DECK, title="Onboarding"))
    (docs / "deck.odp").write_bytes(make_odp([{"title": "ODP", "notes": "odp notes mangosteen"}]))
    (docs / "policy.odt").write_bytes(make_odt([("h1", "Policy"), ("p", "odt guava rules")]))
    rtf = make_rtf([rtf_escaped("第一段：富文本荔枝"), rtf_unicode("第二段：统一码龙眼")])
    (docs / "policy.rtf").write_bytes(rtf)
    (docs / "broken.pptx").write_bytes(make_pptx(DECK)[:4000])
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    assert run(data_dir, "sync", "L").returncode == 0
    listed = cli_json(data_dir, "documents", "L", "--limit", "100")
    by_path = {d["path"]: d for d in listed["documents"]}
    for name in ("onboarding.pptx", "deck.odp", "policy.odt", "policy.rtf"):
        assert by_path[name]["status"]["parse"] == "done", by_path[name]
    assert by_path["broken.pptx"]["status"]["parse"] == "failed"
    assert by_path["broken.pptx"]["errorCode"], by_path["broken.pptx"]

    answer = cli_json(data_dir, "retrieve", "L", "where is the fire assembly point?")
    top = answer["results"][0]
    assert top["documentPath"] == "onboarding.pptx"
    assert "red pagoda" in top["snippet"]
    assert top["locator"]["slide"] == 3
    assert top["locator"]["headingPath"] == ["Office", "Notes"]
    set_language("en")
    assert format_locator(Locator.from_wire(top["locator"])).startswith("slide 3 · Office")

    answer = cli_json(data_dir, "retrieve", "L", "发票原件寄往哪里")
    top = answer["results"][0]
    assert top["documentPath"] == "onboarding.pptx" and top["locator"]["slide"] == 4
    assert "深圳财务中心" in top["snippet"] and top["locator"]["headingPath"] == ["报销", "备注"]
    for word, path in (("mangosteen", "deck.odp"), ("guava", "policy.odt"), ("龙眼", "policy.rtf")):
        results = cli_json(data_dir, "retrieve", "L", word)["results"]
        assert results and results[0]["documentPath"] == path, (word, results[:1])
