"""Contracts of background tasks (sync, later rebuilds) and their progress notifications."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId

TaskState = Literal["queued", "running", "completed", "failed", "cancelled", "interrupted"]
TaskKind = Literal["sync", "vectorize"]
FINISHED_STATES: frozenset[str] = frozenset({"completed", "failed", "cancelled", "interrupted"})


class TaskInfo(ContractModel):
    id: EntityId
    library_id: EntityId | None
    source_id: EntityId | None
    kind: TaskKind
    state: TaskState
    done: int
    total: int
    failed_documents: int
    current: str | None
    error: str | None
    created_at: str
    finished_at: str | None


class TaskListRequest(ContractModel):
    library_id: EntityId | None = None
    limit: int = Field(50, ge=1, le=200)


class TaskListResponse(ContractModel):
    tasks: list[TaskInfo]


class TaskCancelRequest(ContractModel):
    task_id: EntityId


class TaskCancelResponse(ContractModel):
    task: TaskInfo
