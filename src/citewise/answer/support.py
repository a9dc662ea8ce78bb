"""Measured support of an answer sentence by the texts it cites.

Used by the release review: every answer sentence must be backed by its cited
spans.  The measure is lexical on purpose — it is cheap, deterministic and
explainable (``missing_terms`` names what the citation does not contain):

* **Content terms** — the sentence's stemmed, stopword-filtered words and CJK
  bigrams (:func:`citewise.analysis.tokenize.key_terms`, so inflections match and
  single Chinese characters do not count as evidence).
* **Literals** — every number (``3``, ``0.10``, ``8443``) and technical literal
  (versions ``2.4.1``, paths ``/api/v2/sync``, ``host:port``, ``HTTP 503``,
  identifiers) must occur *exactly* in the cited text: a changed digit is the
  most common grounded-looking hallucination, and one missing literal makes the
  sentence ``unsupported`` whatever its word coverage.
* **Polarity** — if the sentence is negated (``not``, ``never``, ``不``…) the
  cited text must contain a negation too (negations are stopwords, so word
  coverage alone would accept "X is not enabled" against "X is enabled").  The
  check is one-directional: a cited negation the sentence dropped is not seen.

``score`` = matched / (content terms + literals), in [0, 1]; a sentence with
nothing checkable scores 1.0 (it makes no claim).  Verdict thresholds:

* ``supported``  — no literal/polarity miss and ``score >= 0.8``
  (:data:`SUPPORTED_AT`): answer sentences are near-extractive, so real support
  is ~1.0; 0.8 leaves room for one connective word in five ("therefore", "so").
* ``weak``       — no literal/polarity miss and ``0.5 <= score < 0.8``
  (:data:`WEAK_AT`): half or more of the claim is in the citation — worth a
  reviewer's look, not an automatic rejection.
* ``unsupported`` — otherwise.

These are starting points, to be re-measured on the answer evaluation set.

:func:`contains_orchestration` (from :mod:`citewise.answer.orchestration`, re-exported
here) flags text that leaks or talks to the answer machinery: prompt boilerplate, role
labels, notes to the model, requests for secrets, internal ids (``n_``/``c_``/``d_`` + 24
hex) and ranking internals. Any hit is a release blocker, so the list is kept specific.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from citewise.analysis.tokenize import key_terms, literal_tokens, tokenize
from citewise.answer.orchestration import contains_orchestration, orchestration_markers

__all__ = [
    "SUPPORTED_AT",
    "WEAK_AT",
    "SupportScore",
    "Verdict",
    "contains_orchestration",
    "orchestration_markers",
    "support_score",
]

Verdict = Literal["supported", "weak", "unsupported"]

#: Minimum score for ``supported`` (see module docstring).
SUPPORTED_AT = 0.8
#: Minimum score for ``weak``.
WEAK_AT = 0.5

# Numbers not glued to a word ("30", "0.10", "8443", "2024-03-05" parts), and
# version tags ("v2"), which are single words the stemmer would keep as terms.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,:/])\d+(?:[.,:/]\d+)*|(?<![A-Za-z0-9_./])[vV]\d+(?![A-Za-z0-9_.])"
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nor|cannot|without|neither|n't)\b|n't\b|[不没无未非勿别]"
)


@dataclass(frozen=True, slots=True)
class SupportScore:
    """How well cited texts support one sentence (see module docstring)."""

    score: float
    verdict: Verdict
    terms: tuple[str, ...]
    literals: tuple[str, ...]
    missing_terms: tuple[str, ...]
    missing_literals: tuple[str, ...]
    negation_unsupported: bool = False

    @property
    def missing(self) -> tuple[str, ...]:
        """Everything the citation lacks: terms, literals, then ``"<negation>"``."""
        neg = ("<negation>",) if self.negation_unsupported else ()
        return self.missing_terms + self.missing_literals + neg


def _nfkc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _literals(text: str) -> list[str]:
    """Numbers and technical literals of ``text`` that must be matched exactly."""
    found: dict[str, None] = {}
    for lit in literal_tokens(text):
        found[lit] = None
    for m in _NUMBER.finditer(_nfkc(text)):
        found[m.group(0).lower()] = None
    return list(found)


def _is_negated(text: str) -> bool:
    return _NEGATION.search(_nfkc(text).lower()) is not None


def support_score(sentence: str, cited_texts: str | Iterable[str]) -> SupportScore:
    """Score how well ``cited_texts`` (one text or several) support ``sentence``."""
    cited = [cited_texts] if isinstance(cited_texts, str) else list(cited_texts)
    present_tokens: set[str] = set()
    present_literals: set[str] = set()
    for text in cited:
        present_tokens.update(tokenize(text))
        # a PDF line break inside a literal phrase ("14 CFR\n11.43"): the sentence shows
        # it on one line, so the excerpt's literals are read with its lines joined too
        present_literals.update(_literals(text), _literals(" ".join(text.split())))

    literals = tuple(_literals(sentence))
    lit_set = set(literals)
    terms = tuple(t for t in key_terms(sentence) if t not in lit_set and not t.isdigit())
    missing_terms = tuple(t for t in terms if t not in present_tokens)
    missing_literals = tuple(
        lit for lit in literals if lit not in present_literals and lit not in present_tokens
    )
    negation_missing = _is_negated(sentence) and not any(_is_negated(t) for t in cited)

    total = len(terms) + len(literals)
    matched = total - len(missing_terms) - len(missing_literals)
    score = matched / total if total else 1.0
    if negation_missing:
        score = min(score, WEAK_AT - 0.01)
    verdict: Verdict
    if missing_literals or negation_missing or score < WEAK_AT:
        verdict = "unsupported"
    elif score >= SUPPORTED_AT:
        verdict = "supported"
    else:
        verdict = "weak"
    return SupportScore(
        score=score,
        verdict=verdict,
        terms=terms,
        literals=literals,
        missing_terms=missing_terms,
        missing_literals=missing_literals,
        negation_unsupported=negation_missing,
    )
