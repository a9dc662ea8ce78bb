"""Descriptor words: a question word that describes a participant instead of naming it.

"How many ships did *the narrator* count in the harbour?" asks about the writer of a
first-person account that says "I counted seven"; "What *rumour* about the governor
reached the town?" asks about "word came that the governor was leaving". A question's
word for the writer or for a piece of news may be held by no document, and the subject
presence check (:mod:`presence`) refuses a question over a word no chunk holds. But such
words are not the subject: the question names its subject otherwise (the harbour, the
governor, the ships), and the word stands
where a paraphrase does, as the one who acts or the thing that happens:

* the subject of a do-support or modal question (``did the narrator count``, ``could the
  author ...``): the bare verb after it says what the question asks about;
* the wh-determiner's noun followed by a preposition or a verb (``What rumour about
  the governor``, ``Which account of ...``).

Such a word, when no chunk holds it, is read softly (its absence makes the answer
partial and is named, never a refusal on its own), and only when the question names its
subject otherwise: at least :data:`MIN_OTHERS` other required terms that the knowledge
base holds, one of them a name. A word that picks out which thing is meant ("What is a
*castellated* nut?", "the *Dreamliner* airplanes") is a modifier, not a descriptor, and
stays required.
"""

from __future__ import annotations

import re
from dataclasses import replace

from citewise.analysis.question import Question
from citewise.sufficiency.models import QuestionTerm, TermProfile

__all__ = ["MIN_OTHERS", "descriptor_words", "soften_descriptors"]

#: Other required terms the knowledge base holds (one of them a name) that a question
#: with a descriptor word must have: its subject, named otherwise.
MIN_OTHERS = 2

_AUXILIARY = r"(?:did|does|do|can|could|would|will|should|might|must)"
_DETERMINER = r"(?:the|a|an|this|that|these|those|his|her|their|its)"
_FOLLOW = (
    r"(?:about|of|from|on|for|in|at|to|with|did|does|do|was|were|is|are|has|have|had|"
    r"reached|came|made|said|says|reports?|reported)"
)
_AS_SUBJECT = re.compile(rf"\b{_AUXILIARY}\s+{_DETERMINER}\s+([a-z]+)\s+[a-z]+", re.I)
_AS_WH_NOUN = re.compile(rf"\b(?:what|which)\s+([a-z]+)\s+{_FOLLOW}\b", re.I)


def descriptor_words(question: Question) -> frozenset[str]:
    """The question's words (lower case) that stand where a participant is described:
    the subject of ``did the X <verb>``, the noun of ``What X about|of|reached ...``."""
    found = {m.group(1).lower() for m in _AS_SUBJECT.finditer(question.text)}
    found |= {m.group(1).lower() for m in _AS_WH_NOUN.finditer(question.text)}
    return frozenset(found)


def soften_descriptors(question: Question, profile: TermProfile) -> TermProfile:
    """``profile`` with its descriptor words that no chunk holds read softly, when the
    question names its subject otherwise (see the module docstring)."""
    words = descriptor_words(question)
    if not words:
        return profile

    def descriptor(t: QuestionTerm) -> bool:
        return (
            t.kind == "word"
            and t.df == 0
            and t.required
            and not t.soft
            and t.surface.lower() in words
        )

    others = [t for t in profile.terms if t.required and not t.soft and t.df > 0]
    if len(others) < MIN_OTHERS or not any(t.kind == "name" for t in others):
        return profile
    if not any(descriptor(t) for t in profile.terms):
        return profile
    terms = tuple(replace(t, soft=True) if descriptor(t) else t for t in profile.terms)
    return replace(profile, terms=terms)
