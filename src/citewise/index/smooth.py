"""Outlier-channel smoothing of the fused MiniLM graph before dynamic int8 quantization.

MiniLM's hidden states carry a few channels far larger than the rest (hidden dim 99 reaches
about 28 where the median channel peaks near 2; each FFN output input has one or two such
channels: Dettmers et al., "LLM.int8()", NeurIPS 2022, describe the effect). Dynamic int8
quantizes a MatMul's whole input with one scale per call, so such a channel takes most of
the 256 levels from the others. Following the idea of SmoothQuant (Xiao et al., ICML 2023),
the input of every MatMul and Attention node is divided per channel by ``s`` (a ``Mul``
node) and the matching weight rows are multiplied by ``s``: in exact arithmetic the
product is unchanged. Unlike SmoothQuant's ``max|x|^a / max|w|^(1-a)`` migration, only
outlier channels are touched: ``s = max(1, max|x_j| / (OUTLIER_FACTOR * median_j max|x_j|))``,
so ordinary channels and their weight rows stay as they were (the balanced migration was
measured worse with per-channel int8 weights; docs/benchmarks.md).

Channel maxima come from :data:`CALIBRATION`, fixed sentences of several registers written
for this purpose (never the data a benchmark scores). Pure function of the model and those
sentences, so the build stays byte-identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

#: Part of the recipe name: change it when the sentences, the factor or the rule change.
SMOOTH_VERSION = "outlier-smooth-2/1"
OUTLIER_FACTOR = 2.0
MAX_SCALE = 1e3
CALIBRATION = (
    "The committee approved the budget for the new public library.",
    "Mitochondria produce most of the chemical energy in eukaryotic cells.",
    "Vitamin D deficiency is associated with an increased risk of fractures in older adults.",
    "Section 4.2 requires the operator to keep maintenance records for two years.",
    "How do I reset my password if I no longer have access to the recovery email?",
    "The river flooded the lower town twice in the nineteenth century, and the mill was "
    "rebuilt each time.",
    "Install the package, then run the migration before restarting the server.",
    "Patients receiving the higher dose reported fewer migraines but more nausea.",
    "what is the capital of australia",
    "Interest rates rose by a quarter point after the central bank's meeting in March.",
    "The algorithm sorts the list in place and runs in O(n log n) time on average.",
    "A tenant may terminate the lease with thirty days' written notice.",
)
TARGET_OPS = ("MatMul", "Attention")


def channel_maxima(model: Any, vocab: Path) -> dict[str, npt.NDArray[np.float32]]:
    """Per node of :data:`TARGET_OPS`: the largest ``|x|`` of each channel of its first input
    over :data:`CALIBRATION` (each sentence alone, as the encoder runs at batch 1)."""
    import onnx
    import onnxruntime as ort
    from onnx import helper

    from citewise.index.wordpiece import WordPieceTokenizer

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    targets = [n for n in probe.graph.node if n.op_type in TARGET_OPS]
    for n in targets:
        probe.graph.output.append(
            helper.make_tensor_value_info(n.input[0], onnx.TensorProto.FLOAT, None)
        )
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(probe.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in sess.get_inputs()}
    tok = WordPieceTokenizer(vocab)
    out: dict[str, npt.NDArray[np.float32]] = {}
    for text in CALIBRATION:
        ids = [tok.cls_id, *tok.encode(text)[:254], tok.sep_id]
        feed = {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
        }
        got = sess.run(
            [n.input[0] for n in targets], {k: v for k, v in feed.items() if k in inputs}
        )
        for n, x in zip(targets, got, strict=True):
            arr = np.asarray(x, dtype=np.float32)
            peak = np.abs(arr.reshape(-1, arr.shape[-1])).max(axis=0)
            out[n.name] = np.maximum(out[n.name], peak) if n.name in out else peak
    return out


def outlier_scales(maxima: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``s_j`` (>= 1): how far channel ``j`` is divided down (1 for ordinary channels)."""
    s = np.maximum(1.0, maxima / (OUTLIER_FACTOR * np.median(maxima))).astype(np.float32)
    out: npt.NDArray[np.float32] = np.clip(s, 1e-2, MAX_SCALE).astype(np.float32)
    return out


def smooth(model: Any, maxima: dict[str, npt.NDArray[np.float32]]) -> dict[str, int]:
    """Rewrite ``model`` in place; returns the number of channels scaled per node."""
    from onnx import helper, numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    nodes: list[Any] = []
    scaled: dict[str, int] = {}
    for n in model.graph.node:
        if n.op_type in TARGET_OPS and n.name in maxima:
            s = outlier_scales(maxima[n.name])
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)  # (in, out)
            inits[n.input[1]].CopyFrom(
                numpy_helper.from_array((w * s[:, None]).astype(np.float32), n.input[1])
            )
            inv = f"{n.name}_smooth_inv"
            model.graph.initializer.append(
                numpy_helper.from_array((1.0 / s).astype(np.float32), inv)
            )
            smoothed = f"{n.name}_smoothed_in"
            nodes.append(
                helper.make_node("Mul", [n.input[0], inv], [smoothed], name=f"{n.name}_smooth")
            )
            n.input[0] = smoothed
            scaled[n.name] = int((s > 1.0).sum())
        nodes.append(n)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return scaled


def smooth_file(src: Path, dst: Path, vocab: Path) -> dict[str, int]:
    """Smooth the model at ``src`` into ``dst``."""
    import onnx

    model = onnx.load(str(src))
    scaled = smooth(model, channel_maxima(model, vocab))
    onnx.save(model, str(dst))
    return scaled
