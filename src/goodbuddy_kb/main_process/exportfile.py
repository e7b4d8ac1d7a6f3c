"""Writing a file a person asked for (a diagnostics bundle, an exported conversation) to a
path they chose: absolute paths only; an existing path is replaced only when asked and only when
it is a regular file (never a link, folder or device); written beside and renamed in place, so a
failed write leaves whatever was there."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from goodbuddy_kb.contracts.errors import ConflictError, InvalidRequestError
from goodbuddy_kb.contracts.messages import Reason

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _check_target(path: Path, overwrite: bool) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    except OSError:
        return  # the write says what is wrong
    if not stat.S_ISREG(info.st_mode):
        raise InvalidRequestError(
            Reason("diagnostics.not_a_file"),
            {"fields": [{"field": "path", "problem": "not a regular file"}]},
        )
    if not overwrite:
        raise ConflictError(
            Reason("diagnostics.exists"), {"fields": [{"field": "path", "problem": "exists"}]}
        )


def target_path(target: str, overwrite: bool) -> Path:
    """``target`` checked before any work is done to make its content."""
    path = Path(target)
    if not path.is_absolute():
        raise InvalidRequestError(
            "the path must be absolute", {"fields": [{"field": "path", "problem": "not absolute"}]}
        )
    _check_target(path, overwrite)
    return path


def write(path: Path, content: bytes, overwrite: bool) -> None:
    """Write ``content`` to ``path`` (from ``target_path``) atomically."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        # never through a link planted at the temporary name; the owner's alone
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        _check_target(path, overwrite)  # nothing appeared there meanwhile
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise InvalidRequestError(
            f"the file cannot be written ({exc.strerror or exc.__class__.__name__})",
            {"fields": [{"field": "path", "problem": "cannot be written"}]},
        ) from None
