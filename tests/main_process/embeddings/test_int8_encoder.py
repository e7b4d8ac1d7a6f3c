"""The bundled model's int8 encoder against its float32 one: the same vectors to a cosine of
0.98 or more on Chinese and English texts, a text's vector independent of the texts embedded
beside it, its own fingerprint with the float32 one still served, and the float32 path wherever
the CPU or the runtime cannot run int8."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from goodbuddy_kb.main_process.embeddings import e5_int8, local
from goodbuddy_kb.main_process.embeddings.base import fingerprint
from goodbuddy_kb.main_process.embeddings.e5_int8 import E5Int8, int8_supported
from goodbuddy_kb.main_process.embeddings.local import ENCODINGS, LocalE5Provider

pytestmark = pytest.mark.skipif(not int8_supported(), reason="no integer dot products here")

TEXTS = [
    "员工请假要提前多久申请？",
    "年假应至少提前五个工作日申请，病假可事后补交证明。",
    "The gateway terminates TLS and forwards requests to the internal services.",
    "出差住宿标准：一线城市每晚不超过 600 元。Hotel limit: 600 CNY per night.",
    "泡泡战士是一款由日本公司开发的动作游戏，玩家操控角色吹出泡泡困住敌人。" * 8,
]


@pytest.fixture(scope="module")
def encoders() -> Iterator[tuple[local.E5Numpy, E5Int8]]:
    model = local._model()
    yield model, local._int8_model()


def test_int8_vectors_agree_with_float32(encoders: tuple[local.E5Numpy, E5Int8]) -> None:
    f32, int8 = encoders
    for texts, is_query in ((TEXTS, False), (TEXTS[:2], True)):
        a = f32.encode(texts, is_query=is_query)
        b = int8.encode(texts, is_query=is_query)
        cosines = (a * b).sum(axis=1)
        assert cosines.min() >= 0.98, cosines
        assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    # and it still tells a relevant passage from an unrelated one
    q = int8.encode([TEXTS[0]], is_query=True)[0]
    p = int8.encode(TEXTS[1:3])
    assert float(p[0] @ q) > float(p[1] @ q) + 0.05


def test_a_texts_vector_does_not_depend_on_its_neighbours(
    encoders: tuple[local.E5Numpy, E5Int8],
) -> None:
    """Windows of other lengths in the same call (a long text spans two 510-token windows) leave
    every text's vector as it is alone."""
    _, int8 = encoders
    long_text = TEXTS[4] * 5
    assert len(int8.model.token_ids(long_text, False)) > 510
    together = int8.encode([TEXTS[1], long_text, TEXTS[2]])
    for i, text in enumerate([TEXTS[1], long_text, TEXTS[2]]):
        alone = int8.encode([text])[0]
        assert np.allclose(together[i], alone, atol=1e-6)


def test_the_int8_encoder_has_its_own_fingerprint_and_serves_float32_indexes() -> None:
    int8 = LocalE5Provider(encoder="int8")
    f32 = LocalE5Provider(encoder="float32")
    assert int8.encoder == "int8" and f32.encoding == ENCODINGS["float32"]
    assert int8.fingerprint != f32.fingerprint
    served = int8.variant_for(f32.fingerprint, 384)
    assert isinstance(served, LocalE5Provider) and served.fingerprint == f32.fingerprint
    assert int8.upgrade_offered(f32.fingerprint, 384)
    assert int8.variant_for(int8.fingerprint, 384) is int8
    assert not int8.upgrade_offered(int8.fingerprint, 384)
    assert int8.variant_for("0" * 32, 384) is None
    # an index int8 built stays searchable where the default is float32, with no offer
    assert f32.variant_for(int8.fingerprint, 384) is not None
    assert not f32.upgrade_offered(f32.fingerprint, 384)
    int8.close()
    f32.close()


def test_float32_runs_where_the_cpu_or_runtime_cannot_run_int8(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert not e5_int8.int8_supported(flags={"avx2", "avx512f", "fma"})
    assert e5_int8.int8_supported(flags={"avx2", "avx_vnni"})
    monkeypatch.setattr(local, "int8_supported", lambda: False)
    provider = LocalE5Provider(encoder="auto")
    assert provider.encoder == "float32" and provider.encoding == ENCODINGS["float32"]
    assert "no VNNI" in provider.encoder_reason
    int8_made = fingerprint(provider.kind, None, provider.model, 384, ENCODINGS["int8"])
    assert provider.variant_for(int8_made, 384) is None, "no int8 encoder to serve it"
    monkeypatch.setenv(local.ENV_ENCODER, "float32")
    monkeypatch.setattr(local, "int8_supported", lambda: True)
    assert LocalE5Provider().encoder == "float32", "the environment may ask for float32"
    monkeypatch.setenv(local.ENV_ENCODER, "auto")
    assert LocalE5Provider(encoder="auto").encoder == "int8", "auto: int8 where it runs"
