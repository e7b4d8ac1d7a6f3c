"""Language-neutral questions for the bundled model.

The bundled multilingual model's embedding of a text carries its language as well as its
meaning: along one direction (``language_fit.DIRECTION``, from the mean English passage to the
mean Chinese one) every Chinese passage sits on one side and every English one on the other. A
question's similarity to a passage therefore rises with their sharing a language, and in a
library that holds both, every same-language passage outranks the other language's answer.

Taking that direction out of the question (Yang et al., "A Simple and Effective Method To
Eliminate the Self Language Bias in Multilingual Representations", EMNLP 2021) removes that
share from every similarity: q' = q − (q·u)u, then scaled to unit length so that similarities
keep their range; for every passage q'·p ∝ q·p − (q·u)(p·u). Passages are untouched, so no
index is rebuilt. Within one language the passages' projections on u hardly differ and the order
barely moves; across languages the language no longer counts for the question's side.

It is taken out only in a library that holds both languages (``bilingual``: at least
``LANGUAGE_SHARE`` of its passages written in each script). In a library of one language every
passage shares the question's language or none does, so there is no offset to remove, while the
small differences of the passages' projections (a Chinese passage quoting English names sits a
little lower) would move their order for nothing.

Other embedding models have no fitted direction and are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.embeddings.language_fit import DIRECTION
from goodbuddy_kb.main_process.lexical.tokens import script_counts

_DIRECTION = np.asarray(DIRECTION, dtype=np.float32)
#: A library holds both languages when at least this share of its passages is written in each.
LANGUAGE_SHARE = 0.05


def bilingual(passages: Iterable[str]) -> bool:
    """Whether both scripts each write at least ``LANGUAGE_SHARE`` of ``passages`` (a passage
    is in the script most of its words are in; one with no word in either does not count)."""
    cjk = latin = 0
    for text in passages:
        han, words = script_counts(text)
        if han > words:
            cjk += 1
        elif words:
            latin += 1
    return cjk + latin > 0 and min(cjk, latin) >= LANGUAGE_SHARE * (cjk + latin)


def neutral(provider: EmbeddingProvider, query: Matrix) -> Matrix:
    """``query`` (the provider's embedding of a question) without its language, for the
    bundled model; unchanged for any other model or a size the direction was not fitted for."""
    if provider.kind != "local" or query.shape != _DIRECTION.shape:
        return query
    q = query.astype(np.float32) - float(query @ _DIRECTION) * _DIRECTION
    norm = float(np.linalg.norm(q))
    if norm <= 1e-6:  # a question that is all language and no meaning: leave it be
        return query
    return np.asarray(q / norm, dtype=np.float32)
