"""An embedder that remembers: the bundled model's vectors of every text it saw, kept in
bench/.cache/ (ignored by git) so fitting and evaluating again does not embed the same texts again.
The vectors are the model's own; only the wait is saved."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from topic_dashboard.routing.semantic import E5Embedder, Embedder

CACHE = Path(__file__).resolve().parent / ".cache" / "embeddings.pkl"


class CachingEmbedder:
    def __init__(self, inner: Embedder | None = None, path: Path = CACHE) -> None:
        self.inner = inner or E5Embedder()
        self.model_id = self.inner.model_id
        self.path = path
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}
        self.forms: dict[str, npt.NDArray[np.float32]] = {}
        if path.exists():
            stored = pickle.loads(path.read_bytes())
            if stored.get("model_id") == self.model_id:
                self.vectors = stored["vectors"]
                self.forms = stored.get("forms", {})
        self.added = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self.vectors[text] = np.asarray(vector, dtype=np.float32)
            self.added += len(missing)
            if self.added >= 200:
                self.save()
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)

    def embed_with_form(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.forms or t not in self.vectors]
        if missing:
            vectors, forms = self.inner.embed_with_form(missing)
            for text, vector, form in zip(missing, vectors, forms, strict=True):
                self.vectors[text] = np.asarray(vector, dtype=np.float32)
                self.forms[text] = np.asarray(form, dtype=np.float32)
            self.added += len(missing)
            if self.added >= 200:
                self.save()
        if not texts:
            return np.zeros((0, 384), np.float32), np.zeros((0, 384), np.float32)
        return np.stack([self.vectors[t] for t in texts]), np.stack([self.forms[t] for t in texts])

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(pickle.dumps({"model_id": self.model_id, "vectors": self.vectors, "forms": self.forms}))
        self.added = 0


def caching_adapter_embedder(adapter_file: Path) -> CachingEmbedder:
    """The bundled model with another topic adapter than the shipped one (a fold's, for cross-fitting:
    bench/fit_routing.py --crossfit), remembering its vectors in its own cache file (one per adapter)."""
    inner = E5Embedder(adapter_file=str(adapter_file))
    digest = inner.model_id.rsplit(" ", 1)[-1]
    return CachingEmbedder(inner, CACHE.with_name(f"embeddings-{digest}.pkl"))
