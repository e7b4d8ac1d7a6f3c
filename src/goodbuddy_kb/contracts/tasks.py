"""Contracts of background tasks (sync, vectorisation, rebuild), their progress notifications
and the per-document summary a finished task keeps in its history."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.graph import GraphRunSummary
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.messages import code_fields
from goodbuddy_kb.contracts.rebuild import ManualWorkOutcome

TaskState = Literal["queued", "running", "completed", "failed", "cancelled", "interrupted"]
TaskKind = Literal["sync", "vectorize", "rebuild", "graph", "ocr"]
FINISHED_STATES: frozenset[str] = frozenset({"completed", "failed", "cancelled", "interrupted"})


class TaskSummary(ContractModel):
    """Document counts of a sync or rebuild (PRD §13): what a user reads in the task history."""

    #: Documents written anew (parsed, chunked and indexed) by this task.
    succeeded: int = 0
    #: Documents that failed; a rebuild keeps their previous generation serving.
    failed: int = 0
    #: Sync: files skipped because their checksum did not change.
    unchanged: int = 0
    #: Sync: previously failed documents tried again although their file did not change.
    retried: int = 0
    #: Rebuild: documents not reached because the task was cancelled (they stay as they were).
    not_started: int = 0
    #: Sync: scanned documents handed to the OCR task (their text arrives when it has run).
    ocr_pending: int = 0
    #: Sync: documents taken out of the library because their file or page is gone.
    removed: int = 0
    #: Sync: files past the per-source file limit, not imported (they stay on disk).
    overflow: int = 0
    #: Library rebuild: the "waiting for rebuild" notice was cleared (None: not applicable).
    settings_applied: bool | None = None
    #: Graph extraction: what the run did (model requests and rejected answer parts).
    graph: GraphRunSummary | None = None
    #: Rebuild: what became of a person's chunk edits, disabled and deleted chunks.
    manual_work: ManualWorkOutcome | None = None


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
    #: The target of a single-document rebuild.
    document_id: EntityId | None = None
    summary: TaskSummary | None = None
    #: Items per second (chunks for vectorisation, documents for sync and rebuild) over the
    #: last half minute while running, the average once finished; None until measurable.
    rate: float | None = None
    #: Seconds left at that rate while running; None while unknown.
    eta_seconds: float | None = None
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    #: The library's name as it is now (None: no library, or it was deleted), so that a notice
    #: about the task can say which library it was about.
    library_name: str | None = None
    fill_codes: ClassVar[Any] = code_fields("error")

    def stage(self) -> int:
        """How far the task's life has gone: queued 0, running 1, finished 2. A task only moves
        forward, so of two reports of one task the one at an earlier stage is the older."""
        return 2 if self.state in FINISHED_STATES else (1 if self.state == "running" else 0)

    def is_older_than(self, other: TaskInfo) -> bool:
        """Whether this report of a task is older than ``other`` of the same task: reports can
        arrive out of order (a task list read before the task's last notification), and an
        older one must not take a finished task back to "running"."""
        return other.id == self.id and self.stage() < other.stage()


class TaskListRequest(ContractModel):
    library_id: EntityId | None = None
    limit: int = Field(50, ge=1, le=200)


class TaskListResponse(ContractModel):
    tasks: list[TaskInfo]


class TaskCancelRequest(ContractModel):
    task_id: EntityId


class TaskCancelResponse(ContractModel):
    task: TaskInfo


#: A task's current step while the embedding model loads, before the first batch (the GUI
#: shows it in the user's language).
STEP_LOADING_MODEL = "loading the embedding model…"
#: The same for a model that runs elsewhere (OpenAI-compatible, Ollama): nothing loads here, the
#: service is asked for its dimensions ("loading the embedding model" read as if it ran here).
STEP_CONNECTING = "connecting to the embedding service…"
#: The steps a task takes before its first batch, while its total is known.
MODEL_STEPS = frozenset({STEP_LOADING_MODEL, STEP_CONNECTING})
#: A vectorisation's step while it fills a library's first vector version: what it has
#: written is already searched (the GUI says so in the user's language).
STEP_FILLING = "searchable while it fills"
#: The same while the library's import still adds chunks: its total grows with them, so it has
#: no share done and no time left to show yet (40/83 (48%) became 189/800 (23%)).
STEP_GROWING = "growing with its import"
#: A vectorisation the app's stopping cut off, started again by itself at the next start (a
#: rebuild for a new model starts from the beginning: its half-built version did not survive).
STEP_RESUMED = "started again after the app stopped"
#: The steps above: words of a task's progress, never a document's name (the GUI translates
#: them; a one-document task's row names its document only when its step is none of them).
STEPS = frozenset({*MODEL_STEPS, STEP_FILLING, STEP_GROWING, STEP_RESUMED})
