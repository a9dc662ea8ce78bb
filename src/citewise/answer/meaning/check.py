"""Whether the quoted sentences answer the question by meaning (issue 15 reject sets).

With its own paragraph gone, a question is answered from a sibling paragraph of the same
article: a sentence holding most of the question's words that answers a neighbouring
question ("Who was Kublai Khan's grandfather?" quoting "Temür Khan decided to maintain
and continue much of the work begun by his grandfather"). Word presence cannot tell the
two apart (docs/benchmarks.md, "What is left"); a cross-encoder reading question and
sentence together can: the shipped cross-encoder of
:mod:`citewise.recall.meaning_model` (loaded once per process, pair scores cached).

An answer to an English question the check applies to (:func:`checked`)
stands when at least one quoted unit scores :data:`MEANING_FLOOR` or more (log-odds of
"relevant"); else it is refused with a reason in the question's own words. Units are
scored best first and scoring stops at the first that passes, so an answer that stands
costs one pair in most cases. The check is on unless ``CITEWISE_MEANING=off``; without
the model (the wheel absent) no check runs and answers are as before; ``CITEWISE_MEANING``
set to a folder with ``model.onnx`` and ``vocab.txt`` uses that cross-encoder instead.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from citewise.analysis.question import Question
from citewise.answer.meaning.read import (
    MAX_READINGS,
    neighbours,
    readings,
    section_lead,
    sentence_after,
    sentence_before,
    unbroken,
    unit_readings,
    with_heading,
)
from citewise.recall.identifiers import clause_refs
from citewise.recall.meaning_model import (
    available,
    english,
    meaning_model,
    meaning_status,
    pair_score,
    shipped_model_dir,
)

__all__ = [
    "MAX_READINGS",
    "MEANING_FLOOR",
    "MeaningCheck",
    "asks",
    "available",
    "checked",
    "english",
    "meaning_check",
    "meaning_reason",
    "meaning_scores",
    "meaning_status",
    "neighbours",
    "readings",
    "section_lead",
    "sentence_after",
    "sentence_before",
    "shipped_model_dir",
    "tabular",
    "unbroken",
    "unit_readings",
    "with_heading",
]

#: The lowest cross-encoder log-odds of the best quoted unit. Chosen on SQuAD 2.0 dev,
#: seed 7 (docs/benchmarks.md): of 68 answers holding the gold text one had its best unit
#: below 2.0 (a misspelt name, which the check reads respelt); of the 57 reject-set
#: answers without the gold text 33 had none at 2.0 or more (30 at 1.0).
MEANING_FLOOR = 2.0
#: A best unit this relevant (term overlap, weighed by role and recall rank, as the
#: composer scores it) is not checked: on SQuAD 2.0 dev seed 7 (1,000 questions) the check
#: refused 12 of 350 gold answers and 33 of 57 reject-set answers; below 0.7 only it
#: refuses 7 and 31 (the rejects' best units score 0.41-0.67 in the middle half, the gold
#: answers' 0.61-1.0).
SURE = 0.7
#: Seconds the check may take; past it the answer stands (the check is then skipped).
TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class MeaningCheck:
    """The scores of the units read (in the order given, up to the first that passed)."""

    scores: tuple[float, ...]
    passed: bool
    ms: float
    model: str

    def to_json(self) -> dict[str, object]:
        """The trace form: what was decided and by which model (no timing, so equal
        questions give equal traces)."""
        return {
            "scores": [round(s, 3) for s in self.scores],
            "passed": self.passed,
            "floor": MEANING_FLOOR,
            "model": self.model,
        }


#: Intents whose answers are not one statement: a procedure's steps, a comparison's sides.
UNCHECKED = frozenset({"how_to", "compare"})
_WH = re.compile(r"who|whom|whose|what|when|where|which|why|how", re.I)
_WORD = re.compile(r"[A-Za-z]+")


def checked(question: Question, intent: str, constrained: bool, best: float = 0.0) -> bool:
    """Whether the answer to ``question`` gets the check: a question whose units the
    constraints test (:mod:`citewise.sufficiency.constraints`), or any other question
    (:func:`asks`), whose best unit's relevance (``best``, as the composer scores it) is
    below :data:`SURE`; never a clause it names (the clause is the answer), a claim to
    verify (a statement, no question) or a procedure or comparison (:data:`UNCHECKED`)."""
    if intent in UNCHECKED or best >= SURE or clause_refs(question.text):
        return False
    return constrained or asks(question.text)


#: Unit kinds that are not prose: a table row read without its header, a table, code.
NOT_PROSE = frozenset({"row", "table", "code"})


def tabular(kind: str, text: str) -> bool:
    """Whether a unit is a table, a table row or code, or carries a table (a lead-in with
    the rows it introduces): the model was trained on prose passages and reads a row such
    as "Team | City | 13" as no answer to a "how many titles has the team won" question
    (real documents, docs/benchmarks.md); such answers are not checked."""
    return kind in NOT_PROSE or text.count(" | ") >= 2


def asks(text: str) -> bool:
    """Whether ``text`` is a question: it ends with a question mark, or opens or closes
    with a wh-word ("The business allowed companies to do what"); a claim is none."""
    words = _WORD.findall(text)
    if text.rstrip().endswith(("?", "？")):
        return True
    return bool(words) and (
        _WH.fullmatch(words[0]) is not None or _WH.fullmatch(words[-1]) is not None
    )


def passes(scores: Sequence[float], floor: float = MEANING_FLOOR) -> bool:
    """Whether any unit's score reaches ``floor``."""
    return any(s >= floor for s in scores)


def meaning_check(question: Question, texts: Sequence[str]) -> MeaningCheck | None:
    """Score ``texts`` (best first) against ``question`` until one passes; None when no
    model is available, the question is not English, or the check ran out of time."""
    return _check(question, texts, stop=True)


def meaning_scores(question: Question, texts: Sequence[str]) -> MeaningCheck | None:
    """Score every one of ``texts`` against ``question`` (a choice among them, not a
    veto); None as for :func:`meaning_check`."""
    return _check(question, texts, stop=False)


def _check(question: Question, texts: Sequence[str], *, stop: bool) -> MeaningCheck | None:
    if not texts or not question.english:
        return None
    model = meaning_model()
    if model is None:
        return None
    t0 = time.perf_counter()
    scores: list[float] = []
    for text in texts:
        got = pair_score(model, question.text, text, TIMEOUT_S - (time.perf_counter() - t0))
        if got is None:
            return None
        scores.append(got)
        if stop and passes(scores[-1:]):
            break
    ms = 1000 * (time.perf_counter() - t0)
    return MeaningCheck(tuple(scores), passes(scores), round(ms, 1), model.name)


def meaning_reason(question: Question) -> str:
    """The refusal's detail: the question itself, which no quoted sentence answers."""
    asked = " ".join(question.text.split()).rstrip("?？ ")
    return f'no passage found answers "{asked}?"'
