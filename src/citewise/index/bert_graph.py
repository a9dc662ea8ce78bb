"""An ONNX graph of the BERT encoder, written from the packaged fp32 safetensors.

The graph follows the layout that onnxruntime's transformer optimizer recognises (Q/K/V
projections, a reshape/transpose per head, scaled scores plus an additive mask, softmax,
erf GELU, post-layer-norm), so its attention, skip-layer-norm and GELU fusions apply.
Mean pooling (mask-aware) is part of the graph: the output is ``sentence_embedding``,
shape ``(batch, hidden)``, unnormalised, like :class:`citewise.index.bert.NumpyBert`.

Pure function of the weights: node and tensor names are fixed, so the same weights give
the same bytes. Needs the ``onnx`` package (only to write the model).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from citewise.index.bert import read_safetensors

#: Bump when the graph layout changes (it is part of the cache key and the fingerprint).
GRAPH_VERSION = "bert-graph/1"


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0

    def const(self, name: str, value: npt.NDArray[Any]) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        from onnx import helper

        self._n += 1
        out = f"t{self._n}_{op_type.lower()}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"n{self._n}", **attrs))
        return out


def build_bert_onnx(weights_path: Path, config_path: Path) -> bytes:
    """The serialised fp32 ONNX model (opset 17) of the BERT in ``weights_path``."""
    import onnx
    from onnx import TensorProto, helper

    cfg = json.loads(config_path.read_text(encoding="utf-8"))
    hidden, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    layers, eps = int(cfg["num_hidden_layers"]), float(cfg.get("layer_norm_eps", 1e-12))
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"unsupported activation {cfg.get('hidden_act')}")
    head_dim = hidden // heads
    raw = read_safetensors(weights_path)

    def w(name: str) -> npt.NDArray[np.float32]:
        for key in (name, "bert." + name):
            if key in raw:
                return np.asarray(raw[key], dtype=np.float32)
        raise KeyError(name)

    b = _Builder()
    i64 = np.int64
    ax0, ax1, ax2, axm1 = (
        b.const(f"axes_{n}", np.array([v], i64))
        for n, v in (("0", 0), ("1", 1), ("2", 2), ("m1", -1))
    )
    one = b.const("one_f", np.array(1.0, np.float32))

    # embeddings: word + position + token type 0, then layer norm
    word = b.op(
        "Gather", [b.const("word_emb", w("embeddings.word_embeddings.weight")), "input_ids"]
    )
    seq = b.op("Shape", ["input_ids"], start=1, end=2)  # 1-D: [seq]
    pos_emb = b.const("pos_emb", w("embeddings.position_embeddings.weight"))
    pos = b.op(
        "Unsqueeze",
        [b.op("Slice", [pos_emb, b.const("zero_1d", np.array([0], i64)), seq, ax0]), ax0],
    )
    type0 = b.const("type0_emb", w("embeddings.token_type_embeddings.weight")[0])
    x = b.op("Add", [b.op("Add", [word, pos]), type0])
    x = b.op(
        "LayerNormalization",
        [
            x,
            b.const("emb_ln_w", w("embeddings.LayerNorm.weight")),
            b.const("emb_ln_b", w("embeddings.LayerNorm.bias")),
        ],
        axis=-1,
        epsilon=eps,
    )

    # additive attention mask: 0 for tokens, -10000 for padding, shape (batch, 1, 1, seq)
    m4 = b.op("Unsqueeze", [b.op("Unsqueeze", ["attention_mask", ax1]), ax2])
    mask_bias = b.op(
        "Mul",
        [
            b.op("Sub", [one, b.op("Cast", [m4], to=TensorProto.FLOAT)]),
            b.const("neg_big", np.array(-10000.0, np.float32)),
        ],
    )
    split_heads = b.const("split_heads", np.array([0, 0, heads, head_dim], i64))
    merge_heads = b.const("merge_heads", np.array([0, 0, hidden], i64))
    scale = b.const("sqrt_head_dim", np.array(math.sqrt(head_dim), np.float32))
    sqrt2 = b.const("sqrt2", np.array(math.sqrt(2.0), np.float32))
    half = b.const("half", np.array(0.5, np.float32))

    def dense(inp: str, prefix: str) -> str:
        mm = b.op("MatMul", [inp, b.const(prefix + ".w", w(prefix + ".weight").T)])
        return b.op("Add", [mm, b.const(prefix + ".b", w(prefix + ".bias"))])

    def layer_norm(inp: str, prefix: str) -> str:
        return b.op(
            "LayerNormalization",
            [
                inp,
                b.const(prefix + ".g", w(prefix + ".weight")),
                b.const(prefix + ".beta", w(prefix + ".bias")),
            ],
            axis=-1,
            epsilon=eps,
        )

    for i in range(layers):
        p = f"encoder.layer.{i}."
        q = b.op(
            "Transpose",
            [b.op("Reshape", [dense(x, p + "attention.self.query"), split_heads])],
            perm=[0, 2, 1, 3],
        )
        k = b.op(
            "Transpose",
            [b.op("Reshape", [dense(x, p + "attention.self.key"), split_heads])],
            perm=[0, 2, 3, 1],
        )
        v = b.op(
            "Transpose",
            [b.op("Reshape", [dense(x, p + "attention.self.value"), split_heads])],
            perm=[0, 2, 1, 3],
        )
        scores = b.op("Add", [b.op("Div", [b.op("MatMul", [q, k]), scale]), mask_bias])
        ctx = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
        ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_heads])
        attn = dense(ctx, p + "attention.output.dense")
        x = layer_norm(b.op("Add", [attn, x]), p + "attention.output.LayerNorm")
        inter = dense(x, p + "intermediate.dense")
        erf = b.op("Erf", [b.op("Div", [inter, sqrt2])])
        gelu = b.op("Mul", [b.op("Mul", [inter, b.op("Add", [erf, one])]), half])
        out = dense(gelu, p + "output.dense")
        x = layer_norm(b.op("Add", [out, x]), p + "output.LayerNorm")

    # mask-aware mean pooling
    mask_f = b.op("Unsqueeze", [b.op("Cast", ["attention_mask"], to=TensorProto.FLOAT), axm1])
    summed = b.op("ReduceSum", [b.op("Mul", [x, mask_f]), ax1], keepdims=0)
    counts = b.op(
        "Max",
        [b.op("ReduceSum", [mask_f, ax1], keepdims=0), b.const("tiny", np.array(1e-9, np.float32))],
    )
    pooled = b.op("Div", [summed, counts])
    b.nodes.append(helper.make_node("Identity", [pooled], ["sentence_embedding"], name="pooled"))

    ids = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
        for n in ("input_ids", "attention_mask")
    ]
    out_info = helper.make_tensor_value_info(
        "sentence_embedding", TensorProto.FLOAT, ["batch", hidden]
    )
    graph = helper.make_graph(b.nodes, "minilm", ids, [out_info], initializer=b.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17)],
        producer_name="citewise",
        producer_version=GRAPH_VERSION,
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())
