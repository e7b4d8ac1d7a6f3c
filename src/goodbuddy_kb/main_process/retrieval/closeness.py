"""How close the closest part of a passage comes to the question, in the bundled model's own
similarity (``closest``): the passage is cut into pieces of a sentence or two, each piece is
embedded as a passage, and the best cosine with the question's embedding is read.

A passage is embedded whole for the vector channel, and a long one on the question's topic then
stands as close to the question as the one that answers it: its embedding is the topic's. The
sentence that answers stands closer than any sentence of an article that only shares the topic
(on the development sets' first results, the best piece separates answerable from unanswerable
questions better than the whole passage does: ``bench/closeness.py``). This is the
late-interaction idea of passage retrieval at the granularity of sentences, read only for the
results shown (``MAX_RESULTS``), so that it costs one small batch of embeddings a search; a
passage's pieces, embedded once, are kept for the next search (``CACHED`` passages): a
conversation asks about the same passages again and again.

Only the bundled model's family reads it (``calibration.relevance_list``): another provider's
similarities have a scale of their own.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.retrieval.proximity import sentences

#: A piece holds whole sentences up to this many characters (a shorter sentence joins the next:
#: "第三条" alone says nothing).
PIECE = 80
#: At most this many pieces a passage: a longer one is cut into longer pieces.
MAX_PIECES = 12
#: The least characters a piece holds to be read (a heading's number, a lone bracket).
MIN_PIECE = 4
#: The results read, from the first: the relevance of those below reads their similarity as a
#: whole (``calibration``), and never rises above theirs. The first sets the ceiling of all below
#: it, so on the development sets reading the first three (or five) moves no set's false positives
#: or answers withheld, and its calibration error by at most 0.008 (the graph fixtures' English
#: questions; 0.002 on every large set), at three times the time.
MAX_RESULTS = 1
#: Passages whose pieces' embeddings are kept (at most ``MAX_PIECES`` × 384 floats each: about
#: 9 MB in all).
CACHED = 512

_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def pieces(text: str) -> list[str]:
    """``text``'s sentences joined into pieces of at most ``PIECE`` characters (longer when
    there would be more than ``MAX_PIECES``); a sentence longer than a piece is one of its own."""
    parts = [s.strip() for s in sentences(text)]
    parts = [p for p in parts if p]
    width = PIECE
    while True:
        out: list[str] = []
        current = ""
        for part in parts:
            if current and len(current) + len(part) > width:
                out.append(current)
                current = part
            else:
                current = f"{current} {part}" if current and _latin_end(current) else current + part
        if current:
            out.append(current)
        out = [p for p in out if len(p) >= MIN_PIECE]
        if len(out) <= MAX_PIECES:
            return out
        width *= 2


def _latin_end(text: str) -> bool:
    return (text[-1:].isascii() and text[-1:].isalnum()) or text[-1:] in ".!?;:,"


def closest(
    provider: EmbeddingProvider, question: Matrix, texts: Sequence[str]
) -> list[float | None]:
    """For each of ``texts``, the best cosine similarity of its pieces with ``question`` (the
    question's embedding, unit length, by ``provider``); None for a text with no piece. The
    pieces not embedded before are embedded in one batch."""
    keys = [(provider.fingerprint, hashlib.sha1(t.encode()).hexdigest()) for t in texts]
    vectors: dict[tuple[str, str], np.ndarray] = {}
    with _cache_lock:
        for key in keys:
            if key in _cache:
                _cache.move_to_end(key)
                vectors[key] = _cache[key]
    todo = {key: pieces(t) for key, t in zip(keys, texts, strict=True) if key not in vectors}
    flat = [p for ps in todo.values() for p in ps]
    made = (
        np.asarray(provider.embed_passages_now(flat), dtype=np.float32)
        if flat
        else np.zeros((0, 0), dtype=np.float32)
    )
    at = 0
    for key, ps in todo.items():
        vectors[key] = made[at : at + len(ps)]
        at += len(ps)
    with _cache_lock:
        for key in todo:
            _cache[key] = vectors[key]
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    q = np.asarray(question, dtype=np.float32).reshape(-1)
    return [float((vectors[k] @ q).max()) if len(vectors[k]) else None for k in keys]
