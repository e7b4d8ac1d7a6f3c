"""Listing a folder source: recursive, include/exclude patterns, hidden files skipped, symbolic
links skipped (never followed, inside the folder or out: the reader refuses them too), only
regular files of supported types, and never the app's own data directory (``keep_out``: a
folder source holding it imported the app's readme and exports as documents)."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from goodbuddy_kb.contracts.paths import wire_path
from goodbuddy_kb.main_process.parsing import SUPPORTED_SUFFIXES

#: Folders no source lists: the app's own data directory, set when the backend starts.
_KEPT_OUT: set[Path] = set()


def keep_out(folder: Path) -> None:
    """Never list ``folder`` or anything in it (the backend's data directory)."""
    _KEPT_OUT.add(folder.resolve())


def kept_out(path: Path) -> Path | None:
    """The kept-out folder that is ``path`` or holds it, if any."""
    return next((k for k in _KEPT_OUT if path == k or path.is_relative_to(k)), None)


def _matches(relative: str, patterns: list[str]) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase(name, p) for p in patterns)


def _patterns_take(relative: str, include: list[str], exclude: list[str]) -> bool:
    """Whether a folder source's patterns take the file at ``relative`` (POSIX, from its root)."""
    if include and not _matches(relative, include):
        return False
    return not (exclude and _matches(relative, exclude))


def selects(root: Path, path: Path, include: list[str], exclude: list[str]) -> bool:
    """Whether listing ``root`` with these patterns takes the file ``path``, as ``list_folder``
    would (a hidden name on the way or an unreadable type: not)."""
    if not path.is_relative_to(root) or kept_out(path) is not None:
        return False
    relative = path.relative_to(root)
    if any(part.startswith(".") for part in relative.parts):
        return False
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        return False
    return _patterns_take(relative.as_posix(), include, exclude)


def list_folder(root: Path, include: list[str], exclude: list[str]) -> list[str]:
    """Every eligible file as a relative POSIX path in its wire form (a name that is not UTF-8
    keeps its bytes: ``contracts/paths.py``), sorted (so the same folder lists the same)."""
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(directory)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".") and not (base / d).is_symlink() and (base / d) not in _KEPT_OUT
        )
        for name in filenames:
            if name.startswith(".") or Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            path = base / name
            if path.is_symlink() or not path.is_file():
                continue  # links, FIFOs, sockets, devices: reading could escape, hang or fail
            relative = path.relative_to(root).as_posix()
            if _patterns_take(relative, include, exclude):
                found.append(wire_path(relative))
    return sorted(found)
