"""One unit named in two scripts (``graph/units.py``): a Chinese department page names a team in
Chinese, an English FAQ names it in English, and only their common head ties them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from tests.main_process.graph.helpers import alias_names, extracted_library

DEPARTMENT = """# 数据平台部

数据平台部在创新大厦6楼办公，下设两个团队：数据治理组（组长石磊）和数据开发组（组长彭宇）。
"""

FAQ = """# Master data FAQ

Q: Which team maintains the MDM system?
A: The Data Governance team maintains the MDM system. Shi Lei heads the Data Governance team.
"""

#: The same head leads two teams the English notes name: which of them 检验组 is, nothing says.
QUALITY = """# 质量部

质量部下设两个团队：检验组（组长韩冰）和计量组（组长孔琳）。
"""

QUALITY_FAQ = """# Quality FAQ

Q: Who runs supplier audits?
A: The Supplier Audit team, headed by Han Bing. Han Bing also heads the Incoming Inspection team.
"""


def _units(conn: sqlite3.Connection, library_id: str) -> dict[str, set[str]]:
    rows = conn.execute(
        "SELECT name FROM graph_entities WHERE library_id = ? AND type_key = 'organization'",
        (library_id,),
    ).fetchall()
    return {name: alias_names(conn, name) for (name,) in rows}


def _owners(conn: sqlite3.Connection, library_id: str) -> set[str]:
    rows = conn.execute(
        "SELECT h.name FROM graph_relations r JOIN graph_entities h ON h.id = r.head_id"
        " JOIN graph_entities t ON t.id = r.tail_id WHERE r.library_id = ?"
        " AND t.name = 'MDM system'",
        (library_id,),
    ).fetchall()
    return {name for (name,) in rows}


def test_a_team_named_in_each_language_by_its_one_head_is_one_team(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """Before: "Data Governance team" and 数据治理组 were two units, the system's owner had no
    department, the department's team owned nothing."""
    library_id = extracted_library(
        dispatcher, services, tmp_path / "docs", {"dept.md": DEPARTMENT, "faq.md": FAQ}
    )
    conn = pool.get()
    units = _units(conn, library_id)
    assert "Data Governance team" not in units
    assert "data governance team" in units["数据治理组"]
    assert _owners(conn, library_id) == {"数据治理组"}
    assert "数据开发组" in units  # the other team, led by someone else, stays itself


def test_a_head_of_two_teams_in_the_other_language_joins_none(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    library_id = extracted_library(
        dispatcher, services, tmp_path / "docs", {"q.md": QUALITY, "faq.md": QUALITY_FAQ}
    )
    conn = pool.get()
    units = _units(conn, library_id)
    assert {"检验组", "Supplier Audit team", "Incoming Inspection team"} <= units.keys()
    assert not any(a.isascii() for a in units["检验组"])
