"""An answer worded for its reader (issue 39): the texts citewise writes itself (a
refusal, a condition refusal, the reply to a greeting, the note on identical copies) in
the chosen language, and the ``display`` block every interface shows: the outcome, the
one status line (outcome first, then the degradation with its plain reason) and the
lines under the answer (editions set aside).

Wording is chosen after the answer is made and recorded: the replay id, the trace and
the machine codes (outcome, degradation, reason kinds) are the same in every language,
and quoted document text is never translated. The words come from the one catalogue,
:mod:`citewise.core.messages`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from citewise.analysis.language import LANGS, Lang
from citewise.answer.models import Answer, EditionJSON
from citewise.core.messages import CATALOGUE, say
from citewise.sufficiency.models import Reason

__all__ = [
    "display",
    "reason_words",
    "saved_language",
    "set_aside_lines",
    "status_line",
    "worded",
]

#: The reason kinds each degradation is about: the status line names the first such
#: reason of the answer (any reason when none matches).
_ABOUT: dict[str, tuple[str, ...]] = {
    "partial_coverage": ("partial_coverage", "subject_missing", "subject_absent", "coverage"),
    "conflict": ("conflict",),
    "stale_evidence": ("stale_evidence", "stale_set_aside"),
    "source_window_unavailable": ("source_window_unavailable",),
}
#: Reason kinds whose English detail is itself a plain sentence (written for the reader
#: by the gate that found it); in Chinese the kind's catalogue text and the question's
#: words the reason names stand for it (the sentence itself is English).
_SENTENCE_DETAIL = frozenset(
    {
        "near_miss",
        "constraint_unmet",
        "condition_unanswered",
        "action_absent",
        "graph_neighbor_evidence_missing",
    }
)
#: Reason kinds whose detail is the question's own words (language-neutral).
_WORDS_DETAIL = frozenset({"subject_absent", "subject_missing"})
#: A gate sentence that puts a passage's words in place of the question's
#: (:func:`citewise.sufficiency.constraints.reason`, the near-miss class).
_PAIR = re.compile(r"says '([^']+)', not '([^']+)'")
#: The words a gate sentence quotes (the question's or a passage's own, in any language).
_QUOTED = re.compile(r"'([^']+)'")
#: The note on identical copies as :func:`citewise.answer.copies.copies_note` writes it
#: (its English catalogue text), ending the answer.
_BEFORE, _AFTER = say("note.copies", "en", paths="\x00").split("\x00")
_COPIES = re.compile(r"\s*" + re.escape(_BEFORE) + "(.+?)" + re.escape(_AFTER) + "$")


def reason_words(reason: Reason | None, lang: Lang) -> str:
    """``reason`` in plain words: its kind's catalogue text with the question's words or
    the gate's detail filled in where the language allows (see the module docstring)."""
    if reason is None:
        return say("reason.none", lang)
    kind, detail = reason.kind, (reason.detail or "").strip()
    words = (", " if lang == "en" else "、").join(reason.words)
    if kind == "condition_missing":
        return say("reason.condition_missing", lang, kind=_condition_kind(reason, lang))
    if kind in _WORDS_DETAIL:
        return say(f"reason.{kind}", lang, detail=(detail if lang == "en" else words) or detail)
    if kind == "partial_coverage":
        if words:
            return say("reason.partial_coverage", lang, detail=words)
        if lang == "en" and detail:
            return say("reason.partial_coverage_detail", lang, detail=detail)
        return say("reason.partial_coverage_plain", lang)
    if kind in _SENTENCE_DETAIL and lang == "en" and detail:
        return detail  # the gate's own sentence, written for the reader
    if kind in _SENTENCE_DETAIL and detail and (quoted := _quoted(kind, detail, words, lang)):
        return quoted
    if f"reason.{kind}" in CATALOGUE:
        text = say(f"reason.{kind}", lang)
        if not words:
            return text
        return f"{text}: {words}" if lang == "en" else f"{text}：{words}"
    if lang == "en":  # a gate not in the catalogue: its code and its English detail
        key = "reason.other_detail" if detail else "reason.other"
        return say(key, lang, code=kind.replace("_", " "), detail=detail)
    text = say("reason.other", lang, code=kind)  # the code; the English detail is left out
    return f"{text}：{words}" if words else text


def _quoted(kind: str, detail: str, words: str, lang: Lang) -> str:
    """A gate sentence's quoted words in ``lang``'s own sentence ("" when it quotes none):
    a passage's words in place of the question's as a pair, else the kind's text with
    the words it quotes (they are the question's or a passage's own, in any language)."""
    pair = _PAIR.search(detail)
    if pair:
        return say("reason.near_miss_pair", lang, said=pair.group(1), asked=pair.group(2))
    if words or f"reason.{kind}" not in CATALOGUE:
        return ""
    quoted = "、".join(f"“{w}”" for w in dict.fromkeys(_QUOTED.findall(detail)))
    text = say(f"reason.{kind}", lang)
    return say("reason.quoted_words", lang, text=text, words=quoted) if quoted else ""


def _condition_kind(reason: Reason, lang: Lang) -> str:
    """The condition kind a ``condition_missing`` reason names, in words."""
    kind = (reason.words or ((reason.detail or "").strip(),))[0]
    key = f"condition_kind.{kind}"
    return say(key, lang) if key in CATALOGUE else kind


def _about(answer: Answer) -> Reason | None:
    """The reason the status line names: the first about the answer's degradation."""
    reasons = answer.sufficiency.reasons
    kinds = _ABOUT.get(answer.degradation, ())
    return next((r for r in reasons if r.kind in kinds), reasons[0] if reasons else None)


def status_line(answer: Answer, lang: Lang) -> str:
    """One line: the outcome, then (for an answer) its degradation and plain reason; a
    degraded answer never reads as plainly sufficient, a refusal never as degraded."""
    if answer.outcome == "answered":
        count = len(answer.citations)
        if answer.degradation == "none":
            return say("status.answered", lang, count=count)
        return say(
            "status.answered_degraded",
            lang,
            count=count,
            degradation=say(f"degradation.{answer.degradation}", lang),
            reason=reason_words(_about(answer), lang),
        )
    if answer.outcome == "non_kb_reply":
        return say("status.non_kb_reply", lang)
    first = answer.sufficiency.reasons[0] if answer.sufficiency.reasons else None
    return say(f"status.{answer.outcome}", lang, reason=reason_words(first, lang))


def _edition(e: EditionJSON, lang: Lang) -> tuple[str, str]:
    return e["title"] or e["path"], e["edition"] or say("note.edition_unknown", lang)


def set_aside_lines(answer: Answer, lang: Lang) -> list[str]:
    """ "Set aside: <title> (<edition>), superseded by <title> (<edition>)." for each older
    edition the trace records as set aside (answer/editions_aside.py)."""
    lines = []
    for item in answer.trace.get("set_aside") or ():
        old, old_edition = _edition(item["set_aside"], lang)
        new, new_edition = _edition(item["superseded_by"], lang)
        lines.append(
            say(
                "note.set_aside",
                lang,
                old=old,
                old_edition=old_edition,
                new=new,
                new_edition=new_edition,
            )
        )
    return lines


def resolution_lines(answer: Answer, lang: Lang) -> list[str]:
    """ "Conflict <id> resolved by <resolver>: <path> governs over <path> until <day>."
    for each recorded resolution the answer honoured (sufficiency/resolutions.py)."""
    lines = []
    for r in answer.trace.get("conflict_resolutions") or ():
        until = say("note.conflict_until", lang, day=r["until"]) if r.get("until") else ""
        overruled = ", ".join(r.get("overruled") or ()) or "-"
        fields = {"id": r["id"], "resolver": r["resolver"], "governs": r["governs"]}
        lines.append(
            say("note.conflict_resolved", lang, **fields, overruled=overruled, until=until)
        )
    return lines


def display(answer: Answer, lang: Lang) -> dict[str, Any]:
    """The ``display`` block: language, outcome and degradation labels, the status line
    and the lines shown under the answer."""
    return {
        "lang": lang,
        "outcome": say(f"outcome.{answer.outcome}", lang),
        "degradation": say(f"degradation.{answer.degradation}", lang),
        "status_line": status_line(answer, lang),
        "lines": set_aside_lines(answer, lang) + resolution_lines(answer, lang),
    }


def _text(answer: Answer, lang: Lang) -> str:
    """The answer text with citewise's own sentences in ``lang`` (quotes untouched)."""
    text = answer.answer
    if lang == "en":
        return text
    if answer.outcome == "non_kb_reply":
        return say("non_kb.reply", lang)
    if answer.outcome == "insufficient_evidence":
        return _refusal_text(answer, lang)
    if answer.outcome == "generation_unavailable":
        why = str((answer.trace.get("llm") or {}).get("reason") or "")
        code = why.split(":", 1)[0] or "generation"
        return say("refusal.generation_unavailable", lang, reason=code, replay_id=answer.replay_id)
    if answer.outcome == "answered":
        m = _COPIES.search(text)
        if m is not None:
            return text[: m.start()] + " " + say("note.copies", lang, paths=m.group(1))
    return text


def _refusal_text(answer: Answer, lang: Lang) -> str:
    """A refusal's text: the condition refusals by their kind, every other one as the
    insufficient-evidence sentence with its first reason in plain words."""
    first = answer.sufficiency.reasons[0] if answer.sufficiency.reasons else None
    if first is not None and first.kind == "condition_missing":
        values = (answer.trace.get("conditions") or {}).get("missing_values") or ()
        named = _condition_kind(first, lang)
        return say("condition.missing", lang, kind=named, values="、".join(values))
    if first is not None and first.kind == "condition_unanswered":
        return say("condition.unanswered", lang)
    return say("refusal.because", lang, reason=reason_words(first, lang))


def worded(answer: Answer, lang: Lang) -> Answer:
    """``answer`` as a reader of ``lang`` sees it: citewise's own texts in that language
    and the ``display`` block; everything else (citations, codes, trace) unchanged."""
    return replace(answer, answer=_text(answer, lang), display=display(answer, lang))


def saved_language(saved: Mapping[str, Any]) -> Lang:
    """The language a saved answer's JSON was worded in (``display.lang``); English for
    records saved before answers were worded."""
    lang = (saved.get("display") or {}).get("lang")
    return next((x for x in LANGS if x == lang), "en")
