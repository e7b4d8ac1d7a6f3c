"""What the bundled model's encoder has to compute for a set of chunk texts (tokens, integer or
float operations of its weight products and its attention), and the plain matrix products of the
same shapes and type measured here (numpy float32 matmul; ONNX Runtime ``MatMulInteger``, uint8
by int8), each run on every lane at once with one thread per lane, as the encoder runs. Used by
``bench/vectorize.py``: achieved GFLOP/s and GOP/s against these references, in the same run."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from goodbuddy_kb.main_process.embeddings.local import _blas_threads_here, _model


@dataclass(frozen=True)
class Work:
    windows: list[int]  # tokens per window, <s> and </s> included
    tokens: int
    linear_ops: float  # multiply-adds ×2 of the weight products (int8 in the int8 path)
    attention_flops: float  # QKᵀ and AV products (float32 in both paths)
    shapes: list[tuple[int, int, int]]  # (M, K, N) of one layer's weight products


def work_of(texts: list[str]) -> Work:
    model = _model()
    width = model.MAXP - 2
    windows = []
    for text in texts:
        ids = model.token_ids(text, False)
        windows += [len(ids[a : a + width]) + 2 for a in range(0, max(len(ids), 1), width)]
    h, ff, nl = model.H, model.FF, model.NL
    per_token = 2 * (h * 3 * h + h * h + 2 * h * ff)
    m = int(np.median(windows)) if windows else 1
    return Work(
        windows=windows,
        tokens=sum(windows),
        linear_ops=float(nl * per_token * sum(windows)),
        attention_flops=float(nl * 4 * h * sum(t * t for t in windows)),
        shapes=[(m, h, 3 * h), (m, h, h), (m, h, ff), (m, ff, h)],
    )


def _on_lanes(lanes: int, seconds: float, setup: Callable[[], Callable[[], float]]) -> float:
    """Operations per second over ``lanes`` threads each repeating its job for ``seconds``."""
    done = [0.0] * lanes
    barrier = threading.Barrier(lanes)

    def lane(i: int) -> None:
        job = setup()
        job()  # warm up
        barrier.wait()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            done[i] += job()
        done[i] /= time.perf_counter() - start

    threads = [threading.Thread(target=lane, args=(i,)) for i in range(lanes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done)


def float32_reference(shapes: list[tuple[int, int, int]], lanes: int, seconds: float) -> float:
    """FLOP/s of numpy float32 products of these shapes (one BLAS thread per lane)."""
    rng = np.random.default_rng(0)

    def setup() -> Callable[[], float]:
        _blas_threads_here(1)
        pairs = [
            (rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32))
            for m, k, n in shapes
        ]
        ops = float(sum(2 * m * k * n for m, k, n in shapes))

        def job() -> float:
            for a, b in pairs:
                a @ b
            return ops

        return job

    return _on_lanes(lanes, seconds, setup)


def int8_reference(shapes: list[tuple[int, int, int]], lanes: int, seconds: float) -> float:
    """OP/s of ONNX Runtime ``MatMulInteger`` (uint8 activations by int8 weights, scalar zero
    points, one intra-op thread per lane) of these shapes."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    nodes, inits, inputs, outputs = [], [], [], []
    inits.append(numpy_helper.from_array(np.array(0, np.int8), "bz"))
    for i, (_m, k, n) in enumerate(shapes):
        b = rng.integers(-127, 128, (k, n), dtype=np.int8)
        inits.append(numpy_helper.from_array(b, f"b{i}"))
        inputs.append(helper.make_tensor_value_info(f"a{i}", TensorProto.UINT8, ["M", k]))
        inputs.append(helper.make_tensor_value_info(f"z{i}", TensorProto.UINT8, []))
        outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.INT32, ["M", n]))
        nodes.append(
            helper.make_node("MatMulInteger", [f"a{i}", f"b{i}", f"z{i}", "bz"], [f"y{i}"])
        )
    graph = helper.make_graph(nodes, "ref", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 9
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options)
    ops = float(sum(2 * m * k * n for m, k, n in shapes))
    feed: dict[str, np.ndarray] = {}
    for i, (m, k, _n) in enumerate(shapes):
        feed[f"a{i}"] = rng.integers(0, 256, (m, k), dtype=np.uint8)
        feed[f"z{i}"] = np.array(128, np.uint8)

    def setup() -> Callable[[], float]:
        def job() -> float:
            session.run(None, feed)
            return ops

        return job

    return _on_lanes(lanes, seconds, setup)
