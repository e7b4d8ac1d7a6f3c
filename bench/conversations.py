"""Conversation search benchmark: 1,000 conversations × 20 messages (bilingual questions and
answers about everyday company topics), written through the backend's own store (so the search
index is kept the way the chat keeps it), then `chat:conversation:list` with a query over the
real socket. Prints p50/p95 per query kind and overall (target: p50 ≤ 30 ms).

    .venv/bin/python bench/conversations.py [--conversations N] [--messages M] [--rounds R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts.methods import CONVERSATION_LIST, SYSTEM_PING
from goodbuddy_kb.contracts.system import PingRequest
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.chat import store

TOPICS_ZH = [
    ("差旅报销", "一线城市住宿标准每晚不超过六百元，需在出差结束后十五个工作日内提交发票。"),
    ("年假", "员工入职满一年后享有五天带薪年假，满十年后增加到十天，可分次休完。"),
    ("加班", "工作日加班按一点五倍计算，周末加班优先安排调休，法定节假日三倍工资。"),
    ("采购流程", "五千元以上的采购需要三家供应商比价，并由部门负责人和财务共同审批。"),
    ("信息安全", "笔记本电脑必须开启全盘加密，离开座位时锁屏，密码每九十天更换一次。"),
    ("绩效考核", "绩效考核每半年一次，结果分为优秀、良好、合格和待改进四个等级。"),
    ("社保公积金", "公司按员工工资的百分之十二缴纳住房公积金，社保基数每年七月调整。"),
    ("办公用品", "办公用品每月第一周集中申领，贵重设备需要登记资产编号。"),
]
TOPICS_EN = [
    ("expense claims", "Receipts must be submitted within thirty days; meals abroad are capped."),
    ("remote work", "Staff may work from home two days a week after their probation period."),
    ("onboarding", "New hires get a laptop, a badge and a buddy during their first week."),
    ("security policy", "Phishing attempts should be reported to the helpdesk immediately."),
    ("parental leave", "Parents receive sixteen weeks of paid leave, taken within the first year."),
    ("procurement", "Purchases above five thousand need three quotes and a finance approval."),
    ("performance review", "Reviews happen twice a year with calibration across departments."),
    ("travel insurance", "Business trips are covered by the group policy, including luggage."),
]
QUERIES = {
    "zh-common": ["报销", "年假", "加班", "公积金", "审批"],
    "zh-rare": ["资产编号", "全盘加密", "调休", "十五个工作日"],
    "en-common": ["policy", "leave", "receipts", "approval"],
    "en-rare": ["calibration", "luggage", "phishing", "probation"],
    "mixed": ["报销 receipts", "年假 leave", "VPN 加密"],
}


def populate(data_dir: Path, conversations: int, messages: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    pool = open_database(data_dir)
    conn = pool.get()
    for n in range(conversations):
        zh = n % 2 == 0
        topic, fact = rng.choice(TOPICS_ZH if zh else TOPICS_EN)
        conversation = store.create_conversation(conn, "New chat")
        for turn in range(messages // 2):
            other, other_fact = rng.choice(TOPICS_ZH if rng.random() < 0.5 else TOPICS_EN)
            question = (
                f"关于{topic}，第{turn + 1}个问题：{other}怎么规定？"
                if zh
                else f"About {topic}, question {turn + 1}: what does the {other} rule say?"
            )
            answer = f"{fact} {other_fact} (conversation {n}, turn {turn + 1}) [1]"
            store.add_message(conn, conversation.id, "user", question, "complete")
            store.add_message(conn, conversation.id, "assistant", answer, "complete")
    pool.close_all()


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=1_000)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        started = time.perf_counter()
        populate(data_dir, args.conversations, args.messages)
        print(
            f"{args.conversations} conversations × {args.messages} messages written in "
            f"{time.perf_counter() - started:.1f} s"
        )
        backend = BackendProcess.start(data_dir)
        try:
            with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as c:
                everything: list[float] = []
                for kind, queries in QUERIES.items():
                    samples: list[float] = []
                    hits = 0
                    for _ in range(args.rounds):
                        for query in queries:
                            t0 = time.perf_counter()
                            found = c.call(
                                CONVERSATION_LIST, ch.ConversationListRequest(query=query)
                            )
                            samples.append((time.perf_counter() - t0) * 1000)
                            hits = max(hits, len(found.conversations))
                    everything += samples
                    print(
                        f"{kind:<10} p50 {statistics.median(samples):6.1f} ms  "
                        f"p95 {percentile(samples, 0.95):6.1f} ms  (up to {hits} listed)"
                    )
                ping = statistics.median(
                    timed(lambda: c.call(SYSTEM_PING, PingRequest())) for _ in range(200)
                )
                plain = statistics.median(
                    timed(lambda: c.call(CONVERSATION_LIST, ch.ConversationListRequest()))
                    for _ in range(50)
                )
                print(
                    f"(for scale on this machine: system:ping p50 {ping:.2f} ms; the list of 200"
                    f" without a query p50 {plain:.1f} ms)"
                )
                print(
                    f"{'overall':<10} p50 {statistics.median(everything):6.1f} ms  "
                    f"p95 {percentile(everything, 0.95):6.1f} ms  over {len(everything)} searches"
                    " (target p50 ≤ 30 ms)"
                )
        finally:
            backend.stop()


if __name__ == "__main__":
    main()
