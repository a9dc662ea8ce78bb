"""The query condition set applied to the composed answer (issue 22).

A sentence holds under the conditions it states ("On Windows, ...") or, failing that,
the conditions of its section's heading ("## Install on Linux"). With the question's
condition set (:mod:`citewise.analysis.conditions`):

- a sentence whose condition contradicts a stated one is left out (a unit is narrowed to
  its other sentences when they are contiguous); unqualified sentences are kept;
- when every sentence was left out, the stated condition has no evidence: the answer says
  which conditions the documents do cover, and never gives their answer as this one's;
- when the sentences differ by a condition the question does not state, an answer whose
  sentences each name their condition is kept (a per-condition answer); one whose
  condition only its headings state is withheld: ``condition_missing: <kind>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from citewise.analysis.conditions import SCOPING, ConditionSet, conditions_in, contradicts
from citewise.answer.candidate import Candidate
from citewise.answer.clean import clean_sentence
from citewise.evidence.models import Fragment
from citewise.evidence.sentences import Span, split_sentences

__all__ = ["ConditionOutcome", "apply_conditions", "fragments_under"]


@dataclass(frozen=True, slots=True)
class ConditionOutcome:
    """What the condition set did to the composed answer (recorded in the trace)."""

    kept: list[Candidate]
    excluded: tuple[dict[str, Any], ...] = ()
    #: Kinds by which the kept sentences differ, each sentence naming its own condition.
    per_condition: tuple[str, ...] = ()
    #: A kind the question leaves open and the sections decide: the answer is withheld.
    missing: str | None = None
    missing_values: tuple[str, ...] = ()
    #: Values of the stated kinds the documents do cover, when none matched.
    unanswered: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "excluded": list(self.excluded),
            "per_condition": list(self.per_condition),
            "missing": self.missing,
            "missing_values": list(self.missing_values),
            "unanswered": self.unanswered,
        }


def _section(c: Candidate) -> str:
    return c.section or (c.fragment.heading_path[-1] if c.fragment.heading_path else "")


def _narrow(c: Candidate, stated: ConditionSet) -> tuple[Candidate | None, list[str]]:
    """``c`` without its sentences that contradict ``stated`` (None if none is left),
    and the kinds that excluded something."""
    parts = split_sentences(c.span.text, c.span.start)
    if len(parts) < 2:
        why = contradicts(stated, conditions_in(c.span.text))
        return (None, list(why)) if why else (c, [])
    keep: list[Span] = []
    kinds: list[str] = []
    for p in parts:
        why = contradicts(stated, conditions_in(p.text))
        kinds += why
        if not why:
            keep.append(p)
    if not kinds:
        return c, []
    if not keep:
        return None, kinds
    run = [keep[0]]  # the first contiguous run of kept sentences (one citable span)
    for p in parts[parts.index(keep[0]) + 1 :]:
        if p not in keep:
            break
        run.append(p)
    first, last = run[0], run[-1]
    text = c.span.text[first.start - c.span.start : last.end - c.span.start]
    span = Span(first.start, last.end, text, c.span.kind)
    return replace(c, span=span, clean=clean_sentence(text)), kinds


def fragments_under(
    fragments: list[Fragment], stated: ConditionSet
) -> tuple[list[Fragment], list[dict[str, Any]]]:
    """``fragments`` without those whose section headings contradict ``stated`` (a
    "## Install on Windows" section for a Linux question), unless their own text states
    that kind itself (then each sentence is judged on its own, after composition)."""
    if not stated.conditions:
        return fragments, []
    kept: list[Fragment] = []
    dropped: list[dict[str, Any]] = []
    for f in fragments:
        why = contradicts(stated, conditions_in(" / ".join(f.heading_path)))
        if why and not conditions_in(f.text).kinds() & set(why):
            dropped.append({"path": f.path, "start": f.char_start, "by": list(why)})
        else:
            kept.append(f)
    return kept, dropped


def best_excluded(
    direct: Sequence[Fragment], kept: Sequence[Fragment], stated: ConditionSet
) -> dict[str, list[str]]:
    """The other conditions' values when the best direct evidence was excluded by the
    stated condition and nothing kept holds under it (the documents answer the question
    only for other conditions); else empty."""
    if not direct or direct[0] in kept:
        return {}
    for f in kept:
        mine = conditions_in(" / ".join(f.heading_path) + "\n" + f.text)
        if any(stated.value(c.kind) == c.value for c in mine.conditions):
            return {}
    out: dict[str, set[str]] = {}
    for f in direct:
        if f in kept:
            continue
        for c in conditions_in(" / ".join(f.heading_path)).conditions:
            if stated.value(c.kind) is not None and c.kind in SCOPING:
                out.setdefault(c.kind, set()).add(c.value)
    return {k: sorted(v) for k, v in out.items()}


def apply_conditions(
    chosen: list[Candidate], stated: ConditionSet, headings: Sequence[str] = ()
) -> ConditionOutcome:
    """The composed units under ``stated`` (see the module docstring); ``headings`` are
    the section headings of the direct evidence, which may name conditions the chosen
    units do not (the other branch of a choice the question leaves open)."""
    kept, excluded, seen = _under_stated(chosen, stated)
    if chosen and not kept and excluded:
        covered = {k: sorted(v) for k, v in seen.items() if stated.value(k) is not None}
        return ConditionOutcome([], tuple(excluded), unanswered=covered)
    per: list[str] = []
    missing: tuple[str, tuple[str, ...]] | None = None
    for kind in SCOPING:
        if stated.value(kind) is not None or kind in stated.kinds():
            continue
        per_value, values = _open_kind(kind, kept, headings)
        if per_value:
            per.append(kind)
        elif values is not None and missing is None:
            missing = (kind, values)
    if missing:
        return ConditionOutcome(kept, tuple(excluded), tuple(per), missing[0], missing[1])
    return ConditionOutcome(kept, tuple(excluded), tuple(per))


def _under_stated(
    chosen: list[Candidate], stated: ConditionSet
) -> tuple[list[Candidate], list[dict[str, Any]], dict[str, set[str]]]:
    """(the units kept or narrowed under ``stated``, the exclusions with their reasons, the
    condition values seen in the units and their sections): a unit under a heading that
    contradicts ``stated`` is excluded unless it names that condition itself."""
    kept: list[Candidate] = []
    excluded: list[dict[str, Any]] = []
    seen: dict[str, set[str]] = {}
    for c in chosen:
        own = conditions_in(c.span.text)
        for cond in (*own.conditions, *conditions_in(_section(c)).conditions):
            seen.setdefault(cond.kind, set()).add(cond.value)
        heading = contradicts(stated, conditions_in(_section(c)))
        if heading and not own.kinds() & set(heading):
            excluded.append({"path": c.fragment.path, "start": c.span.start, "by": heading})
            continue
        narrowed, why = _narrow(c, stated)
        if why:
            excluded.append({"path": c.fragment.path, "start": c.span.start, "by": why})
        if narrowed is not None:
            kept.append(narrowed)
    return kept, excluded, seen


def _open_kind(
    kind: str, kept: list[Candidate], headings: Sequence[str]
) -> tuple[bool, tuple[str, ...] | None]:
    """How the kept units treat a condition ``kind`` the question leaves open: (answered per
    value: every unit names a value itself and they name two or more; else the two or more
    values the units, their sections and the evidence's headings name, which leave the
    question open, or None). Unqualified sentences hold under any condition."""
    mine = [{x.value for x in conditions_in(c.span.text).conditions if x.kind == kind}
            for c in kept]  # fmt: skip
    heads = [{x.value for x in conditions_in(_section(c)).conditions if x.kind == kind}
             for c in kept]  # fmt: skip
    if not kept or not all(o or h for o, h in zip(mine, heads, strict=True)):
        return False, None
    values: set[str] = set().union(*mine, *heads)
    if all(mine) and len(values) >= 2:
        return True, None
    values |= {x.value for h in headings for x in conditions_in(h).conditions if x.kind == kind}
    return False, (tuple(sorted(values)) if len(values) >= 2 else None)


def heading_split(headings: Sequence[str], stated: ConditionSet) -> str | None:
    """The condition kind the question leaves open whose values the evidence's section
    headings divide (a "Windows" and a "Linux" section), or None: such an answer needs
    the per-condition composer (``apply_conditions``)."""
    for kind in SCOPING:
        if stated.value(kind) is not None or kind in stated.kinds():
            continue
        values = {x.value for h in headings for x in conditions_in(h).conditions if x.kind == kind}
        if len(values) >= 2:
            return kind
    return None
