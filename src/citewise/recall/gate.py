"""The lexical gate's second reading: a refusal lifted by meaning (issue 17).

The lexical gate refuses when the best match holds too few of the query's key terms
(``RecallSettings.lexical_min_coverage``) and scores too low to count as a strong match on
its rarer terms (``lexical_strong_score``). Both read words only, so a claim written in
words the corpus never uses ("glycometabolic") is refused beside off-domain questions.
Before the refusal stands, the shipped cross-encoder (:mod:`citewise.recall.meaning_model`,
Nogueira & Cho 2019's query-passage relevance reading) reads the query with the best
lexical match; a log-odds of ``lexical_meaning_floor`` or more lifts the refusal.

The floor is chosen on the SciFact *train* trade-off curve (docs/benchmarks.md,
"The lexical gate read by meaning"): of the 809 train claims the shipped rule refuses 5,
the two whose relevant abstract the index ranks well read -0.92 and -2.20 on their best
match; of the 800 English off-domain queries (400 14 CFR section subjects, 400 SQuAD 2.0
questions on the SciFact KB; CMRC's Chinese ones are not read, the model reads English)
none reads above -3.40. The floor is the middle of that gap. One pair per refusal, time-boxed: past
:data:`TIMEOUT_S`, or without the model, the refusal stands as the words decided.
"""

from __future__ import annotations

from citewise.recall.meaning_model import english, meaning_model, pair_score

#: Seconds the reading may take; past it the refusal stands.
TIMEOUT_S = 2.0


def meaning_read(query: str, breadcrumb: str, text: str) -> float | None:
    """The cross-encoder's log-odds that ``text`` (under its ``breadcrumb``) is relevant
    to ``query``; None when the model is off or absent, the query is not English, or the
    reading failed or ran out of time."""
    if not english(query):
        return None
    model = meaning_model()
    if model is None:
        return None
    passage = f"{breadcrumb}\n{text}" if breadcrumb else text
    return pair_score(model, query, passage, TIMEOUT_S)


__all__ = ["TIMEOUT_S", "meaning_read"]
