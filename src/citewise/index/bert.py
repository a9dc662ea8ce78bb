"""all-MiniLM-L6-v2 forward passes: pure numpy (fp32 safetensors) and onnxruntime (int8 ONNX).

Both take padded ``input_ids`` / ``attention_mask`` batches and return the
mean-pooled (mask-aware), *unnormalised* sentence vectors, shape ``(batch, 384)``.
Normalisation and windowing live in :mod:`citewise.index.minilm`.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


class Forward(Protocol):
    """A batched transformer forward returning mean-pooled token vectors."""

    backend: str

    def __call__(self, input_ids: I64, attention_mask: I64) -> F32: ...


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Read a ``.safetensors`` file into numpy arrays (the format is an 8-byte header length,
    a JSON header of dtype/shape/offsets, then the raw little-endian tensor bytes)."""
    raw = path.read_bytes()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + header_len])
    base = 8 + header_len
    out: dict[str, npt.NDArray[Any]] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES[meta["dtype"]]
        start, end = meta["data_offsets"]
        arr = np.frombuffer(
            raw, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize, offset=base + start
        )
        out[name] = arr.reshape(meta["shape"])
    return out


def _erf(x: F32) -> F32:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), enough for fp32 GELU.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    out: F32 = (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return out


def _gelu(x: F32) -> F32:
    out: F32 = (0.5 * x * (1.0 + _erf(x * np.float32(1.0 / math.sqrt(2.0))))).astype(np.float32)
    return out


def _layer_norm(x: F32, w: F32, b: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=-1, keepdims=True)
    out: F32 = (centered / np.sqrt(var + np.float32(eps)) * w + b).astype(np.float32)
    return out


def mean_pool(hidden: F32, attention_mask: I64) -> F32:
    mask = attention_mask.astype(np.float32)[:, :, None]
    summed = (hidden * mask).sum(axis=1)
    counts = np.maximum(mask.sum(axis=1), 1e-9)
    out: F32 = (summed / counts).astype(np.float32)
    return out


class NumpyBert:
    """The BERT encoder forward in numpy, fp32, from the package's safetensors."""

    backend = "numpy"

    def __init__(self, weights_path: Path, config_path: Path) -> None:
        cfg = json.loads(config_path.read_text(encoding="utf-8"))
        self.hidden = int(cfg["hidden_size"])
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        if cfg.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported activation {cfg.get('hidden_act')}")
        t = read_safetensors(weights_path)

        def g(name: str) -> F32:
            for key in (name, "bert." + name):
                if key in t:
                    return np.ascontiguousarray(t[key], dtype=np.float32)
            raise KeyError(name)

        self.word = g("embeddings.word_embeddings.weight")
        self.pos = g("embeddings.position_embeddings.weight")
        self.type0 = g("embeddings.token_type_embeddings.weight")[0]
        self.emb_ln = (g("embeddings.LayerNorm.weight"), g("embeddings.LayerNorm.bias"))
        self.max_positions = self.pos.shape[0]
        self.blocks: list[dict[str, F32]] = []
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            wq, wk, wv = (g(p + f"attention.self.{n}.weight") for n in ("query", "key", "value"))
            bq, bk, bv = (g(p + f"attention.self.{n}.bias") for n in ("query", "key", "value"))
            self.blocks.append(
                {
                    # fused QKV projection, stored transposed for x @ W
                    "qkv_w": np.ascontiguousarray(np.concatenate([wq, wk, wv], axis=0).T),
                    "qkv_b": np.concatenate([bq, bk, bv]),
                    "o_w": np.ascontiguousarray(g(p + "attention.output.dense.weight").T),
                    "o_b": g(p + "attention.output.dense.bias"),
                    "ln1_w": g(p + "attention.output.LayerNorm.weight"),
                    "ln1_b": g(p + "attention.output.LayerNorm.bias"),
                    "i_w": np.ascontiguousarray(g(p + "intermediate.dense.weight").T),
                    "i_b": g(p + "intermediate.dense.bias"),
                    "f_w": np.ascontiguousarray(g(p + "output.dense.weight").T),
                    "f_b": g(p + "output.dense.bias"),
                    "ln2_w": g(p + "output.LayerNorm.weight"),
                    "ln2_b": g(p + "output.LayerNorm.bias"),
                }
            )

    def __call__(self, input_ids: I64, attention_mask: I64) -> F32:
        bsz, seq = input_ids.shape
        if seq > self.max_positions:
            raise ValueError(f"sequence of {seq} tokens exceeds {self.max_positions} positions")
        h, nh = self.hidden, self.heads
        hd = h // nh
        x = self.word[input_ids] + self.pos[:seq][None, :, :] + self.type0
        x = _layer_norm(x.astype(np.float32), *self.emb_ln, self.eps).reshape(bsz * seq, h)
        bias = np.where(attention_mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(hd))
        for blk in self.blocks:
            qkv = x @ blk["qkv_w"] + blk["qkv_b"]
            qkv = qkv.reshape(bsz, seq, 3, nh, hd).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(bsz * seq, h)
            x = _layer_norm(ctx @ blk["o_w"] + blk["o_b"] + x, blk["ln1_w"], blk["ln1_b"], self.eps)
            inter = _gelu((x @ blk["i_w"] + blk["i_b"]).astype(np.float32))
            x = _layer_norm(
                inter @ blk["f_w"] + blk["f_b"] + x, blk["ln2_w"], blk["ln2_b"], self.eps
            )
        return mean_pool(x.reshape(bsz, seq, h), attention_mask)


class OnnxBert:
    """An ONNX export run by onnxruntime on CPU with an explicit thread budget: the packaged
    model (``backend`` "onnx": int8 storage, fp32 arithmetic) or the quantized one ("int8")."""

    def __init__(self, model_path: Path, threads: int, backend: str = "onnx") -> None:
        import onnxruntime as ort

        self.backend = backend
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        # Without this, idle ORT workers spin and steal the cores numpy needs between calls.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(
            str(model_path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.output_names = [o.name for o in self.session.get_outputs()]

    def __call__(self, input_ids: I64, attention_mask: I64) -> F32:
        feeds: dict[str, I64] = {"input_ids": input_ids, "attention_mask": attention_mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        feeds = {k: v for k, v in feeds.items() if k in self.input_names}
        out = np.asarray(self.session.run([self.output_names[0]], feeds)[0], dtype=np.float32)
        if out.ndim == 3:  # token states: pool here
            return mean_pool(out, attention_mask)
        return out
