"""A channel with no confidence at all is guessing: through the dispatcher, a real library and a
loopback embedding service (any model but the bundled one, ``fusion.DEFAULT``), the vector's
guesses no longer lift a passage the full text ranks second above the full text's clear first
(``FusionParams.guessing_gain``)."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import ask
from tests.main_process.retrieval.test_arbitration import DIMS, _embeddings_of, _library
from tests.servers.httpserver import serve

QUESTION = "远程连接闲置多久会自动断开？"
#: What the full text ranks first and answers.
ANSWER = "远程连接闲置超过三十分钟会自动断开。"
#: What the full text ranks second (as many of the question's words, in a longer passage: the
#: arbitration by the question's terms has nothing to say between them), and the scripted
#: model's first guess.
GUESS = "远程连接闲置时会不会自动断开，要看客户端的设置，请咨询服务台。"
OTHERS = [f"第{i}号仓库的货物清单，包括螺丝、垫圈和扳手，每月盘点一次。" for i in range(200)]


def _vector(text: str) -> list[float]:
    """The scripted model knows nothing of the question: every passage a direction of its own,
    as near the question as chance puts it, the guess a little nearer than the rest (under two
    deviations of the library's background: no confidence)."""
    v = DeterministicProvider(DIMS).embed_passages([text])[0].astype(float)
    question = np.zeros(DIMS)
    question[0] = 1.0
    if text.strip() == QUESTION:
        return [float(x) for x in question]
    chance = np.random.default_rng(zlib.crc32(text.encode())).uniform(-0.05, 0.05)
    v[0] = 0.06 if text.strip() == GUESS else chance
    return [float(x) for x in v / np.linalg.norm(v)]


@pytest.mark.integration
def test_a_guessing_channel_does_not_lift_its_guess_over_the_full_texts_first(
    dispatcher: Dispatcher, services: Services, tmp_path: Path
) -> None:
    texts = [ANSWER, GUESS, *OTHERS]
    with serve({"/v1/embeddings": _embeddings_of(_vector)}) as base:
        library = _library(dispatcher, services, tmp_path / "vpn", texts, base)
        every = {"minimumRelevance": 0}
        vector_only = ask(dispatcher, library, QUESTION, channels=["vector"], overrides=every)
        lexical = ask(dispatcher, library, QUESTION, channels=["fts", "cjk"], overrides=every)
        hybrid = ask(dispatcher, library, QUESTION, overrides=every)
    # the vector's first is the guess, and it has no confidence in it
    assert vector_only["results"][0]["documentPath"] == "p001.txt"
    assert hybrid["diagnostics"]["channelConfidence"]["vector"] == 0.0
    assert hybrid["diagnostics"]["channelConfidence"]["cjk"] > 0.0
    # the full text ranks the answer first, the guess second
    assert [r["documentPath"] for r in lexical["results"][:2]] == ["p000.txt", "p001.txt"]
    # and so does the fusion: the guess does not go above the answer on the vector's say-so
    order = [r["documentPath"] for r in hybrid["results"]]
    assert order[:2] == ["p000.txt", "p001.txt"], order
