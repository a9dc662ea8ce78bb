"""A cross-encoder in miniature, written with the ``onnx`` helper API (for the rerank
tests and the mechanics row of ``bench/rerank_scifact.py``; it is not a relevance model).

The logit of a (query, document) pair is how often the *document* part (token type 1)
holds the vocabulary's ``word``: a query's own occurrences count 0, so a wrong pairing or
missing token types shows in the scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")


def write_tiny_cross_encoder(folder: Path, vocab: Sequence[str], word: str) -> Path:
    """``folder/model.onnx`` and ``folder/vocab.txt`` (``SPECIALS`` first, then ``vocab``)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    tokens = [*SPECIALS, *(t for t in vocab if t not in SPECIALS)]
    weights = np.zeros((len(tokens), 1), dtype=np.float32)
    weights[tokens.index(word)] = 1.0
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["W", "input_ids"], ["emb"], axis=0),
            helper.make_node("Squeeze", ["emb", "axis2"], ["tok"]),
            helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
            helper.make_node("Cast", ["token_type_ids"], ["t"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["tok", "m"], ["tm"]),
            helper.make_node("Mul", ["tm", "t"], ["doc"]),
            helper.make_node("ReduceSum", ["doc", "axis1"], ["logits"], keepdims=1),
        ],
        "tiny_cross_encoder",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(weights, "W"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / "model.onnx"))
    (folder / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return folder
