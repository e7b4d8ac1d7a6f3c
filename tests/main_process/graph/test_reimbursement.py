"""Reimbursement (报销) is a piece of business as much as an application (申请): a travel rule's
approvals are of the travel claim, and a rule its own text gives an owner stays a rule beside
the business its title names."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from tests.main_process.graph.helpers import extracted_library

TRAVEL = """# 出差管理规定

1. 出差须提前提交出差申请。
2. 差旅报销统一在易报系统中提交，由费用核算组复核票据。
3. 差旅报销超过8000元的，须经财务总监审批。
"""

#: 市场推广费用报销 is the business the title names; the rule has an owner of its own.
MARKETING = """# 市场推广费用报销制度

第一条 市场推广费用报销须附活动总结。
第二条 本制度由市场部负责解释。
"""

#: A rule of nothing but 管理 after the business: the business is in the rule's name.
TRAINING = """# 培训费用报销管理办法

第一条 培训费用报销须附结业证书。
第二条 本办法由人力资源部负责解释。
"""

#: Articles numbered 一、二、: the rule's own reference opens the second one.
BOOKING = """# 会议室预订规范

一、会议室预订统一在企业微信中提交。
二、本规范由行政部负责解释。
"""


def _relations(conn: sqlite3.Connection, library_id: str) -> set[tuple[str, str, str]]:
    return {
        (head, type_key, tail)
        for head, type_key, tail in conn.execute(
            "SELECT h.name, r.type_key, t.name FROM graph_relations r"
            " JOIN graph_entities h ON h.id = r.head_id JOIN graph_entities t ON t.id = r.tail_id"
            " WHERE r.library_id = ?",
            (library_id,),
        )
    }


def test_a_travel_rules_approvals_are_of_the_travel_claim(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """Before: 差旅报销 was no name, and both approvals went to the 出差申请 named before."""
    library_id = extracted_library(dispatcher, services, tmp_path / "docs", {"t.md": TRAVEL})
    relations = _relations(pool.get(), library_id)
    assert ("财务总监", "approves", "差旅报销") in relations
    assert ("费用核算组", "approves", "差旅报销") in relations
    assert not any(tail == "出差申请" for _h, t, tail in relations if t == "approves")


def test_a_rule_with_an_owner_of_its_own_stays_a_rule(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """Before: the title was only another name of the business it names (会议室预订), so the
    rule's owner owned the booking, and 二、 hid the rule's own reference; a rule named after
    the business and 管理 was "管理办法"."""
    library_id = extracted_library(
        dispatcher,
        services,
        tmp_path / "docs",
        {"m.md": MARKETING, "b.md": BOOKING, "t.md": TRAINING},
    )
    conn = pool.get()
    relations = _relations(conn, library_id)
    assert ("市场部", "owns", "市场推广费用报销制度") in relations
    assert ("行政部", "owns", "会议室预订规范") in relations
    assert ("人力资源部", "owns", "培训费用报销管理办法") in relations
    types = dict(
        conn.execute(
            "SELECT name, type_key FROM graph_entities WHERE library_id = ?", (library_id,)
        ).fetchall()
    )
    assert types["市场推广费用报销制度"] == types["会议室预订规范"] == "policy"
