"""A task's pace (items per second and the time left), on a clock the test moves."""

from __future__ import annotations

from goodbuddy_kb.main_process.throughput import WINDOW_S, Throughput


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_no_rate_until_something_is_done() -> None:
    clock = Clock()
    pace = Throughput(clock)
    pace.add(0)
    clock.now += 30  # the model is loading
    pace.add(0)
    assert pace.rate() is None and pace.eta_s(0, 100) is None and pace.average() is None


def test_rate_and_time_left_follow_the_work() -> None:
    clock = Clock()
    pace = Throughput(clock)
    for done in range(0, 41, 4):  # 4 chunks every 2 s = 2 chunks/s
        pace.add(done)
        clock.now += 2
    clock.now -= 2
    assert pace.rate() == 2.0  # measured up to now, which is the last report
    assert pace.eta_s(40, 100) == 30.0
    assert pace.eta_s(100, 100) == 0.0


def test_the_rate_follows_a_machine_that_slows_down() -> None:
    clock = Clock()
    pace = Throughput(clock)
    done = 0
    for _ in range(30):  # 10 chunks/s for 30 s
        pace.add(done)
        clock.now += 1
        done += 10
    for _ in range(int(WINDOW_S) + 5):  # then 1 chunk/s
        pace.add(done)
        clock.now += 1
        done += 1
    rate = pace.rate()
    assert rate is not None and rate < 1.5, "the window forgets the fast start"
    average = pace.average()
    assert average is not None and average > 4, "the average keeps the whole task"


def test_a_long_batch_slows_the_pace_without_zeroing_it() -> None:
    clock = Clock()
    pace = Throughput(clock)
    pace.add(0)
    clock.now += 10
    pace.add(20)  # 2 per second
    assert pace.rate() == 2.0
    for _ in range(int(WINDOW_S) + 10):
        clock.now += 1
        pace.add(20)  # heartbeats while one long batch runs
    rate = pace.rate()
    assert rate is not None and 0 < rate < 1.0
    eta = pace.eta_s(20, 100)
    assert eta is not None and eta > 40.0, "the time left grows while nothing arrives"
    clock.now += 1
    pace.add(60)
    assert pace.average() == 60 / (clock.now - 100.0)


def test_items_that_cost_nothing_do_not_speed_up_the_rest() -> None:
    """A rebuild after a cancelled one: its first 7 documents were done already and took no
    time, the rest take 2 s each. At 9/30 it read "2.2 documents/s · about 9 s left" with 42 s
    to go (a helper's try)."""
    clock = Clock()
    pace = Throughput(clock)
    pace.add(0)
    for done in range(1, 8):
        clock.now += 0.07
        pace.add(done)
    for done in (8, 9):
        clock.now += 2.0
        pace.add(done)
    rate = pace.rate()
    assert rate is not None and rate < 0.8  # (the last three moves: one cost nothing)
    eta = pace.eta_s(9, 30)
    assert eta is not None and eta > 25
