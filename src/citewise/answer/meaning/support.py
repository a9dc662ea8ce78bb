"""How strongly the quoted units hold the question's words, for the meaning check's verdict.

The cross-encoder (:mod:`citewise.answer.meaning.check`) tells a sentence that answers the
question from a sibling sentence that only shares its words, but it also reads some right
answers low: a long narrative sentence ("... occasionally I have seen as many as three of
them in the air at once"), a paraphrase ("the reservation of lands west of the Appalachian
Mountains" for "What lands were reserved for natives?"). Those answers hold the question's
rare words; a loosely related sibling paragraph holds fewer of them. :func:`support`
measures that: the share of the question's terms, each weighed by its rarity in the
knowledge base (inverse document frequency), that the quoted units' text holds (with
their heading and the sentence before them, which the model reads too).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from citewise.analysis.tokenize import tokenize
from citewise.sufficiency.models import QuestionTerm, TermProfile

__all__ = ["Support", "support", "term_weight"]


@dataclass(frozen=True, slots=True)
class Support:
    """The quoted units' hold on the question's terms."""

    #: Rarity-weighted share of the question's terms the units' text holds (0..1).
    held: float
    #: Share of the question's rare terms (a name, an identifier, or a word held by at
    #: most a few percent of the knowledge base's chunks) the text holds (1.0 when none).
    rare: float
    #: The question's terms weighed.
    terms: int

    def to_json(self) -> dict[str, object]:
        """The trace form."""
        return {"held": round(self.held, 3), "rare": round(self.rare, 3), "terms": self.terms}


#: A word held by at most this share of the chunks is one of the question's rare terms.
RARE_SHARE = 0.02


def term_weight(term: QuestionTerm, chunks: int) -> float:
    """A term's inverse document frequency in the knowledge base (a term no chunk holds
    weighs as one held once)."""
    n = max(chunks, 1)
    return math.log(1.0 + n / (max(term.df, 0) + 1.0))


def _rare(term: QuestionTerm, chunks: int) -> bool:
    return term.kind != "word" or term.df <= RARE_SHARE * max(chunks, 1)


def support(profile: TermProfile, texts: Iterable[str]) -> Support:
    """How much of ``profile``'s terms ``texts`` (the quoted units, their headings and the
    sentences before them) hold; a question without weighed terms is fully held."""
    present: set[str] = set()
    for text in texts:
        present.update(tokenize(text))
    terms = [t for t in profile.terms if not t.kb_common]
    if not terms:
        return Support(1.0, 1.0, 0)
    weights = [term_weight(t, profile.chunks) for t in terms]
    hit = [t.key in present or (bool(t.asked) and t.asked in present) for t in terms]
    held = sum(w for w, h in zip(weights, hit, strict=True) if h) / sum(weights)
    rare = [h for t, h in zip(terms, hit, strict=True) if _rare(t, profile.chunks)]
    return Support(held, sum(rare) / len(rare) if rare else 1.0, len(terms))
