"""Sources of one library that would bring the same file in twice: a file inside a folder source,
a folder holding a file source, two folders one inside the other whose patterns take the same
files. Each copy would be indexed, so every search would show the passage twice and one edit
would have to be made twice; adding such a source is refused, naming the source it overlaps."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts.errors import ConflictError
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.contracts.paths import os_path, readable_path, wire_path
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.folder import list_folder, selects


def _shared(
    kind: str, path: Path, include: list[str], exclude: list[str], other: SourceRow
) -> list[Path]:
    """The files both the new source and ``other`` would take (the new one at ``path``)."""
    there = Path(os_path(other.location))
    if kind == "file":
        taken = other.kind == "folder" and selects(there, path, other.include, other.exclude)
        return [path] if taken else []
    if other.kind == "file":
        return [there] if selects(path, there, include, exclude) else []
    if there.is_relative_to(path):
        inner, outer = (there, other.include, other.exclude), (path, include, exclude)
    elif path.is_relative_to(there):
        inner, outer = (path, include, exclude), (there, other.include, other.exclude)
    else:
        return []
    if not inner[0].is_dir():
        return []
    listed = (inner[0] / os_path(rel) for rel in list_folder(*inner))
    return [f for f in listed if selects(outer[0], f, outer[1], outer[2])]


def refuse_overlap(
    existing: list[SourceRow], kind: str, location: str, include: list[str], exclude: list[str]
) -> None:
    """ConflictError naming the first source of ``existing`` that takes a file the new source
    (``location`` in its wire form, resolved) would take too. Web sources never overlap."""
    if kind == "web":
        return
    path = Path(os_path(location))
    for other in existing:
        if other.kind == "web" or other.location == location:
            continue  # the same location twice is the store's own refusal
        both = _shared(kind, path, include, exclude, other)
        if not both:
            continue
        name = readable_path(other.location)
        if kind == "file":
            message = english("source.inside_folder", {"other": name})
        else:
            params = {
                "count": len(both),
                "other": name,
                "path": readable_path(wire_path(both[0].relative_to(path).as_posix())),
            }
            message = english("source.shares_files", params)
        raise ConflictError(message, {"sourceId": other.id, "shared": len(both)})
