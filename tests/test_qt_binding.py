"""The installed Qt binding must survive many signal emits (PySide6 6.12.0 aborts the process)."""

from __future__ import annotations

import sys

from goodbuddy_kb.qt import QtCore


class _Emitter(QtCore.QObject):
    fired = QtCore.Signal(int, object)


def test_signal_emit_keeps_reference_counts(qapp: object) -> None:
    emitter = _Emitter()
    seen: list[int] = []
    emitter.fired.connect(lambda n, _obj: seen.append(n))
    before = sys.getrefcount(True)
    for i in range(2_000):
        emitter.fired.emit(i, None)
    assert len(seen) == 2_000
    assert abs(sys.getrefcount(True) - before) < 50
