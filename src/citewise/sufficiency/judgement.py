"""Whether a text holds a question's required terms (:func:`judge`, the verdict
:mod:`citewise.sufficiency.presence` describes): a term counts as present literally, in a
derived form of a name or word ("configuration" for "Config"), or as the last part of a
dotted identifier; a labelled number only in its own form (:func:`label_found`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from citewise.analysis.tokenize import dotted_tails, tokenize
from citewise.sufficiency.models import Judgement, QuestionTerm, Reason, TermProfile

__all__ = ["judge", "label_found", "last_part"]


def label_found(label: str, texts: Iterable[str]) -> bool:
    """Whether a text names ``label`` ("version 2" also matches "v2", "Version-2")."""
    name, number = label.rsplit(" ", 1)
    names = "version|ver|v" if name == "version" else re.escape(name)
    pat = re.compile(rf"\b(?:{names})\s?[-#/]?\s?{re.escape(number)}(?![\w.]*\d)", re.IGNORECASE)
    return any(pat.search(t) for t in texts)


#: Endings that make a word from a name ("Config" -> "configuration"): a name the text
#: uses in a derived form is still named there.
_DERIVED = r"(?:s|es|ed|ing|ation|ations|uration|urations|ure|ured|er|ers|or|ors|ion|ions)?"


def _derived(term: QuestionTerm, texts: list[str]) -> bool:
    """Whether a text holds a name or word's surface form, or a derived form of it."""
    if term.kind == "identifier" or len(term.surface) < 4 or not term.surface.isalpha():
        return False
    pat = re.compile(rf"(?<![a-z0-9]){re.escape(term.surface.lower())}{_DERIVED}(?![a-z0-9])")
    return any(pat.search(t) for t in texts)


def _member(term: QuestionTerm, present: set[str]) -> bool:
    """A dotted identifier whose last part is present (``typer.Abort`` as ``Abort``)."""
    last = last_part(term)
    return bool(last) and all(t in present for t in tokenize(last, literals=False))


def last_part(term: QuestionTerm) -> str:
    """The last part of a dotted identifier (``typer.Abort``: ``Abort``), when it is a word
    of three letters or more; else empty."""
    if term.kind != "identifier" or "." not in term.surface.strip("."):
        return ""
    last = term.surface.strip(".()").rsplit(".", 1)[-1]
    return last if len(last) >= 3 and last.isalpha() else ""


def judge(profile: TermProfile, texts: Iterable[str], *, cited: bool = False) -> Judgement:
    """Whether ``texts`` (the evidence, or the text an answer cites) hold the question's
    required terms: ``ok``, ``partial`` (some rare words missing) or ``absent``.

    Absent: a labelled number, a term no chunk of the knowledge base holds, or every
    distinctive term missing when they are two or more or a name or identifier (text about
    something else); for the evidence (``cited=False``) also any missing identifier. Other
    missing terms make the answer partial.
    """
    texts = list(texts)
    present: set[str] = set()
    for text in texts:
        present.update(tokenize(text))
    present |= dotted_tails(present)
    required = profile.required
    low = [t.lower() for t in texts]
    missing = [
        t
        for t in required
        if t.key not in present and not _derived(t, low) and not _member(t, present)
    ]
    labels = [x for x in profile.labels if not label_found(x, texts)]
    absent = _absent(required, missing, labels, cited)
    if absent is not None:
        return absent
    if missing:
        found = tuple(t.surface for t in missing)
        where = "the cited text does not mention" if cited else "not found"
        return Judgement("partial", found, _named("partial_coverage", f"{where}: ", found))
    return Judgement("ok", (), None)


def _absent(
    required: tuple[QuestionTerm, ...],
    missing: list[QuestionTerm],
    labels: list[str],
    cited: bool,
) -> Judgement | None:
    """The ``absent`` judgement, or None: a missing term no chunk holds, a missing labelled
    number, a missing identifier (of the evidence, not of cited text), or text about
    something else (:func:`_off_topic`)."""
    never = [t.surface for t in missing if t.df == 0 and not t.soft]
    if never:
        return Judgement("absent", tuple(never), _named("subject_absent", "", never))
    if labels:
        why = _named("near_miss", "the passages found do not name ", labels)
        return Judgement("absent", tuple(labels), why)
    strict = [t.surface for t in missing if t.kind == "identifier" and not t.soft]
    if (strict and not cited) or _off_topic(required, missing):
        words = strict or [t.surface for t in missing]
        return Judgement("absent", tuple(words), _named("subject_missing", "", words))
    return None


def _off_topic(required: tuple[QuestionTerm, ...], missing: list[QuestionTerm]) -> bool:
    """Every distinctive (not soft) term missing, when they are two or more or the one is a
    name or identifier: the text is about something else."""
    hard = [t for t in required if not t.soft]
    off_topic = bool(hard) and all(t in missing for t in hard)
    return off_topic and (len(hard) > 1 or hard[0].kind != "word")


def _named(kind: str, lead: str, words: Sequence[str]) -> Reason:
    """A reason whose detail ends with the question's ``words``, comma-separated."""
    return Reason(kind, lead + ", ".join(words), tuple(words))
