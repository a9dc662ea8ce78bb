"""A BERT-style cross-encoder exported to ONNX, loaded from a local directory.

The directory holds ``model.onnx`` and the model's uncased WordPiece ``vocab.txt`` (read
with :class:`~citewise.index.wordpiece.WordPieceTokenizer`, the dense route's tokenizer).
Each pair is ``[CLS] query [SEP] document [SEP]`` with token types 0 / 1, truncated to
``max_len`` tokens (the query to at most a quarter of them). The model's inputs are
read from the graph (``input_ids``, ``attention_mask``, and ``token_type_ids`` when it
has one); its first output gives one logit per pair (shape ``(batch,)`` or
``(batch, 1)``) or two class logits, of which the log-odds of the second is the score.

Nothing here downloads: a missing or unreadable model is :class:`Unavailable`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citewise.errors import RerankFailed, RerankTimedOut
from citewise.index.embedder import Unavailable, fingerprint_of, package_version
from citewise.index.minilm import MiniLMSettings, embed_threads
from citewise.index.wordpiece import WordPieceTokenizer


class OnnxCrossEncoder:
    """Scores pairs in batches, checking the time budget between batches."""

    def __init__(
        self,
        session: Any,
        tokenizer: WordPieceTokenizer,
        digest: str,
        *,
        max_len: int = 512,
        batch_size: int = 8,
        label: str = "onnx cross-encoder",
    ) -> None:
        if max_len < 8:
            raise ValueError("max_len must be at least 8")
        self._session = session
        self._tok = tokenizer
        self._inputs = {i.name for i in session.get_inputs()}
        self._output = session.get_outputs()[0].name
        self.max_len = max_len
        self.batch_size = max(1, batch_size)
        self._label = label
        self._fingerprint = fingerprint_of(
            {
                "model": label,
                "package": f"onnxruntime=={package_version('onnxruntime')}",
                "weights": digest,
                "max_len": str(max_len),
                "pair": "cls-q-sep-d-sep",
            }
        )

    @property
    def name(self) -> str:
        return self._label

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def pair(self, query: str, document: str) -> tuple[list[int], list[int]]:
        """Token ids and token types of one (query, document) pair, truncated."""
        room = self.max_len - 3
        q = self._tok.encode(query)[: max(1, room // 4)]
        d = self._tok.encode(document)[: room - len(q)]
        ids = [self._tok.cls_id, *q, self._tok.sep_id, *d, self._tok.sep_id]
        types = [0] * (len(q) + 2) + [1] * (len(d) + 1)
        return ids, types

    def score(self, query: str, documents: Sequence[str], *, timeout: float) -> list[float]:
        deadline = time.perf_counter() + timeout
        pairs = [self.pair(query, d) for d in documents]
        out = np.zeros(len(pairs), dtype=np.float64)
        order = sorted(range(len(pairs)), key=lambda j: len(pairs[j][0]))
        for start in range(0, len(order), self.batch_size):
            if time.perf_counter() > deadline:
                raise RerankTimedOut(f"scored {start} of {len(pairs)} pairs in {timeout:g}s")
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([pairs[j] for j in idx])
        return [float(x) for x in out]

    def _run(self, batch: list[tuple[list[int], list[int]]]) -> Any:
        width = max(len(ids) for ids, _ in batch)
        ids = np.full((len(batch), width), self._tok.pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        types = np.zeros((len(batch), width), dtype=np.int64)
        for r, (row, tt) in enumerate(batch):
            ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
            types[r, : len(tt)] = tt
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        try:
            got = self._session.run(
                [self._output], {k: v for k, v in feeds.items() if k in self._inputs}
            )[0]
        except Exception as exc:  # onnxruntime raises its own types; the stage reports it
            raise RerankFailed(f"{self._label} failed: {type(exc).__name__}: {exc}") from None
        logits = np.asarray(got, dtype=np.float64)
        if logits.ndim == 2 and logits.shape[1] == 2:
            return logits[:, 1] - logits[:, 0]  # log-odds of "relevant"
        if logits.ndim == 2 and logits.shape[1] == 1:
            return logits[:, 0]
        if logits.ndim == 1:
            return logits
        raise RerankFailed(f"{self._label} gave outputs of shape {logits.shape}; want (batch, 1)")


def load_onnx_reranker(
    directory: str | Path, *, max_len: int = 512
) -> OnnxCrossEncoder | Unavailable:
    """The cross-encoder in ``directory`` (``model.onnx`` + ``vocab.txt``), or why not."""
    import hashlib

    folder = Path(directory).expanduser()
    hint = "Point CITEWISE_RERANK=onnx:<dir> at a folder with model.onnx and vocab.txt."
    model, vocab = folder / "model.onnx", folder / "vocab.txt"
    for f in (model, vocab):
        if not f.is_file():
            return Unavailable("rerank", f"{f} is missing", hint)
    try:
        import onnxruntime as ort

        tokenizer = WordPieceTokenizer(vocab)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = embed_threads(MiniLMSettings())
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(
            str(model), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        digest = hashlib.sha256(model.read_bytes()).hexdigest()[:16]
    except ImportError:
        return Unavailable("rerank", "onnxruntime is not installed", "pip install onnxruntime")
    except Exception as exc:  # any loader failure: the route is unavailable, with the reason
        return Unavailable("rerank", f"{folder}: {type(exc).__name__}: {exc}", hint)
    names = {i.name for i in session.get_inputs()}
    if "input_ids" not in names:
        return Unavailable("rerank", f"{model} has no input_ids input (inputs: {sorted(names)})")
    return OnnxCrossEncoder(
        session, tokenizer, digest, max_len=max_len, label=f"onnx:{folder.name}"
    )
