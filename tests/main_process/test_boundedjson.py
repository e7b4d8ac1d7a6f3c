"""JSON from an untrusted party is read with bounded nesting: brackets inside strings do not
count, the limit itself is accepted, one level more is refused as ``TooDeep`` before parsing,
and a 100,000-deep or a 4 MB flat text is judged quickly."""

from __future__ import annotations

import json
import time

import pytest

from goodbuddy_kb.main_process import boundedjson


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_the_limit_is_accepted_and_one_level_more_refused() -> None:
    assert boundedjson.loads(nested(64)) == json.loads(nested(64))
    with pytest.raises(boundedjson.TooDeep):
        boundedjson.loads(nested(65))
    with pytest.raises(boundedjson.TooDeep):
        boundedjson.loads('{"a": ' * 70 + "1" + "}" * 70)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"name": "[" * 1000 + '\\"{' * 500, "list": [[1], [2]]})
    assert boundedjson.loads(text)["list"] == [[1], [2]]


def test_not_json_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        boundedjson.loads("not json {")


def test_hostile_sizes_are_judged_quickly() -> None:
    # processor time, not wall time: a busy machine must not fail it, a quadratic parse still does
    started = time.process_time()
    with pytest.raises(boundedjson.TooDeep):
        boundedjson.loads(nested(100_000))
    flat = json.dumps([[i] for i in range(400_000)])
    assert len(boundedjson.loads(flat)) == 400_000
    assert time.process_time() - started < 5
