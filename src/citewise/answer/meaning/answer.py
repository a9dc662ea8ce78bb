"""The meaning check inside ``ask`` (answer/pipeline.py): judge the composed units and
answer from the next candidate that passes (:func:`judged`), and answer by meaning a
question the word-presence gates refused (:func:`rescued`, :func:`answer_by_meaning`).
The choices themselves are :mod:`citewise.answer.meaning.choice`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from citewise.analysis.question import Question
from citewise.analysis.tokenize import has_cjk
from citewise.answer.citations import cite_claims
from citewise.answer.composition.compose import compose_ranked
from citewise.answer.finish import finish
from citewise.answer.meaning.check import (
    available,
    meaning_check,
    meaning_reason,
    meaning_status,
    tabular,
    unit_readings,
)
from citewise.answer.meaning.choice import RESCUE_FLOOR, recover, rescuable, rescue
from citewise.answer.meaning.support import support
from citewise.answer.meaning.titled import TITLE_FLOOR, TitleOf, title_check
from citewise.answer.relevance import dense_scorer
from citewise.answer.review import release_review
from citewise.answer.units.cache import fragment_units
from citewise.sufficiency.models import Reason, Sufficiency, TermProfile
from citewise.sufficiency.verdict import unchecked_by_words

if TYPE_CHECKING:
    from citewise.answer.candidate import Candidate, UnitsOf
    from citewise.answer.models import Answer, AnswerTrace, MeaningTrace
    from citewise.context import StageContext
    from citewise.evidence.models import EvidencePack, Fragment
    from citewise.sufficiency.models import ConflictNote

__all__ = ["NO_CHINESE_READER", "answer_by_meaning", "judged", "rescued"]

#: Why a Chinese answer is not read for meaning: neither model the project ships (the
#: ms-marco-MiniLM-L-12-v2 cross-encoder, the all-MiniLM-L6-v2 encoder) was trained on
#: Chinese, so its score would be noise; Chinese answers rest on the word and answer-type
#: gates alone (issue 34).
NO_CHINESE_READER = "no Chinese reader: the shipped cross-encoder reads English only"


def judged(
    searched: Question,
    question: Question,
    chosen: list[Candidate],
    ranked: list[Candidate],
    trace: AnswerTrace,
    profile: TermProfile | None = None,
    units_of: UnitsOf | None = None,
    title_of: TitleOf | None = None,
) -> tuple[list[Candidate], Reason | None]:
    """The units the answer quotes after the meaning check (``searched``: the question as
    the knowledge base spells it), and the refusal's reason when no unit, chosen or read
    next, answers ``question`` by meaning. Without the model the units stand unchecked
    and the trace says why."""
    if any(tabular(c.kind, c.clean) for c in chosen):
        trace["meaning"] = {"skipped": "a table or code unit: the model reads prose"}
        return chosen, None
    texts = unit_readings(chosen, units_of)
    meaning = meaning_check(searched, texts)
    if meaning is None:
        if has_cjk(searched.text):  # the shipped cross-encoder reads English only
            trace["meaning"] = {"skipped": NO_CHINESE_READER}
        elif searched.english and meaning_status()["status"] == "unavailable":
            trace["meaning"] = cast("MeaningTrace", meaning_status())  # on, no model: unchecked
        return chosen, None
    trace["meaning"] = cast("MeaningTrace", meaning.to_json())
    if profile is not None:
        trace["meaning"] = trace["meaning"] | {"support": support(profile, texts).to_json()}
    if meaning.passed:
        return chosen, None
    under_title = title_check(searched, chosen, title_of)  # meaning/titled.py
    if under_title is not None:
        titled_read = under_title.to_json() | {"floor": TITLE_FLOOR}
        trace["meaning"] = trace["meaning"] | {"titled": titled_read}
        if under_title.passed:
            return chosen, None
    recovered = recover(searched, chosen, ranked)
    if recovered is not None:  # the next candidates by meaning (meaning_choice.py)
        trace["meaning"] = trace["meaning"] | {"recovery": recovered.to_json()}
        if recovered.chosen:
            return list(recovered.chosen), None
    return chosen, Reason("constraint_unmet", meaning_reason(question))


def rescued(
    kb: StageContext,
    question: Question,
    searched: Question,
    fragments: list[Fragment],
    suff: Sufficiency,
    names_absent: bool,
    trace: AnswerTrace,
) -> list[Candidate] | None:
    """The unit that answers ``question`` by meaning although the word-presence gates
    refused it (answer/meaning_choice.py), or None; the trace keeps what was read."""
    intent = question.intent.kind
    if not rescuable(question, intent, suff.reason_texts, names_absent) or not available():
        return None
    _, ranked = compose_ranked(
        question,
        intent,
        fragments,
        units_of=fragment_units(kb, fragments),
        scorer=dense_scorer(kb.index),
    )
    got = rescue(searched, ranked)
    if got is None:
        return None
    trace["meaning"] = {"rescue": got.to_json(), "floor": RESCUE_FLOOR, "model": got.check.model}
    return list(got.chosen) or None


def answer_by_meaning(
    kb: StageContext,
    intent: str,
    pack: EvidencePack,
    refused: Sufficiency,
    chosen: list[Candidate],
    conflicts: list[ConflictNote],
    trace: AnswerTrace,
) -> Answer:
    """The answer from units chosen by meaning over a word-presence refusal: partial, its
    reasons the gates' (the words not found, kept true of the cited text by finish)."""
    why = Reason("meaning_match", "a passage answers the question by meaning")
    suff = unchecked_by_words(refused, why)
    trace["sufficiency"] = suff.to_json()
    citations, claims = cite_claims(kb, chosen, conflicts)
    claims = release_review(claims, citations)
    trace["claims"] = [c.to_json() for c in claims]
    failed = None if any(c.kept for c in claims) else "no sentence passed review"
    return finish(kb, intent, pack, suff, claims, citations, trace, failed_why=failed)
