"""A backend time stamp (ISO 8601, UTC) as a person reads it: local time."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore


def local_time(stamp: str | None, seconds: bool = False) -> str:
    """``stamp`` in local time, to the minute (``seconds``: to the second); "—" for none, the
    stamp's first 19 characters where it does not parse."""
    if not stamp:
        return "—"
    moment = QtCore.QDateTime.fromString(stamp, QtCore.Qt.DateFormat.ISODateWithMs)
    if not moment.isValid():
        return stamp[:19]
    return moment.toLocalTime().toString("yyyy-MM-dd HH:mm:ss" if seconds else "yyyy-MM-dd HH:mm")
