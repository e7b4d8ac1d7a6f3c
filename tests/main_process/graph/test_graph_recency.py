"""A thing's owner that a later document replaced: the graph keeps both relations (each was true
when written) and a question is answered along the newer one. Local extraction over real SQLite
through the dispatcher, in both languages; without dates the graph cannot tell old from new and
keeps both paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph.recency import dates_in
from goodbuddy_kb.main_process.services import Services
from tests.main_process.graph.helpers import ask, extracted_library

UNITS = {
    "ops.md": "# 数字化运营组\n\n数字化运营组位于北楼三层，组长宋启航。\n",
    "shared.md": "# 财务共享部\n\n财务共享部位于南楼二层，部门经理韩冬青。\n",
    "ops-en.md": "# Digital Operations\n\nThe Digital Operations team is led by Nadia Brooks.\n",
    "shared-en.md": "# Shared Finance\n\nThe Shared Finance team is led by Oscar Lindqvist.\n",
}
OLD = {
    "portal-guide.md": "# 费控系统操作手册（2021版）\n\n费控系统由财务共享部负责维护，"
    "登录和单据问题都可以找他们。\n",
    "portal-guide-en.md": "# Claims System guide\n\nLast revised March 2021.\n\n"
    "The Claims System is maintained by the Shared Finance team.\n",
}
NEW = {
    "portal-notice.md": "# 关于费控系统运维职责调整的通知\n\n经研究决定，费控系统由数字化运营组负责维护，"
    "原有的登录和单据问题处理方式不变。\n\n2025年2月10日\n",
    "portal-notice-en.md": "# Claims System: new owner\n\nFrom 1 March 2025 the Claims System"
    " is maintained by the Digital Operations team.\n",
}


@pytest.mark.parametrize(
    ("query", "new", "old"),
    [
        ("费控系统现在归哪个部门维护？", "数字化运营组", "财务共享部"),
        ("费控系统现在出了问题找谁？", "宋启航", "韩冬青"),
        ("Which team owns the Claims System these days?", "Digital Operations", "Shared Finance"),
        ("Who leads the team that owns the Claims System?", "Nadia Brooks", "Oscar Lindqvist"),
    ],
)
def test_the_newer_documents_owner_answers(
    dispatcher: Dispatcher,
    services: Services,
    tmp_path: Path,
    query: str,
    new: str,
    old: str,
) -> None:
    """The 2021 guide's owner and the 2025 notice's were both paths to the answer, and the old
    owner's page could lead: the path now runs through the newer owner alone."""
    library_id = extracted_library(dispatcher, services, tmp_path / "kb", UNITS | OLD | NEW)
    res = ask(dispatcher, library_id, query)
    paths = res["diagnostics"]["graphPaths"]
    assert paths and all(old not in p for p in paths) and any(new in p for p in paths), paths
    top = res["results"][0]
    assert new in top["snippet"] and old not in top["snippet"], res["results"][:3]


def test_without_dates_both_owners_stay(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    """Nothing says which document is newer: the graph does not guess, both paths stay."""
    undated = {
        "portal-guide.md": "# 费控系统操作手册\n\n费控系统由财务共享部负责维护。\n",
        "portal-notice.md": "# 费控系统运维\n\n费控系统由数字化运营组负责维护。\n",
    }
    library_id = extracted_library(dispatcher, services, tmp_path / "kb", UNITS | undated)
    paths = ask(dispatcher, library_id, "费控系统归哪个部门维护？")["diagnostics"]["graphPaths"]
    assert any("财务共享部" in p for p in paths) and any("数字化运营组" in p for p in paths), paths


def test_the_dates_a_document_writes() -> None:
    assert dates_in("自2024年9月1日起，由质量保证组管理。2024年8月20日") == [
        (2024, 9, 1),
        (2024, 8, 20),
    ]
    assert dates_in("# 冷链温控平台使用说明（2023版）") == [(2023, 0, 0)]
    assert dates_in("From 1 March 2025; revised Sept. 2024 and 2023-11-05") == [
        (2023, 11, 5),
        (2025, 3, 1),
        (2024, 9, 0),
    ]
    # amounts and counts are no dates
    assert dates_in("超过2000元须经总经理审批; SGD 2,000; 2025 staff") == []
