"""A stored API key goes only to the address it was saved for.

Each stored key (embedding, chat, rerank) is bound to the origin — scheme, host and port
(``contracts.models.service_origin``) — of the connection it was typed for, kept beside it in
the credential store (``<name>.origin``; not a secret). A connection test, a model list or a
save whose address has another origin does not send the stored key: the person types the key
again, or clears it. A key stored before the binding existed belongs to the saved connection's
address. (A helper's try: with only the base URL changed, Test sent the stored key to whatever
listened at the new address.)
"""

from __future__ import annotations

from goodbuddy_kb.contracts.errors import ConflictError
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.models import service_origin
from goodbuddy_kb.main_process.credentials import CredentialStore


def _origin_name(name: str) -> str:
    return f"{name}.origin"


def bound_origin(credentials: CredentialStore, name: str, saved_url: str | None) -> str | None:
    """The origin the stored key ``name`` belongs to (None: no key stored, or a key stored before
    the binding whose saved connection has no address)."""
    if not credentials.get(name):
        return None
    return _origin_of(credentials, name, saved_url)


def _origin_of(credentials: CredentialStore, name: str, saved_url: str | None) -> str | None:
    """The origin recorded for the key ``name``, else (stored before the binding) the saved
    connection's."""
    return credentials.get(_origin_name(name)) or service_origin(saved_url)


def store_key(credentials: CredentialStore, name: str, secret: str | None, url: str | None) -> None:
    """Stores (or, with no secret, removes) the key ``name`` typed for a connection to ``url``."""
    credentials.set(name, secret or None)
    origin = service_origin(url) if secret else None
    credentials.set(_origin_name(name), origin)


def key_for(
    credentials: CredentialStore, name: str, url: str | None, saved_url: str | None
) -> str | None:
    """The stored key ``name`` for a request to ``url`` (None: no key stored, or no address to
    send one to). A key bound to another origin is refused with the reason, not left out in
    silence: a request without it would fail as "unauthorised" and say nothing of why."""
    key = credentials.get(name)
    target = service_origin(url)
    if not key or target is None:
        return None
    origin = _origin_of(credentials, name, saved_url)  # (the key was read just above)
    if origin == target:
        return key
    if origin is None:
        raise ConflictError(Reason("key.elsewhere_unknown", target=target))
    raise ConflictError(Reason("key.elsewhere", origin=origin, target=target))


def typed_or_stored(
    credentials: CredentialStore,
    name: str,
    typed: str | None,
    url: str | None,
    saved_url: str | None,
) -> str | None:
    """The key for a test or a model list of the form's address: the one typed (""
    tests without one), else the stored one where it belongs (:func:`key_for`)."""
    return typed if typed is not None else key_for(credentials, name, url, saved_url)


def check_kept(
    credentials: CredentialStore, name: str, url: str | None, saved_url: str | None
) -> None:
    """A save that keeps the stored key (none typed) for a connection to ``url``: refused when the
    key belongs to another origin; a key stored before the binding is bound to ``url`` now."""
    if key_for(credentials, name, url, saved_url) is not None and not credentials.get(
        _origin_name(name)
    ):
        credentials.set(_origin_name(name), service_origin(url))
