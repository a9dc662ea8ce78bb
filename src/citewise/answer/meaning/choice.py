"""When the quoted units fail the meaning check, answer from the next candidate that passes.

The meaning check (:mod:`citewise.answer.meaning.check`) reads the question with the units the
composer chose; when none of them answers it by meaning the answer used to be refused,
although another candidate unit often does ("When was the French colony in modern day
Brazil founded?": the value is in the second sentence of a longer unit; "What lands were
reserved for natives?": the composer's second-ranked sentence). :func:`alternatives`
names the few units read next, a fixed number, so the pairs an ask costs stay bounded:
each sentence of a chosen longer unit alone, then the composer's next-ranked units.
:func:`recover` scores them and keeps the best that reaches the check's floor; the answer
is then that unit, cited like any other, with the chosen units' profile parts of its own
section. None passing: the refusal stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citewise.analysis.question import Question
from citewise.answer.candidate import Candidate, inside
from citewise.answer.clause_reading import clause_read
from citewise.answer.meaning.check import (
    MEANING_FLOOR,
    MeaningCheck,
    asks,
    checked,
    meaning_scores,
    with_heading,
)

__all__ = [
    "RECOVERY_UNITS",
    "RESCUE_FLOOR",
    "Recovery",
    "alternatives",
    "recover",
    "rescuable",
    "rescue",
]

#: Units read after the chosen ones failed (one pair each).
RECOVERY_UNITS = 4


@dataclass(frozen=True, slots=True)
class Recovery:
    """The units read after the chosen failed, their scores, and the answer's new units
    (empty when none passed)."""

    read: tuple[Candidate, ...]
    check: MeaningCheck
    chosen: tuple[Candidate, ...]

    def to_json(self) -> dict[str, object]:
        """The trace form: each unit read (document and span) with its score."""
        return {
            "read": [
                {"doc": c.fragment.path, "span": [c.span.start, c.span.end], "score": round(s, 3)}
                for c, s in zip(self.read, self.check.scores, strict=True)
            ],
            "passed": bool(self.chosen),
        }


def alternatives(
    chosen: Sequence[Candidate], pool: Sequence[Candidate], n: int = RECOVERY_UNITS
) -> list[Candidate]:
    """Up to ``n`` units to read next, none of them chosen: the sentences inside a chosen
    longer unit (best scored first), then the pool's best other units (``pool`` is ranked
    best first; a unit the constraints refused, score 0, is never one)."""
    taken = {c.key for c in chosen}
    admitted = [c for c in pool if c.score > 0 and c.key not in taken]
    within = [c for c in admitted if any(inside(c, o) for o in chosen)]
    rest = [c for c in admitted if c not in within]
    out: list[Candidate] = []
    for c in (*within, *rest):
        if len(out) >= n:
            break
        if all(c.clean != o.clean for o in out):
            out.append(c)
    return out


def _best_read(question: Question, read: Sequence[Candidate]) -> tuple[MeaningCheck, int] | None:
    """Each of ``read`` scored by meaning (with its heading; a clause with its part and
    section titles, :mod:`citewise.answer.clause_reading`) and the index of the best
    (ties: the earlier); None when there is nothing to read or no model."""
    if not read:
        return None
    texts = [clause_read(c) or with_heading(c.clean, c.section, c.depth) for c in read]
    check = meaning_scores(question, texts)
    if check is None:
        return None
    return check, max(range(len(read)), key=lambda i: (check.scores[i], -i))


def recover(
    question: Question, chosen: Sequence[Candidate], pool: Sequence[Candidate]
) -> Recovery | None:
    """The best of :func:`alternatives` by meaning, when it reaches the floor; None when
    the model is unavailable (then the refusal stands as the check decided)."""
    read = alternatives(chosen, pool)
    got = _best_read(question, read)
    if got is None:
        return None
    check, best = got
    if check.scores[best] < MEANING_FLOOR:
        return Recovery(tuple(read), check, ())
    pick = read[best]
    parts = [c for c in chosen if c.score == 0 and c.section == pick.section]
    return Recovery(tuple(read), check, (pick, *parts))


#: The log-odds a unit needs to answer a question the word-presence gates refused. Chosen
#: on SQuAD 2.0 dev seed 7 (docs/benchmarks.md): of the 1,000-question sample's refusals
#: by word presence, the best of three units reached 6 for 14 answerable questions (every
#: one holding the gold text) and 24 unanswerable ones; 1 of the 200 reject-set questions
#: (at 7: 10 gold, 18 unanswerable, no reject).
RESCUE_FLOOR = 6.0
#: Units the rescue reads (the composer's best, one pair each).
RESCUE_UNITS = 3
#: Refusals the rescue may overturn: the question's words are missing from or scattered
#: over the evidence (a paraphrase: "flee" for "fled to"), never a name, identifier or
#: labelled number that no document holds, nor a near miss, a condition or a stale edition.
WORD_GATES = frozenset(
    {
        "subject_absent",
        "subject_scattered",
        "subject_missing",
        "constraint_unmet",
        "no_direct_evidence",
    }
)


def rescuable(question: Question, intent: str, reasons: Sequence[str], names_absent: bool) -> bool:
    """Whether a refusal of ``question`` (its reasons' kinds) may be overturned by meaning:
    an English question (not a claim), not a procedure or comparison, not a named clause,
    refused by word presence only, with every name and identifier it asks about found."""
    return (
        bool(reasons)
        and not names_absent
        and all(r.partition(":")[0] in WORD_GATES for r in reasons)
        and checked(question, intent, constrained=True)
        and asks(question.text)
        and question.english
    )


def rescue(question: Question, pool: Sequence[Candidate]) -> Recovery | None:
    """The composer's best units (``pool``, ranked best first, gates not applied) read by
    meaning: the best of :data:`RESCUE_UNITS` answers when it reaches
    :data:`RESCUE_FLOOR`; None when no model, no unit or no English question."""
    read = [c for c in pool if c.score > 0][:RESCUE_UNITS]
    got = _best_read(question, read)
    if got is None:
        return None
    check, best = got
    chosen = (read[best],) if check.scores[best] >= RESCUE_FLOOR else ()
    return Recovery(tuple(read), check, chosen)
