"""Relevance of answer units to the question: term overlap and meaning.

Term overlap alone picks "an unrelated sentence sharing a term" over the paragraph that
answers; the dense encoder of the knowledge base's index (the same model that ranks the
chunks) scores the question against each unit's display text. The two are blended
(:func:`blend`); with the dense route off or unavailable the score is lexical only, so
answers degrade to what term overlap can do, never fail.

Unit vectors are encoded when the index is built and kept in the store by text hash
(:mod:`citewise.index.unit_vectors`; a unit's text never changes within a document
version), read from there as a question needs them and cached per process by encoder
fingerprint and text hash; only a unit found in neither is encoded at ask time. Encoding
is deterministic for a given text (one text per forward call), so a kept vector is the
one the ask would make, which keeps answers and replay ids stable.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from citewise.analysis.question import Question
from citewise.evidence.sentences import held_terms
from citewise.index.unit_vectors import stored_unit_vectors, unit_key

if TYPE_CHECKING:
    from citewise.index.manager import KBIndex

__all__ = ["DenseScorer", "Scorer", "blend", "dense_scorer", "encode_head", "lexical_score"]

#: Cosine at or below which a unit counts as unrelated, and the span to full relevance
#: (all-MiniLM-L6-v2: a question against its answering sentence is typically 0.5-0.8,
#: against an unrelated sentence of the same documentation 0.0-0.25).
COS_FLOOR = 0.2
COS_SPAN = 0.45
#: Share of the dense similarity in the blended score.
DENSE_SHARE = 0.5
CACHE_SIZE = 50_000
#: A unit is encoded from its first characters (cut at a word boundary): the lead-in and
#: the start of its block carry its meaning, and short inputs keep the encoder fast.
ENCODE_CHARS = 320


class Scorer(Protocol):
    """Meaning similarity of ``question`` to each text, each in [0, 1]; None when the
    encoder cannot run (the caller then uses term overlap alone)."""

    def __call__(self, question: Question, texts: Sequence[str]) -> list[float] | None: ...


def lexical_score(question: Question, text: str, heading: str) -> float:
    """Share of the question's key terms in the unit (0.6) and in unit plus heading (0.4):
    ``term_coverage(question, text)`` and ``term_coverage(question, [text, heading])``,
    with the question's terms and the unit's tokens found once for both."""
    terms = list(question.key_terms)
    if not terms:
        return 0.6 * 1.0 + 0.4 * 1.0  # no key terms: both coverages are 1.0
    held = held_terms(terms, text)  # the terms among the text's tokens (distinct terms)
    own = len(held)
    cover = len(set(held).union(held_terms(terms, heading)))
    return 0.6 * (own / len(terms)) + 0.4 * (cover / len(terms))


def blend(lexical: float, dense: float | None) -> float:
    """The unit's relevance in [0, 1]: lexical alone, or mixed with the dense similarity."""
    if dense is None:
        return lexical
    return (1.0 - DENSE_SHARE) * lexical + DENSE_SHARE * dense


_CACHE: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_LOCK = threading.Lock()


def encode_head(text: str) -> str:
    """What the scorer encodes of a unit's text: its first :data:`ENCODE_CHARS`, cut at a word."""
    if len(text) <= ENCODE_CHARS:
        return text
    cut = text.rfind(" ", 0, ENCODE_CHARS)
    return text[: cut if cut > ENCODE_CHARS // 2 else ENCODE_CHARS]


@dataclass
class DenseScorer:
    """Question-vs-unit cosine with the index's encoder, rescaled to [0, 1]."""

    index: KBIndex

    def __call__(self, question: Question, texts: Sequence[str]) -> list[float] | None:
        qvec = self.index.embed_query(question.text)
        emb = self.index.embedder
        if qvec is None or emb is None:
            return None
        fp = emb.fingerprint
        texts = [encode_head(t) for t in texts]
        keys = [(fp, unit_key(t)) for t in texts]
        with _LOCK:
            have = {k: _CACHE[k] for k in keys if k in _CACHE}
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in have))
        if todo:  # encoded when the index was built, or else now
            kept = stored_unit_vectors(self.index.store, emb, [unit_key(t) for t in todo])
            with _LOCK:
                for key, vec in kept.items():
                    _CACHE[(fp, key)] = have[(fp, key)] = vec
            todo = [t for t in todo if (fp, unit_key(t)) not in have]
        if todo:
            vecs = emb.encode(todo, kind="passage")
            with _LOCK:
                for t, v in zip(todo, vecs, strict=True):
                    k = (fp, unit_key(t))
                    _CACHE[k] = v
                    have[k] = v
                while len(_CACHE) > CACHE_SIZE:
                    _CACHE.popitem(last=False)
        out = []
        for k in keys:
            cos = float(np.dot(have[k], qvec))
            out.append(min(1.0, max(0.0, (cos - COS_FLOOR) / COS_SPAN)))
        return out


def dense_scorer(index: KBIndex) -> Scorer:
    """The index's dense scorer (it answers None while the dense route is off)."""
    return DenseScorer(index)
