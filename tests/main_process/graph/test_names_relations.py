"""Local extraction on documents written the way other people write them, through the real
backend (a folder imported into a library, the local strategy switched on, extraction run):
whole names only — never a name glued to a function word, a measure word or a verb — and the
relations ordinary sentences, appositions, lists and tables state, in Chinese and English."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from tests.dispatch import call
from tests.main_process.graph.helpers import alias_names, extracted_library

#: Characters no whole Chinese name starts or ends with: function words, measure words (not
#: those that also start common words: 项目部, 本田), and the first characters of the issue's
#: junk examples (晚住宿标准, 任中共天津市, 逾期财务部; 加文武百官 is tested by itself: 加 starts
#: 加拿大).
FUNCTION_OR_MEASURE = frozenset(
    "的了和与及或在对向将把被为是从至到给跟每各该其此个种只张辆架艘晚任加逾"
)

#: Paragraphs of encyclopaedia articles (cmrc2018-trial) and company rules that used to give
#: the junk names below.
ENCYCLOPAEDIA = """# 人物与植物

1981年9月，任中共天津市委青工部部长；1984年3月，任共青团天津市委研究室主任。
木槿是一种锦葵科植物，原产于中国中部，夏秋开花。
皇帝召见文武百官，加文武百官官职一级，并在紫禁城设宴。
该城市位于江苏省南京市，是长江下游的重要港口，1990年代建成新港区。
猴面包树是一种锦葵科猴面包树属的大型乔木。
2007年她来台发行专辑《在世界中心》。
新系统将接收区与汇整区做出整理。
乐队在1992年4月1日与陈科琳、文鉴鸿一起成立。
该作品被改编为《Saber Rider and the Star Sheriffs》，在美国播出。
程序可以在FreeBSD上执行，也可以在原生OS X平台上执行。
一般地，在ROH中，如果离子势越大，则酸性越强。CBMM由巴西一个家族控制。
新型超高性能服务器——IBM System p570于当年发布。
"""

RULES = """# 差旅与采购规定

出差每晚住宿标准为五百元，超出部分自理。
项目部下设三个小组，分别负责设计、测试和交付。
公司制定了两个标准，分别用于采购和验收。
发票逾期财务部不予受理，请在三十天内提交。
"""

ZH_DEPARTMENT = """# 采购部介绍

采购部位于C栋3楼，部长林晓东。
部门下设两个小组：寻源组（组长方志强）和合同组。
请假须经直属主管审批。
"""

TABLE = """# 系统负责部门一览

| 系统 | 负责部门 | 联系人 |
| --- | --- | --- |
| WMS系统 | 物流部 | 郑雨涵 |
| OA系统 | 行政部 | 宋佳琪 |
"""

EN_DEPARTMENT = """# Logistics Department

The Logistics Department (物流部) looks after the warehouses and the yard.
It is run by Karen Doyle and reports to the Operations Center.
The Yard Team falls under the Logistics Department, not under the Finance Department.
"""


def _names(conn: sqlite3.Connection, library_id: str) -> dict[str, str]:
    return {
        name: type_key
        for name, type_key in conn.execute(
            "SELECT name, type_key FROM graph_entities WHERE library_id = ?", (library_id,)
        )
    }


def _pairs(conn: sqlite3.Connection, library_id: str) -> set[frozenset[str]]:
    """Every relation as unordered pairs of its two ends' names and aliases."""
    forms: dict[str, set[str]] = {}
    for entity_id, name in conn.execute(
        "SELECT id, name FROM graph_entities WHERE library_id = ?", (library_id,)
    ):
        forms.setdefault(entity_id, set()).add(name)
    for entity_id, alias in conn.execute(
        "SELECT entity_id, alias FROM graph_aliases WHERE library_id = ?", (library_id,)
    ):
        forms.setdefault(entity_id, set()).add(alias)
    return {
        frozenset((h, t))
        for head, tail in conn.execute(
            "SELECT head_id, tail_id FROM graph_relations WHERE library_id = ?", (library_id,)
        )
        for h in forms[head]
        for t in forms[tail]
    }


def test_extracted_names_are_whole_names(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    library_id = extracted_library(
        dispatcher, services, tmp_path / "docs", {"wiki.md": ENCYCLOPAEDIA, "rules.md": RULES}
    )
    names = _names(pool.get(), library_id)
    junk = {"任中共天津市", "个小组", "个标准", "逾期财务部", "晚住宿标准", "一种锦葵科"}
    # a plant family before its genus, a piece of an album's title, two areas joined by 与
    junk |= {"锦葵科", "世界中心", "接收区与汇整区"}
    # a person's name in a work's title, the end of a longer Latin name; Latin names only a
    # slot any noun fits holds ("in X", "X by"), related to nothing
    junk |= {"Saber Rider", "X平台", "ROH", "CBMM", "IBM System"}  # (…System p570: a model)
    assert not junk & set(names), names
    assert not any("加文武百官" in n for n in names), names
    edges = [n for n in names if n[0] in FUNCTION_OR_MEASURE or n[-1] in FUNCTION_OR_MEASURE]
    assert edges == [], edges
    assert names.get("财务部") == "organization" and names.get("江苏省南京市") == "location"
    assert names.get("FreeBSD") == "system", "a platform a program runs on"


def test_relations_of_ordinary_sentences_tables_and_english(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    library_id = extracted_library(
        dispatcher,
        services,
        tmp_path / "docs",
        {"zh.md": ZH_DEPARTMENT, "table.md": TABLE, "en.md": EN_DEPARTMENT},
    )
    conn = pool.get()
    names, pairs = _names(conn, library_id), _pairs(conn, library_id)
    assert names.get("林晓东") == names.get("Karen Doyle") == "person"
    assert names.get("WMS系统") == "system" and names.get("C栋3楼") == "location"
    # generic role words are no entities
    assert not {"部长", "组长", "直属主管", "部门"} & set(names), names
    expected = [
        ("采购部", "C栋3楼"),  # 位于, the subject's place
        ("采购部", "林晓东"),  # 部长 after the subject's clause: its head
        ("寻源组", "采购部"),  # 部门下设…：A（…）和B — the title's unit, a list after a colon
        ("合同组", "采购部"),
        ("寻源组", "方志强"),  # 组长 in brackets after the unit
        ("WMS系统", "物流部"),  # table row under 负责部门
        ("WMS系统", "郑雨涵"),  # …and its contact
        ("OA系统", "行政部"),
        ("Logistics Department", "Karen Doyle"),  # "It is run by": the subject before
        ("Yard Team", "Logistics Department"),  # falls under
    ]
    missing = [pair for pair in expected if frozenset(pair) not in pairs]
    assert missing == [], (missing, pairs)
    # "not under the Finance Department": a denied link is no relation
    assert not any("Finance Department" in pair for pair in pairs), pairs


#: A process's own rule, steps without a subject of their own (the steps are the process's).
PROCESS_RULE = """# 样品寄送审批规范

1. 申请人在OA系统中填写寄送单。
2. 寄送须经物流部审批。
3. 审批通过后，由仓储组执行寄送。
"""

#: A rule about a piece of business it names in its text: what the rule's clauses approve is
#: the business, not the rule.
MEETING_RULE = """# 会议费管理办法

员工在报销系统中提交会议申请。
超过两万元的，还须经行政总监审批。
- IT类会议须先交法务部做合规评估。
本办法由行政部归口管理。
"""

ORGANISATION = """# 质量中心简介

测试组是质量中心下属小组，由韩露（Lu Han）负责。
公司首席信息官（CIO）由邵峰兼任。
公司总经理为钟毅。
构建在Jenkins中完成。
"""

MINUTES = """# 安全委员会2025年第一次会议纪要

委员出席：韩露、邵峰、钟毅
"""

TOOLS = """# Build tools

Jenkins (builds) and Nexus (artifacts) are owned by the Platform Team.
"""


#: A system with no cue word, known by the slots it stands in (在…上, …账号), and a contact
#: named after a title.
ATTENDANCE = """# 考勤说明

员工在飞书上打卡。
飞书账号无法登录，请联系驻场专员柳青。
"""

#: A step's unit as its subject, a unit's head acting for it, an answer's label before the
#: subject, a unit named with its parent, an owner from a date on, a part of a named thing.
STEPS = """# 设备外借流程

1. 质检组在两小时内完成抽检。
2. 加急外借可先由安保部部长电话批准。
"""

FAQ = """# 常见问题

**Q：门禁系统坏了找谁？**
A：门禁系统不归行政部管，由后勤部安防组负责维护。
原由行政部管理的访客系统，自2025年3月1日起移交后勤部负责。
"""

ONBOARDING = """# 新员工入职流程

入职流程的整体协调由招聘组负责。
"""

OFFICE = """# 质检组

部门办公室在D栋2楼，上海总部另有驻场人员。
"""

#: Predicates joined by "and" share the step's subject; an acronym as a subject; a post named
#: in lower case after a copula.
EN_MORE = """# Parts returns — EU staff

Log parts returns in the Stores Platform.
Each one is approved by your line manager and then checked by Olivia Grant before it ships.
The PMS belongs to the Maintenance Section.
Liam Hughes, our Site Manager, is also the safety officer.
"""

EN_PROCESS = """# Travel bookings — EU staff

Make travel bookings in the Navan Platform at least a week ahead.
Any trip above 2,000 euros must be signed off by the head of the Finance Office.
A supplier quality report (SQR) is handled by the Procurement Office.
"""


def test_relations_of_a_process_rule_its_titles_and_lists(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    library_id = extracted_library(
        dispatcher,
        services,
        tmp_path / "docs",
        {
            "process.md": PROCESS_RULE,
            "meeting.md": MEETING_RULE,
            "organisation.md": ORGANISATION,
            "minutes.md": MINUTES,
            "tools.md": TOOLS,
            "en_process.md": EN_PROCESS,
            "attendance.md": ATTENDANCE,
            "steps.md": STEPS,
            "faq.md": FAQ,
            "onboarding.md": ONBOARDING,
            "office.md": OFFICE,
            "en_more.md": EN_MORE,
        },
    )
    conn = pool.get()
    names, pairs = _names(conn, library_id), _pairs(conn, library_id)
    # the title names the business (a process), and the whole title is its other name
    assert names.get("样品寄送审批") == "process", names
    assert "样品寄送审批规范" in alias_names(conn, "样品寄送审批")
    assert names.get("首席信息官") == "role" and names.get("Nexus") == "system", names
    assert names.get("飞书") == "system", names
    expected = [
        ("样品寄送审批", "OA系统"),  # 1. 申请人在OA系统中…: a step of the process uses it
        ("物流部", "样品寄送审批"),  # 2. 寄送须经物流部审批
        ("仓储组", "样品寄送审批"),  # 3. 由仓储组执行寄送
        ("行政总监", "会议申请"),  # 还须经…审批: the application, not the rule
        ("会议费管理办法", "行政部"),  # 本办法由…归口管理
        ("法务部", "会议申请"),  # - IT类会议须先交…做合规评估 ("IT" no pronoun, "-" no word)
        ("测试组", "韩露"),  # 由韩露（Lu Han）负责
        ("首席信息官", "邵峰"),  # …由邵峰兼任
        ("总经理", "钟毅"),  # 总经理为钟毅
        ("韩露", "安全委员会"),  # 委员出席：A、B、C — the title's committee
        ("邵峰", "安全委员会"),
        ("钟毅", "安全委员会"),
        ("Nexus", "Platform Team"),  # listed with Jenkins, which another document named
        ("Travel bookings", "Navan Platform"),  # the English title's subject, said again
        ("Finance Office", "Travel bookings"),  # signed off by the head of the Finance Office
        ("SQR", "Procurement Office"),  # defined by its initials, handled by
        ("柳青", "飞书"),  # 飞书账号…，请联系驻场专员柳青: the contact, after the title
        ("质检组", "设备外借流程"),  # 1. 质检组在…完成抽检: the step's subject takes part
        ("安保部", "设备外借流程"),  # 由安保部部长电话批准: the head acts for the unit
        ("门禁系统", "安防组"),  # A：…由后勤部安防组负责维护
        ("访客系统", "后勤部"),  # 自2025年3月1日起移交后勤部负责
        ("招聘组", "入职流程"),  # 入职流程的整体协调由…负责
        ("质检组", "D栋2楼"),  # 部门办公室在…
        ("Olivia Grant", "Parts returns"),  # … and then checked by: the step's subject's
        ("PMS", "Maintenance Section"),  # the PMS belongs to
        ("safety officer", "Liam Hughes"),  # …, our Site Manager, is also the safety officer
    ]
    missing = [pair for pair in expected if frozenset(pair) not in pairs]
    assert missing == [], (missing, pairs)
    # the rule itself approves nothing and is approved by nobody
    assert frozenset(("行政总监", "会议费管理办法")) not in pairs
    # a part of a named thing is no name; a place after a Chinese comma is another clause's
    assert "整体协调" not in names and frozenset(("质检组", "上海总部")) not in pairs


def test_a_near_miss_beside_a_spelled_name_does_not_lead_the_graph(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    from goodbuddy_kb.contracts.methods import RETRIEVE

    library_id = extracted_library(
        dispatcher,
        services,
        tmp_path / "docs",
        {
            "crm.md": "# CRM系统说明\n\nCRM系统归销售运营组管理。\n",
            "onboarding.md": "# 入职须知\n\n新同事入职时，到IT服务台领取电脑，并由IT服务台办理"
            "账号开通。账号开通后请修改密码。\n",
            "desk.md": "# IT服务台\n\nIT服务台位于B栋1楼，分机8800。\n",
        },
    )
    res = call(
        dispatcher,
        RETRIEVE.name,
        {
            "libraryIds": [library_id],
            "query": "CRM系统的账号现在找谁开通？",
            "channels": ["graph"],
            "overrides": {"minimumRelevance": 0.0},
        },
    )
    # 账号…开通 is a near miss of 账号开通 (whose owner, IT服务台, is a "who"): a guess at the
    # question's other words, not what it is about
    assert "账号开通" in res["diagnostics"]["graphNearMisses"]
    assert res["results"][0]["documentPath"] == "crm.md", [
        (r["documentPath"], r["graphReasons"]) for r in res["results"]
    ]


def test_a_path_only_a_near_miss_reached_never_answers_for_the_spelled_name(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    from goodbuddy_kb.main_process.graph import channel

    library_id = extracted_library(
        dispatcher,
        services,
        tmp_path / "docs",
        {
            "crm.md": "# CRM系统说明\n\nCRM系统于2020年上线，用于管理客户。\n",
            "onboarding.md": "# 入职须知\n\n账号开通请联系IT专员柳青。\n",
        },
    )
    found = channel.search(pool.get(), [library_id], "CRM系统的账号现在找谁开通？", 20)
    assert found.near_misses == ["账号开通"] and "CRM系统" in found.matched
    # 柳青 —owns→ 账号开通 reaches a "who" from the near miss only: a guess, shown as a
    # path but never the answer the fusion follows (CRM系统's own relations reach nobody)
    assert not found.answered, found.paths


NAME_FIRST = """# 公司组织与制度说明

张伟是财务部经理，负责审批差旅报销制度。
李娜担任人力资源部经理。王强为信息技术部负责人，负责OA办公系统。
周末是部门经理值班的时间。
"""


def test_a_person_named_before_the_post_they_hold_is_a_person(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """Notes name a person first and their post after it ("张伟是财务部经理"); only a role word
    before the name (财务部经理张伟) used to make one, so such notes gave departments and systems
    but no people. A role word the clause goes on after is not a post."""
    library_id = extracted_library(
        dispatcher, services, tmp_path / "docs", {"notes.md": NAME_FIRST}
    )
    names = _names(pool.get(), library_id)
    assert {n: names.get(n) for n in ("张伟", "李娜", "王强")} == dict.fromkeys(
        ("张伟", "李娜", "王强"), "person"
    ), names
    assert "周末" not in names, names
    # and what the clause goes on to say is said of them
    pairs = _pairs(pool.get(), library_id)
    assert (
        frozenset(("张伟", "差旅报销制度")) in pairs and frozenset(("王强", "OA办公系统")) in pairs
    )
    # and the post they hold is led by them (a copula or a verb of taking office between)
    assert frozenset(("财务部经理", "张伟")) in pairs
    assert frozenset(("人力资源部经理", "李娜")) in pairs


def test_a_person_named_in_both_scripts_is_one_person(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """苗若琳 in the Chinese notes and Miao Ruolin in the English ones were two people in the
    graph, each with half the relations; one now, the other name its alias. Two Chinese names
    that read alike (张伟, 章伟) stay two people, and neither takes "Zhang Wei"."""
    files = {
        "a-minutes.md": "# Minutes\n\nAttendees: Miao Ruolin, Zhang Wei, and Grace Whitfield.\n",
        "b-team.md": "# 应用开发组\n\n应用开发组组长苗若琳负责OA系统。\n",
        "c-people.md": "# 名单\n\n财务部经理张伟；人力资源部经理章伟。\n",
    }
    library_id = extracted_library(dispatcher, services, tmp_path / "docs", files)
    conn = pool.get()
    names = _names(conn, library_id)
    # the name in Chinese characters is the person's own, though the English note came first
    # (a Chinese window listed colleagues as "Nie Xiaochuan"; a helper's try)
    assert "苗若琳" in names and "Miao Ruolin" not in names, names
    assert alias_names(conn, "苗若琳") == {"miao ruolin"}
    assert names.get("张伟") == "person" and names.get("章伟") == "person", names
    assert names.get("Zhang Wei") == "person", "a name that fits two people links to neither"
    assert alias_names(conn, "张伟") == set() == alias_names(conn, "章伟")


COMPANY_NAMES = """# Onboarding

Welcome to Xinghe Technology! This guide covers your first week.
Laptops are ordered through Northwind Logistics, and badges come from Harbor Security.
Expense claims go to Delta Procurement; questions about it are answered by Ann Lee.
On your first day, ask for Sarah Lin at the front desk.
"""


def test_a_company_named_with_a_common_noun_is_not_a_person(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """Two capitalised words after "to", "by" or "from" read as a person's name; one of them a
    noun English makes from another word (Technology, Logistics, Security, Procurement) names
    a company or a unit ("Xinghe Technology" was listed as a person; a helper's try)."""
    library_id = extracted_library(
        dispatcher, services, tmp_path / "docs", {"guide.md": COMPANY_NAMES}
    )
    names = _names(pool.get(), library_id)
    companies = ("Xinghe Technology", "Northwind Logistics", "Harbor Security", "Delta Procurement")
    assert not [n for n in companies if names.get(n) == "person"], names
    assert names.get("Ann Lee") == "person" and names.get("Sarah Lin") == "person", names


JOINED_TITLE = """# 差旅与费用报销制度

本制度适用于全体员工，由财务部负责解释。
"""


def test_a_title_joining_two_things_names_one_rule(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    """ "差旅与费用报销制度" is one rule: it was listed as 费用报销制度 (what follows 与), with
    the document's own relations on that piece (a helper's try). The whole title is the name,
    the two rules it reads as its other names, the rule word shared."""
    library_id = extracted_library(
        dispatcher, services, tmp_path / "docs", {"rules.md": JOINED_TITLE}
    )
    names = _names(pool.get(), library_id)
    assert names.get("差旅与费用报销制度") == "policy", names
    assert "费用报销制度" not in names, names
    assert {"费用报销制度", "差旅制度"} <= alias_names(pool.get(), "差旅与费用报销制度")
    assert frozenset(("差旅与费用报销制度", "财务部")) in _pairs(pool.get(), library_id)
