"""Handler registration against the contracts method table: exactly one handler per method."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.methods import METHODS, MethodSpec
from goodbuddy_kb.main_process.services import Services
from goodbuddy_kb.main_process.storage.db import ConnectionPool

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)


@dataclass
class Changes:
    """What a mutation changed, broadcast to every client once the mutation has succeeded."""

    library_ids: list[str] = field(default_factory=list)
    libraries: bool = False
    settings: bool = False
    sources: bool = False
    documents: bool = False
    external_calls: bool = False


@dataclass
class CallContext:
    """What a handler may use: the database, the data directory, the services, and a change
    collector."""

    db: ConnectionPool
    data_dir: Path
    services: Services
    changes: Changes = field(default_factory=Changes)


Handler = Callable[[CallContext, Any], ContractModel]
REGISTRY: dict[str, Handler] = {}


def handles(
    spec: MethodSpec[Req, Resp],
) -> Callable[[Callable[[CallContext, Req], Resp]], Callable[[CallContext, Req], Resp]]:
    def register(fn: Callable[[CallContext, Req], Resp]) -> Callable[[CallContext, Req], Resp]:
        if spec.name in REGISTRY:
            raise RuntimeError(f"two handlers for {spec.name}")
        REGISTRY[spec.name] = fn
        return fn

    return register


def check_complete() -> None:
    """Start-up check: the registry and the method table name exactly the same methods."""
    missing = sorted(set(METHODS) - set(REGISTRY))
    extra = sorted(set(REGISTRY) - set(METHODS))
    if missing or extra:
        raise RuntimeError(f"handler table mismatch: missing={missing} extra={extra}")
