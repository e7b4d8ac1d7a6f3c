"""A name a cue grew, read in its sentence (graph/segment.py): one that starts or ends inside a
word, starts with a word no name starts with, or has a clause glued to it is no name; one that
is an ordinary word or a description of common words stays only where the library relates it;
the dictionary is let go when extraction is idle. The sentences are from cmrc2018-trial's
encyclopaedia articles (what used to come out as junk) and from company notes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.methods import GRAPH_EXTRACT
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.graph import segment
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from tests.dispatch import call
from tests.main_process.graph.helpers import extracted_library
from tests.main_process.graph.test_names_relations import _names

#: (sentence, name as a cue grew it, its type, the cue's length, the verdict)
READINGS = [
    # ends inside a word: 部队, 组合, 部份, 市委 …
    ("参加演习的不少纪律部队", "纪律部", "organization", 1, "broken"),
    ("他们组成了电子音乐组合", "电子音乐组", "organization", 1, "broken"),
    ("任中共天津市委常委", "天津市", "location", 1, "broken"),
    # starts inside a word
    ("是巴黎同性恋区的中心", "性恋区", "location", 1, "broken"),
    # a clause, a count or a word written twice glued to it
    ("宣传由曼哈顿一家公关公司负责", "曼哈顿一家公关公司", "organization", 2, "broken"),
    ("《西南忠魂》是台湾台湾电视公司于1984年", "台湾台湾电视公司", "organization", 2, "broken"),
    ("该城东与浏阳市沙市镇为邻", "浏阳市沙市", "location", 1, "provisional"),
    ("巴黎第四区是法国首都巴黎市的20个区之一", "法国首都巴黎市", "location", 1, "broken"),
    # a person's name is no ordinary word; a surname may read as anything
    ("大型植株基部常分歧，茎具纵棱", "常分歧", "person", 0, "broken"),
    ("| MES | 生产制造部 | 任海峰 |", "任海峰", "person", 0, "whole"),
    ("人力资源总监柏文静全面负责部门工作", "柏文静", "person", 0, "whole"),
    # descriptions, ordinary words, a one-character verb inside: names only where the
    # library relates them (a place never: 长沙地区撤区 is "the Changsha area abolished …")
    ("香港在DVD分区属第三区。", "DVD分区属第三区", "location", 1, "provisional"),
    ("1995年长沙地区撤区并乡镇", "长沙地区撤区", "location", 1, "provisional"),
    ("本市有一个俱乐部", "俱乐部", "organization", 3, "provisional"),
    ("雷达系统的火控中心", "雷达系统", "system", 2, "provisional"),
    ("测试组是质量中心下属小组", "测试组", "organization", 1, "provisional"),
    # one character names it and no name starts it: a name where another document uses it too
    ("信息安全组在30分钟内完成初步定级", "信息安全组", "organization", 1, "weak"),
    # whole names
    ("财务管理部设在A栋5楼，部门负责人是财务总监", "A栋5楼", "location", 1, "whole"),
    ("发票逾期财务部不予受理", "财务部", "organization", 1, "whole"),
    ("该城市位于江苏省南京市，是港口", "江苏省南京市", "location", 1, "whole"),
    ("巴黎第四区是巴黎市的一个区", "巴黎第四区", "location", 1, "whole"),
    ("由IT服务台办理账号开通", "IT服务台", "organization", 3, "whole"),
]


@pytest.mark.parametrize(("text", "name", "type_key", "cue", "expected"), READINGS)
def test_a_name_is_read_in_its_sentence(
    text: str, name: str, type_key: str, cue: int, expected: str
) -> None:
    reader = segment.Segmenter()
    try:
        start = text.index(name)
        assert reader.verdict(text, start, start + len(name), type_key, cue) == expected
    finally:
        reader.close()


#: An article and a company note: ordinary words and descriptions that nothing relates, a
#: unit a pattern frames (须经…审批), one related to another unit.
ARTICLE = """# 城市与团体

本市有一个俱乐部，每周举办活动。
城区北部有旅游区和无人区。
报销金额超过五千元的费用须经总经理办公室审批。
测试组是质量中心下属小组，负责验收。
"""


def test_descriptions_stay_only_where_the_library_relates_them(
    dispatcher: Dispatcher, services: Services, pool: ConnectionPool, tmp_path: Path
) -> None:
    library_id = extracted_library(dispatcher, services, tmp_path / "docs", {"article.md": ARTICLE})
    names = _names(pool.get(), library_id)
    assert not {"俱乐部", "旅游区", "无人区"} & set(names), names
    assert names.get("总经理办公室") == "organization", "a pattern's slot makes it act"
    assert names.get("测试组") == names.get("质量中心") == "organization", names


def test_the_dictionary_is_let_go_when_extraction_is_idle_and_read_again(
    dispatcher: Dispatcher,
    services: Services,
    pool: ConnectionPool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import jieba.posseg

    monkeypatch.setattr(segment, "IDLE_RELEASE", 0.2)
    library_id = extracted_library(dispatcher, services, tmp_path / "docs", {"article.md": ARTICLE})
    first = _names(pool.get(), library_id)
    deadline = time.monotonic() + 10
    while jieba.posseg.dt.word_tag_tab and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not jieba.posseg.dt.word_tag_tab, "an idle backend holds no dictionary"
    call(dispatcher, GRAPH_EXTRACT.name, {"libraryId": library_id})
    services.tasks.wait_idle()
    assert _names(pool.get(), library_id) == first, "read again, the same names"
