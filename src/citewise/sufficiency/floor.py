"""The relevance floor of an answer unit (issue 15 reject sets).

With its own paragraph gone, a question is answered from a sibling paragraph of the same
article: a unit that meets the question's constraints (a name, a rare relation word)
yet shares little else with it, often from a fragment recall ranked low ("What charter
has become an important aspect of EU law?" quoting "Another important aspect of Yuan
times is ..."). A unit of a constrained question whose relevance (term overlap with the
question, blended with meaning when the dense route is on, weighed by its fragment's role
and recall rank: :mod:`citewise.answer.ranking`) is below :data:`RELEVANCE_FLOOR` is no
answer. The reason names the question's words the unit does not hold (:func:`unmentioned`).

Chosen on SQuAD 2.0 dev, seed 7: of 120 answers holding the gold text (1,000-question
sample) 1 had no unit at 0.3 or more and 3 none at 0.4 (partial answers); of the 78
reject-set answers 11 and 21 had none. 0.4 kept gold in answer on the 200-question tuning
sample but cost 4 of 95 on the reported sample (seed 15), so the floor is 0.3, where no
gold answer of either sample scores below it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citewise.analysis.question import Question
from citewise.analysis.tokenize import QUESTION_STEMS, tokenize
from citewise.sufficiency.presence import FILLER, english_zipf
from citewise.sufficiency.wordforms import held, tokens

__all__ = ["RELEVANCE_FLOOR", "unmentioned"]

#: The lowest relevance score of a unit an answer quotes for a constrained question.
RELEVANCE_FLOOR = 0.3

#: Words at least this frequent in English (Zipf) are function words ("were", "its").
FUNCTION_ZIPF = 6.0
#: Less frequent function words, never what a question is about.
_FUNCTION = (
    "while within about above below after before between during against through among "
    "upon onto besides despite since until whether each both other such some any"
)
FUNCTION_WORDS = frozenset(_FUNCTION.split())

_WORD = re.compile(r"[^\s?!,;:()\"“”‘’`]+")


def unmentioned(question: Question, text: str, headings: Iterable[str] = ()) -> tuple[str, ...]:
    """The question's own words (as written, in order, once each) that ``text`` and its
    ``headings`` hold in no form: its key terms, not question or stop words."""
    present = tokens(text).union(*(tokens(h) for h in headings))
    out: dict[str, None] = {}
    for surface in _WORD.findall(question.text):
        word = surface.strip(".'’-")
        if word.lower() in FUNCTION_WORDS or english_zipf(word.lower()) >= FUNCTION_ZIPF:
            continue  # "were", "its", "have": no word the question is about
        keys = [k for k in tokenize(word) if k not in QUESTION_STEMS and k not in FILLER]
        if keys and not all(held(k, present) for k in keys):
            out[word] = None
    return tuple(out)
