"""The model extractor: the configured chat model reads each chunk and names the entities and
relations it finds, restricted to the library's ontology (a JSON schema whose type fields are
enumerations of the ontology's keys). The chunk travels as a JSON string inside the user
message and the instructions say it is data, never instructions (``model_request``).

Nothing the model says is trusted: an entity or relation type outside the ontology, endpoints
the relation type does not allow, a name the chunk does not contain (folded matching, like the
local matcher), a malformed answer, or more than the per-chunk maximum is rejected and counted
in the run's summary (``model_answer``). Accepted names become evidence at their real offsets
in the chunk; this module owns the run, ``model_write`` its writes.

Answers are validated before anything is replaced: a chunk whose whole answer is rejected (an
invalid stream, not JSON, the wrong shape, nothing that holds up) keeps its previous extraction
and is asked again next run, and a run in which no answer could be used — all rejected, all
failed, or all empty over chunks that had a graph — keeps the previous graph and fails with
the reason, never "completed" over a wiped graph.

Cost is bounded: at most ``model_max_chunks`` chunks per run (the rest wait for the next run),
chunks already read from the same text, model and ontology are never sent again, 1–4 requests
in flight, each with a deadline, retried with exponential backoff. A cancel closes every
request in flight, so a run stops within one request.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from goodbuddy_kb.contracts.chat import ChatConnection
from goodbuddy_kb.contracts.errors import CancelledError, KbError, TimeoutError_, UnavailableError
from goodbuddy_kb.contracts.graph import GraphRunSummary, GraphSettings, JsonMode, Ontology
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chat.clients import ChatClient, Turn
from goodbuddy_kb.main_process.chat.events import InvalidStream
from goodbuddy_kb.main_process.graph import store
from goodbuddy_kb.main_process.graph.model_answer import (
    ANSWER_STREAM,
    MAX_ANSWER_CHARACTERS,
    Accepted,
    Counts,
    all_rejected,
    chunk_rejected,
    read_answer,
    some_rejected,
)
from goodbuddy_kb.main_process.graph.model_request import (
    JSON_MODES,
    MAX_REPLY_TOKENS,
    messages,
    request_extra,
)
from goodbuddy_kb.main_process.graph.model_write import Chunk, Writes
from goodbuddy_kb.main_process.storage import app_settings, graph_rows
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.storage.setting_keys import CHAT_SETTING

log = logging.getLogger(__name__)

#: A run stops once this many chunks in a row failed (the service is down, not one chunk).
MAX_FAILURES_IN_A_ROW = 3
BACKOFF_S = 0.5
#: HTTP statuses of a server refusing the request as asked (a JSON mode it does not know).
REFUSED = frozenset({400, 422})
NO_CHAT_MODEL = "model extraction needs a chat model (Settings → Model connections)"

ChatFactory = Callable[[], ChatClient | None]
Progress = Callable[[int, int], None]


def chat_client(conn: sqlite3.Connection, api_key: str | None) -> ChatClient | None:
    """The configured chat model's client, or None while none is configured."""
    connection = app_settings.read(conn, CHAT_SETTING, ChatConnection)
    if connection is None or connection.kind == "none":
        return None
    assert connection.base_url and connection.model
    return ChatClient(
        connection.kind, connection.base_url, connection.model, api_key, connection.timeout_s
    )


def ontology_hash(ontology: Ontology) -> str:
    return hashlib.sha256(ontology.model_dump_json(by_alias=True).encode()).hexdigest()[:32]


# -- the run ---------------------------------------------------------------------------------
def pending_chunks(
    conn: sqlite3.Connection, library_id: str, model: str, ontology_key: str
) -> list[Chunk]:
    """Retrievable chunks the model has not read from their current text with this model and
    ontology, in document order."""
    rows = conn.execute(
        "SELECT c.seq, c.document_id, c.content, c.checksum FROM chunks c"
        " LEFT JOIN graph_model_done m ON m.chunk_seq = c.seq AND m.checksum = c.checksum"
        " AND m.model = ? AND m.ontology_hash = ?"
        " WHERE c.library_id = ? AND c.enabled = 1 AND c.role != 'parent' AND m.chunk_seq IS NULL"
        " ORDER BY c.document_id, c.ordinal",
        (model, ontology_key, library_id),
    ).fetchall()
    return [Chunk(r[0], r[1], r[2], r[3]) for r in rows]


def estimate_calls(conn: sqlite3.Connection, library_id: str, model: str) -> int:
    """Requests the next model run would send (retries aside)."""
    settings = store.settings(conn, library_id)
    key = ontology_hash(store.ontology(conn, library_id))
    (count,) = conn.execute(
        "SELECT count(*) FROM chunks c LEFT JOIN graph_model_done m ON m.chunk_seq = c.seq"
        " AND m.checksum = c.checksum AND m.model = ? AND m.ontology_hash = ?"
        " WHERE c.library_id = ? AND c.enabled = 1 AND c.role != 'parent'"
        " AND m.chunk_seq IS NULL",
        (model, key, library_id),
    ).fetchone()
    return min(int(count), settings.model_max_chunks)


class _Asker:
    """One chunk's request with a deadline, retries and backoff; counts every request."""

    def __init__(
        self,
        client: ChatClient,
        ontology: Ontology,
        settings: GraphSettings,
        cancel: CancelToken,
        summary: Counts,
    ) -> None:
        self._client = client
        self._ontology = ontology
        self._settings = settings
        self._cancel = cancel
        self._summary = summary
        self._lock = threading.Lock()

    def __call__(self, text: str) -> str:
        error: KbError = UnavailableError("the chat model did not answer")
        attempt = 0
        while attempt <= self._settings.model_retries:
            if attempt:
                self._sleep(BACKOFF_S * 2 ** (attempt - 1))
            self._cancel.check()
            with self._lock:
                self._summary.model_calls += 1
                mode = self._summary.json_mode
            try:
                return self._once(text, mode)
            except InvalidStream:
                raise  # the model answered, badly: that answer is rejected, not retried
            except (TimeoutError_, UnavailableError) as exc:
                error = exc
                if self._plainer(exc, mode):
                    continue  # asked again at once, in the plainer mode (not a retry)
            attempt += 1
        raise error

    def _plainer(self, error: KbError, mode: JsonMode) -> bool:
        """A server that refuses the request (HTTP 400/422) may not know the JSON mode asked
        for: the run asks in the next plainer one from now on. False when none is left."""
        if error.details.get("status") not in REFUSED or mode == JSON_MODES[-1]:
            return False
        with self._lock:
            if self._summary.json_mode == mode:  # another request may have stepped down
                self._summary.json_mode = JSON_MODES[JSON_MODES.index(mode) + 1]
                log.info("graph extraction: the server refused %s; asking again", mode)
        return True

    def _once(self, text: str, mode: JsonMode) -> str:
        call = CancelToken()
        self._cancel.on_cancel(lambda: call.cancel(self._cancel.reason))
        seconds = self._settings.model_timeout_s
        timer = threading.Timer(seconds, call.cancel, args=("timeout",))
        timer.daemon = True
        timer.start()
        turn, received = Turn(), [0]

        def on_text(delta: str) -> None:
            # an answer past the cap is not read further: read_answer refuses it by its length
            received[0] += len(delta)
            if received[0] > MAX_ANSWER_CHARACTERS:
                call.cancel("the answer is too long")

        try:
            self._client.turn(
                messages(self._ontology, text),
                [],
                on_text,
                call,
                turn,
                max_tokens=MAX_REPLY_TOKENS,
                extra=request_extra(self._client.kind, self._ontology, mode),
            )
        except CancelledError:
            self._cancel.check()  # the run's cancel, not this request's deadline
            if received[0] > MAX_ANSWER_CHARACTERS:
                return turn.text
            raise TimeoutError_(f"the chat model did not answer within {seconds:g} s") from None
        finally:
            timer.cancel()
        return turn.text

    def _sleep(self, seconds: float) -> None:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self._cancel.check()
            time.sleep(min(0.05, max(0.0, until - time.monotonic())))


def failed_reason(error: KbError) -> str:
    return f"the chat model could not extract the graph: {error}"


@dataclass
class ModelRun:
    counts: Counts
    #: The run stopped because the chat model failed several chunks in a row (the reason).
    stopped: str | None = None
    #: The run was cancelled (the reason); what it finished is kept.
    cancelled: str | None = None
    #: The first whole answer rejected (the reason), for the run's end.
    rejected: str | None = None

    @property
    def error(self) -> str | None:
        """Why the run failed, or what a completed run could not use."""
        count = sum(self.counts.rejected_answers.values())
        if self.stopped is not None or self.rejected is None or self.cancelled is not None:
            return self.stopped
        return some_rejected(count, self.rejected)


def extract_with_model(
    conn: sqlite3.Connection,
    library_id: str,
    client: ChatClient,
    cancel: CancelToken,
    progress: Progress | None = None,
) -> ModelRun:
    """One model run over the library (see the module docstring). Each document is written in
    one transaction once all its chunks are answered; a document whose request failed keeps its
    previous evidence and gets graph status "failed" with the reason."""
    settings = store.settings(conn, library_id)
    ontology = store.ontology(conn, library_id)
    key = ontology_hash(ontology)
    summary = Counts(run_id=uuid.uuid4().hex, model=client.model)
    chunks = pending_chunks(conn, library_id, client.model, key)
    (total_chunks,) = conn.execute(
        "SELECT count(*) FROM chunks WHERE library_id = ? AND enabled = 1 AND role != 'parent'",
        (library_id,),
    ).fetchone()
    summary.unchanged = int(total_chunks) - len(chunks)
    summary.capped = max(0, len(chunks) - settings.model_max_chunks)
    chunks = chunks[: settings.model_max_chunks]
    by_document: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document_id, []).append(chunk)
    store.mark_running(conn, library_id, list(by_document))
    ask = _Asker(client, ontology, settings, cancel, summary)
    failures_in_a_row = 0
    done_chunks = 0
    run = ModelRun(summary)
    last_error: KbError | None = None
    writes = Writes(conn, library_id, summary, key)
    with ThreadPoolExecutor(
        max_workers=settings.model_concurrency, thread_name_prefix="kb-graph-model"
    ) as pool:
        # every request of the run is queued at once; the pool keeps 1–4 in flight and a
        # cancel (or a stop) cancels the queued ones and closes the ones in flight
        futures = {
            c.seq: pool.submit(ask, c.content) for rows in by_document.values() for c in rows
        }
        try:
            for document_id, rows in by_document.items():
                answers: list[tuple[Chunk, Accepted]] = []
                error: KbError | None = None
                rejected: str | None = None
                for chunk in rows:
                    try:
                        verdict = _verdict(futures[chunk.seq], chunk, ontology, settings, summary)
                        failures_in_a_row = 0
                        if isinstance(verdict, str):
                            rejected = rejected or verdict
                            run.rejected = run.rejected or verdict
                        else:
                            answers.append((chunk, verdict))
                    except CancelledError as exc:
                        run.cancelled = exc.message
                        break
                    except KbError as exc:
                        error = exc
                        summary.failed_chunks += 1
                        failures_in_a_row += 1
                    done_chunks += 1
                    if progress is not None:
                        progress(done_chunks, len(chunks))
                if run.cancelled is not None:
                    break  # the document's answers so far are not written: it stays as it was
                failed = failed_reason(error) if error is not None else None
                if failed is None and rejected is not None:
                    failed = chunk_rejected(rejected)
                writes.add(document_id, answers, failed)
                if error is not None:
                    last_error = error
                if failures_in_a_row >= MAX_FAILURES_IN_A_ROW and error is not None:
                    run.stopped = failed_reason(error)
                    break
        finally:
            cancel_pending(futures.values())
    empty = writes.finish()
    if summary.chunks == 0 and run.cancelled is None and run.stopped is None:
        # nothing at all could be used: the run failed, and the previous graph stands
        if last_error is not None:
            run.stopped = failed_reason(last_error)
        elif run.rejected is not None:
            run.stopped = all_rejected(sum(summary.rejected_answers.values()), run.rejected)
        else:
            run.stopped = empty
    if run.stopped is None and run.cancelled is None:
        _read_already(conn, library_id, client.model, key)
    with transaction(conn):
        graph_rows.prune(conn, library_id)
        if summary.capped == 0 and run.stopped is None and run.cancelled is None:
            conn.execute(
                "UPDATE graph_settings SET needs_rebuild = 0 WHERE library_id = ?", (library_id,)
            )
    return run


def _read_already(conn: sqlite3.Connection, library_id: str, model: str, key: str) -> None:
    """Documents waiting whose every chunk the model has already read with this ontology (a
    rebuild that kept their text) have their graph: done."""
    remaining = {c.document_id for c in pending_chunks(conn, library_id, model, key)}
    with transaction(conn):
        conn.executemany(
            "UPDATE documents SET graph_status = 'done', graph_error = NULL WHERE id = ?",
            [
                (row[0],)
                for row in conn.execute(
                    "SELECT id FROM documents WHERE library_id = ? AND parse_status = 'done'"
                    " AND graph_status IN ('on_demand', 'pending')",
                    (library_id,),
                )
                if row[0] not in remaining
            ],
        )


def _verdict(
    future: Future[str],
    chunk: Chunk,
    ontology: Ontology,
    settings: GraphSettings,
    summary: Counts,
) -> Accepted | str:
    """The chunk's accepted answer, or why it was rejected as a whole (counted in
    ``summary``); a failed request raises."""
    try:
        text = future.result()
    except InvalidStream as exc:
        log.info("graph extraction: rejected chunk %s: %s", chunk.seq, exc.detail)
        summary.rejected_malformed += 1
        return summary.reject(ANSWER_STREAM)
    return read_answer(text, chunk.content, ontology, settings, summary)


def cancel_pending(futures: Any) -> None:
    for future in futures:
        if isinstance(future, Future):
            future.cancel()


def last_run(conn: sqlite3.Connection, library_id: str) -> GraphRunSummary | None:
    """The summary of the library's last finished extraction run."""
    row = conn.execute(
        "SELECT json_extract(details, '$.summary.graph') FROM tasks WHERE library_id = ?"
        " AND kind = 'graph' AND json_extract(details, '$.summary.graph') IS NOT NULL"
        " ORDER BY finished_at DESC LIMIT 1",
        (library_id,),
    ).fetchone()
    return GraphRunSummary.model_validate_json(row[0]) if row else None
