"""The int8 first pass's arithmetic: one query against a block of int8 codes, in ONNX Runtime.

numpy has no fast integer matrix product (int8 → int16/int32 products, float16, and casting a
page to float32 for BLAS were all measured 3-6× slower than this), so the block's dot products
run as one ``MatMulInteger`` node in ONNX Runtime (already a dependency), whose kernels use
VNNI/AMX where the CPU has them. The query is the unsigned operand with zero point 128, the
block the signed one stored dimension-major ([dims, rows]), the layout its kernel reads fast.
The one-node graph is written here as ONNX protobuf bytes: the ``onnx`` package is not needed.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.onnx_options import session_options

#: ONNX Runtime threads per product: the pass reads memory faster than one core multiplies.
THREADS = 2
_ZERO_POINT = np.array(128, dtype=np.uint8)
_sessions: dict[int, Any] = {}
_lock = threading.Lock()


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: int | bytes | str) -> bytes:
    """One protobuf field: a varint for an int, length-delimited bytes otherwise."""
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint((number << 3) | 2) + _varint(len(data)) + data


def _tensor_info(name: str, elem_type: int, shape: list[int | str]) -> bytes:
    dims = b"".join(_field(1, _field(2 if isinstance(d, str) else 1, d)) for d in shape)
    tensor = _field(1, elem_type) + _field(2, dims)
    return _field(1, name) + _field(2, _field(1, tensor))


def graph_bytes(dims: int) -> bytes:
    """ModelProto: Y[1, N] int32 = MatMulInteger(A[1, dims] uint8, B[dims, N] int8, 128)."""
    uint8, int8, int32 = 2, 3, 6
    node = (
        _field(1, "A")
        + _field(1, "B")
        + _field(1, "a_zero_point")
        + _field(2, "Y")
        + _field(3, "dot")
        + _field(4, "MatMulInteger")
    )
    graph = (
        _field(1, node)
        + _field(2, "int8_first_pass")
        + _field(11, _tensor_info("A", uint8, [1, dims]))
        + _field(11, _tensor_info("B", int8, [dims, "N"]))
        + _field(11, _tensor_info("a_zero_point", uint8, []))
        + _field(12, _tensor_info("Y", int32, [1, "N"]))
    )
    opset = _field(1, "") + _field(2, 10)
    return _field(1, 7) + _field(8, opset) + _field(7, graph)


def _session(dims: int) -> Any:
    with _lock:
        session = _sessions.get(dims)
        if session is None:
            # Imported on the first large scan, not at every backend start (about 40 ms).
            import onnxruntime as ort  # type: ignore[import-untyped]

            # Threads sleep between products instead of spinning: the backend idles at zero.
            options = session_options(THREADS)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            session = ort.InferenceSession(
                graph_bytes(dims), options, providers=["CPUExecutionProvider"]
            )
            _sessions[dims] = session
        return session


def quantize_query(query: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.uint8], float]:
    """The query as the unsigned operand ([1, dims], zero point 128) and its scale."""
    peak = float(np.abs(query).max())
    scale = peak / 127 if peak > 0 else 1.0
    codes = np.rint(query / scale).astype(np.int16) + 128
    return codes.astype(np.uint8).reshape(1, -1), scale


def dots(query: npt.NDArray[np.uint8], block: npt.NDArray[np.int8]) -> npt.NDArray[np.int32]:
    """Σ (query − 128) · block[:, j] for every column j of a [dims, N] block."""
    return _run(_session(block.shape[0]), {"A": query, "B": block, "a_zero_point": _ZERO_POINT})


def _run(session: Any, inputs: dict[str, Any]) -> npt.NDArray[np.int32]:
    """The session's one output row: the query's products."""
    out = session.run(None, inputs)[0]
    result: npt.NDArray[np.int32] = np.asarray(out, dtype=np.int32)[0]
    return result


def packed_graph_bytes(dims: int, blocks: int, block_rows: int) -> bytes:
    """ModelProto: Y[1, blocks × block_rows] int32 = Concat(MatMulInteger(A, B_i, 128)) over
    ``blocks`` constant [dims, block_rows] int8 initializers ``B0``… whose data the session is
    given at its creation (``add_external_initializers``), so that ONNX Runtime packs them into
    its kernel's layout once instead of at every product."""
    uint8, int8, int32 = 2, 3, 6
    nodes = b"".join(
        _field(
            1,
            _field(1, "A")
            + _field(1, f"B{i}")
            + _field(1, "a_zero_point")
            + _field(2, f"Y{i}")
            + _field(3, f"dot{i}")
            + _field(4, "MatMulInteger"),
        )
        for i in range(blocks)
    )
    axis = _field(1, "axis") + _field(3, 1) + _field(20, 2)  # AttributeProto, type INT
    concat = (
        b"".join(_field(1, f"Y{i}") for i in range(blocks))
        + _field(2, "Y")
        + _field(3, "concat")
        + _field(4, "Concat")
        + _field(5, axis)
    )
    initializers = b"".join(
        _field(
            5,
            _field(1, dims)
            + _field(1, block_rows)
            + _field(2, int8)
            + _field(8, f"B{i}")
            # data "elsewhere": the session options supply it
            + _field(13, _field(1, "location") + _field(2, "int8-copy"))
            + _field(14, 1),
        )
        for i in range(blocks)
    )
    graph = (
        nodes
        + _field(1, concat)
        + _field(2, "int8_first_pass_packed")
        + initializers
        + _field(11, _tensor_info("A", uint8, [1, dims]))
        + _field(11, _tensor_info("a_zero_point", uint8, []))
        + _field(12, _tensor_info("Y", int32, [1, blocks * block_rows]))
    )
    opset = _field(1, "") + _field(2, 13)
    return _field(1, 7) + _field(8, opset) + _field(7, graph)


def packed_session(dims: int, blocks: list[npt.NDArray[np.int8]]) -> Any:
    """A session multiplying a query by the [dims, block_rows] int8 ``blocks``. The blocks
    need not outlive its creation: ONNX Runtime erases a constant once every kernel using it
    has prepacked it (``PrepackConstantInitializedTensors`` in its ``session_state.cc``)."""
    import onnxruntime as ort

    options = session_options(THREADS)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.enable_cpu_mem_arena = False
    values = [ort.OrtValue.ortvalue_from_numpy(block) for block in blocks]
    options.add_external_initializers([f"B{i}" for i in range(len(blocks))], values)
    graph = packed_graph_bytes(dims, len(blocks), blocks[0].shape[1])
    return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def packed_dots(session: Any, query: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Σ (query − 128) · column for every column of the session's packed blocks, in order."""
    return _run(session, {"A": query, "a_zero_point": _ZERO_POINT})
