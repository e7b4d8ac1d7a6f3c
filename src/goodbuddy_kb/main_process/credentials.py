"""API keys: the OS keyring, or an encrypted file where no keyring backend exists.

Keys never leave the backend: not to the GUI, not into logs, diagnostics or errors.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

log = logging.getLogger(__name__)
SERVICE = "goodbuddy-kb"


def _keyring_usable() -> bool:
    try:
        import keyring
        from keyring.backends import fail, null

        backend = keyring.get_keyring()
        return not isinstance(backend, fail.Keyring | null.Keyring)
    except Exception:
        return False


class CredentialStore:
    def __init__(self, data_dir: Path, use_keyring: bool | None = None) -> None:
        self._dir = data_dir
        self._keyring = _keyring_usable() if use_keyring is None else use_keyring

    @property
    def backend(self) -> str:
        return "keyring" if self._keyring else "encrypted-file"

    def _fernet(self) -> Fernet:
        key_path = self._dir / "credentials.key"
        if not key_path.exists():
            fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(Fernet.generate_key())
        return Fernet(key_path.read_bytes())

    def _load_file(self) -> dict[str, str]:
        path = self._dir / "credentials.enc"
        if not path.exists():
            return {}
        try:
            return dict(json.loads(self._fernet().decrypt(path.read_bytes())))
        except (InvalidToken, ValueError):
            log.warning("the encrypted credential file could not be read; stored keys are lost")
            return {}

    def _save_file(self, values: dict[str, str]) -> None:
        path = self._dir / "credentials.enc"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(self._fernet().encrypt(json.dumps(values).encode()))
        os.replace(tmp, path)

    def get(self, name: str) -> str | None:
        if self._keyring:
            import keyring

            return keyring.get_password(SERVICE, name)
        return self._load_file().get(name)

    def set(self, name: str, secret: str | None) -> None:
        if self._keyring:
            import keyring

            if secret:
                keyring.set_password(SERVICE, name, secret)
            else:
                with contextlib.suppress(keyring.errors.PasswordDeleteError):
                    keyring.delete_password(SERVICE, name)
            return
        values = self._load_file()
        if secret:
            values[name] = secret
        else:
            values.pop(name, None)
        self._save_file(values)
