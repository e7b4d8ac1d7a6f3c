"""Reading a source's file safely: once, without following links, only regular files inside
the source root, at most the size limit, from the opened descriptor.

A folder is listed first and read later, so anything on disk can change in between: a file can
become a symbolic link to outside the folder, a FIFO (opening it would block), or a device that
never ends (``/dev/zero``). Every path component below the root is opened relative to its
parent with ``O_NOFOLLOW`` (an ``openat`` walk), the final descriptor is checked with ``fstat``
and the bytes are read from that descriptor, never from the path again. Platforms without
``dir_fd`` support fall back to opening the path and comparing the opened file with a link-free
look-up of the same path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePosixPath

from goodbuddy_kb.contracts.paths import os_path
from goodbuddy_kb.main_process.parsing import MAX_FILE_BYTES, ParseError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_OPENAT = os.open in os.supports_dir_fd and bool(_NOFOLLOW)
_READ_CHUNK = 1024 * 1024


class UnsafePath(ParseError):
    """The path no longer leads to a regular file inside the source root (a link, a FIFO, a
    device, a directory, or a place outside the folder)."""


def too_large(size: int, limit: int = MAX_FILE_BYTES) -> ParseError:
    return ParseError(
        f"file too large ({size / 1048576:.1f} MB; the limit is {limit // 1048576} MB)"
    )


def _components(relative: str) -> list[str]:
    relative = os_path(relative)  # the wire form of a name that is not UTF-8 back to its bytes
    parts = PurePosixPath(relative).parts
    if not parts or any(p in ("", ".", "..") or "/" in p or "\x00" in p for p in parts):
        raise UnsafePath("the path leads outside the source folder")
    if PurePosixPath(relative).is_absolute():
        raise UnsafePath("the path leads outside the source folder")
    return list(parts)


def _refusal(exc: OSError) -> ParseError:
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return UnsafePath("the file is now a symbolic link (links are not followed)")
    if exc.errno == errno.ENOTDIR:
        return UnsafePath("a folder on the path is now a symbolic link or a file")
    if exc.errno == errno.ENOENT:
        return ParseError("the file was moved or deleted")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return ParseError("the file cannot be read (permission denied)")
    return ParseError(f"the file cannot be read ({exc.strerror or exc.__class__.__name__})")


def _open_openat(root: Path, parts: list[str]) -> int:
    directory = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in parts[:-1]:
            child = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=directory)
            os.close(directory)
            directory = child
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it next.
        return os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=directory)
    finally:
        os.close(directory)


def _open_fallback(root: Path, parts: list[str]) -> int:
    path = root.joinpath(*parts)
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise UnsafePath("the file is now a symbolic link (links are not followed)")
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _BINARY)
    try:
        real = Path(os.path.realpath(path))
        real.relative_to(root.resolve())
        if not os.path.samestat(os.fstat(fd), os.lstat(real)):
            raise UnsafePath("the file changed while it was being opened")
    except ValueError:
        os.close(fd)
        raise UnsafePath("the path leads outside the source folder") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_inside(root: Path, relative: str) -> int:
    """A read-only descriptor of the regular file ``relative`` below ``root``; ParseError (an
    ``UnsafePath`` for links and special files) otherwise."""
    parts = _components(relative)
    try:
        fd = _open_openat(root, parts) if _OPENAT else _open_fallback(root, parts)
    except OSError as exc:
        raise _refusal(exc) from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise UnsafePath(f"the path is now {kind} (FIFOs, devices and sockets are not read)")
    return fd


def read_inside(root: Path, relative: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``relative`` below ``root``, read once from one descriptor, at most
    ``limit`` (a larger file is refused, even one that grows while it is read)."""
    fd = open_inside(root, relative)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise too_large(size, limit)
        if _NONBLOCK:
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise too_large(total, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise _refusal(exc) from exc
    finally:
        os.close(fd)


def still_inside(root: Path, relative: str) -> str | None:
    """Why a known path no longer belongs to the source (a link, a special file, outside the
    folder), ``""`` when it is gone, or None when it is still a regular file inside."""
    try:
        os.close(open_inside(root, relative))
    except UnsafePath as exc:
        return exc.reason
    except ParseError as exc:
        return "" if "moved or deleted" in exc.reason else None
    return None
