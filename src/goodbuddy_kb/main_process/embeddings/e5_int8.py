"""The bundled multilingual-e5-small's encoder in int8, run by ONNX Runtime (the integer path).

The float32 path (``e5_numpy``) multiplies float32 matrices in numpy's BLAS. This module expresses
the same 12 encoder layers as an ONNX graph, built in memory from the same expanded weights (no
file, about a second): every weight matrix quantised to int8 per output channel (symmetric), the
activation that meets it quantised to uint8 per tensor at run time (``DynamicQuantizeLinear`` →
``MatMulInteger`` → rescale), which ONNX Runtime runs on the CPU's integer dot-product
instructions (AVX-512 VNNI / AVX-VNNI, AMX where present). Attention products, softmax, layer
norms and GELU stay float32, and so does the feed-forward block's second product in the layers of
:data:`FLOAT32_FFN_OUTPUT`: its input is GELU's output, a few large values over many near zero,
which one uint8 scale per tensor resolves badly, and in those layers the error carried through to
the vectors (each layer's product kept in float32 in turn, cosine to the float32 vectors over
drcd-dev passages: layers 4 and 5 gave most of the gain, layer 0 the next). All twelve in int8 cost
traditional-Chinese retrieval 0.007 Recall@5 (drcd-dev, vector only, every question); these three
in float32 bring it to 0.001 for about a tenth of the integer path's speed. The tokeniser,
510-token windows without overlap, word/position embeddings, mean pooling, token-weighted window
combination and L2 normalisation are ``E5Numpy``'s own, so only the encoder arithmetic differs.

Each window is its own run (``[T, H]``, no padding): the activation scales are taken over that
window alone, so a text's vector never depends on which other texts share its batch or lane.

Integer products without VNNI saturate 16-bit intermediates on plain AVX2 (and are slow without
AVX2), so :func:`int8_supported` offers this path only where the CPU has VNNI and the runtime is
installed; elsewhere the float32 path runs.
"""

from __future__ import annotations

import contextlib
import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from goodbuddy_kb.main_process.embeddings.e5_numpy import E5Numpy
from goodbuddy_kb.main_process.onnx_options import session_options

OPSET = 20
#: The layers whose feed-forward output product stays float32 (module docstring).
FLOAT32_FFN_OUTPUT = frozenset({0, 4, 5})


def cpu_flags() -> set[str]:
    """The CPU's feature flags as the kernel lists them (Linux; empty elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def integer_features(flags: set[str] | None = None) -> list[str]:
    """The integer dot-product features the int8 path can use on this CPU."""
    flags = cpu_flags() if flags is None else flags
    wanted = ("avx512_vnni", "avx_vnni", "amx_int8", "asimddp", "i8mm")
    return [f for f in wanted if f in flags]


def int8_supported(flags: set[str] | None = None) -> bool:
    """Whether the int8 path should run here: ONNX Runtime and ``onnx`` importable and a CPU with
    integer dot products (x86 VNNI/AMX or Arm dot-product instructions)."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return bool(integer_features(flags))


def _return_freed_memory() -> None:
    """Hand freed heap back to the system (glibc keeps about 50 MB of the build otherwise)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def build_graph(model: E5Numpy) -> bytes:
    """The encoder layers as a serialised ONNX model: ``x [T, H]`` (embeddings after their layer
    norm) → ``y [T, H]`` (last hidden state)."""
    from onnx import TensorProto, helper

    g = _Graph(model)
    x = "x"
    for i, layer in enumerate(model.expand_layers()):
        x = g.layer(i, layer, x)
    graph = helper.make_graph(
        g.nodes,
        "e5-int8",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", model.H])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["T", model.H])],
        g.inits,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    onnx_model = helper.make_model(graph, opset_imports=opsets)
    onnx_model.ir_version = 9
    return bytes(onnx_model.SerializeToString())


class _Graph:
    """Nodes and initialisers of the graph under construction."""

    def __init__(self, model: E5Numpy) -> None:
        self.m = model
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0
        self.const("zero_i8", np.array(0, dtype=np.int8))
        self.const("axis0", np.array([0], dtype=np.int64))

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def op(self, kind: str, inputs: list[str], n_out: int = 1, **attrs: Any) -> list[str]:
        from onnx import helper

        self._n += 1
        outs = [f"{kind.lower()}_{self._n}_{j}" for j in range(n_out)]
        self.nodes.append(helper.make_node(kind, inputs, outs, **attrs))
        return outs

    def linear(self, name: str, x: str, w_t: np.ndarray, b: np.ndarray) -> str:
        """``x @ w_t + b`` with int8 weights (per output channel) and a uint8 activation."""
        scale = np.maximum(np.abs(w_t).max(axis=0), 1e-12) / 127.0
        q = np.clip(np.rint(w_t / scale), -127, 127).astype(np.int8)
        wq = self.const(f"{name}.wq", q)
        ws = self.const(f"{name}.ws", scale.astype(np.float32))
        bias = self.const(f"{name}.b", b.astype(np.float32))
        xq, xs, xz = self.op("DynamicQuantizeLinear", [x], 3)
        (acc,) = self.op("MatMulInteger", [xq, wq, xz, "zero_i8"])
        (acc_f,) = self.op("Cast", [acc], to=1)
        (s,) = self.op("Mul", [xs, ws])
        (y,) = self.op("Mul", [acc_f, s])
        (out,) = self.op("Add", [y, bias])
        return out

    def exact(self, name: str, x: str, w_t: np.ndarray, b: np.ndarray) -> str:
        """``x @ w_t + b`` in float32."""
        w = self.const(f"{name}.w", w_t.astype(np.float32))
        bias = self.const(f"{name}.b", b.astype(np.float32))
        (y,) = self.op("MatMul", [x, w])
        (out,) = self.op("Add", [y, bias])
        return out

    def layer(self, i: int, ly: Any, x: str) -> str:
        m = self.m
        h = m.H
        qkv = self.linear(f"l{i}.qkv", x, ly.qkv_t, ly.qkv_b)
        q, k, v = self.op("Split", [qkv, self.const(f"l{i}.split", np.array([h, h, h]))], 3, axis=1)
        q3, k3, v3 = (self.op("Unsqueeze", [t, "axis0"])[0] for t in (q, k, v))
        (ctx3,) = self.op(
            "MultiHeadAttention", [q3, k3, v3], domain="com.microsoft", num_heads=m.NH
        )
        (ctx,) = self.op("Squeeze", [ctx3, "axis0"])
        ao = self.linear(f"l{i}.ao", ctx, ly.ao_t, ly.ao_b)
        (res,) = self.op("Add", [ao, x])
        x = self.norm(f"l{i}.aln", res, ly.aln_w, ly.aln_b)
        mid = self.linear(f"l{i}.fi", x, ly.fi_t, ly.fi_b)
        (mid,) = self.op("Gelu", [mid], approximate="tanh")
        product = self.exact if i in FLOAT32_FFN_OUTPUT else self.linear
        fo = product(f"l{i}.fo", mid, ly.fo_t, ly.fo_b)
        (res,) = self.op("Add", [fo, x])
        return self.norm(f"l{i}.oln", res, ly.oln_w, ly.oln_b)

    def norm(self, name: str, x: str, w: np.ndarray, b: np.ndarray) -> str:
        scale = self.const(f"{name}.w", w.astype(np.float32))
        bias = self.const(f"{name}.b", b.astype(np.float32))
        (y,) = self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=float(self.m.eps))
        return y


class E5Int8:
    """The bundled e5-small with an int8 encoder. ``encode`` is thread-safe; each call runs on its
    calling thread (one intra-op thread: the provider's lanes give the parallelism)."""

    def __init__(self, model: E5Numpy, threads: int = 1) -> None:
        import onnxruntime as ort

        self.model = model
        options = session_options(threads)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(
            build_graph(model), options, providers=["CPUExecutionProvider"]
        )
        _return_freed_memory()  # the expanded float32 weights the graph was built from

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """L2-normalised embeddings ``[len(texts), H]``, windows and pooling as ``E5Numpy``."""
        m = self.model
        out = np.zeros((len(texts), m.H), dtype=np.float32)
        weights = np.zeros(len(texts), dtype=np.float64)
        width = m.MAXP - 2
        for i, text in enumerate(texts):
            ids = m.token_ids(text, is_query)
            for a in range(0, max(len(ids), 1), width):
                content = ids[a : a + width]
                window = [m.bos, *content, m.eos]
                x = m._embed(np.asarray(window, dtype=np.int64), np.arange(len(window)))
                (y,) = self._session.run(None, {"x": x})
                weight = max(len(content), 1)
                out[i] += weight * np.asarray(y).mean(axis=0)
                weights[i] += weight
        out /= np.maximum(weights, 1e-12).astype(np.float32)[:, None]
        norms = np.sqrt(np.maximum((out * out).sum(axis=1, keepdims=True), 1e-12))
        out /= norms
        return out
