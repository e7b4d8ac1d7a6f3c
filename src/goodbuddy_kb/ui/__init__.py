"""The PySide6 GUI process. It never touches the database, files, credentials or the network;
it only calls the backend through :mod:`goodbuddy_kb.bridge`."""

from __future__ import annotations
