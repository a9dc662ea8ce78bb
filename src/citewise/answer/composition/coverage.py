"""Profile completeness: the parts an answer of each intent is made of, which of them it
must hold, and the ``partial_coverage`` reason that names a missing one in plain words.

One table (:data:`PARTS`) says per profile what is required and what is optional but kept
when the evidence has it:

- how_to: the steps (required); prerequisites, failure handling / rollback and the
  verification check (optional, kept by
  :func:`citewise.answer.composition.profiles.how_to`; required
  when the question asks for them: "... and roll back if it fails?");
- causal: the cause or mechanism (required for "why"), the consequence (required for
  "what does X lead to"); both kept when the evidence has them;
- compare: both sides, each with its own figures when the other side's have figures;
- definition: the defining sentence.

:func:`missing_parts` reads the chosen answer units (their text only: nothing here writes
answer text) and :func:`coverage_reason` turns what is missing into a :class:`Reason`
("the documents describe the steps but not how to roll back"). The check never adds a
claim: a missing part is said in the reasons and the degradation field, not guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from citewise.analysis.question import Question
from citewise.analysis.tokenize import tokenize
from citewise.answer.candidate import Candidate
from citewise.answer.composition.profiles import (
    CHECK,
    CONSEQUENCE,
    DEFINES,
    FAILURE,
    MECHANISM,
    PREREQ,
    sides,
)
from citewise.sufficiency.models import Reason, Sufficiency
from citewise.sufficiency.verdict import partial

__all__ = [
    "NO_STEPS",
    "PARTS",
    "Missing",
    "Part",
    "coverage_reason",
    "missing_parts",
    "with_coverage",
]

Need = Literal["required", "optional", "asked"]

#: The end of the reason of a how-to answer whose evidence gives no steps.
NO_STEPS = "but do not give the steps"


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a profile's answer.

    ``need``: "required" (the answer is partial without it), "optional" (kept when the
    evidence has it, never reported missing) or "asked" (optional, but required when the
    question matches ``asked``). ``cue`` recognises a unit (or its section heading) that
    gives the part; ``label`` names the part in the reason ("how to roll back")."""

    name: str
    label: str
    need: Need
    cue: re.Pattern[str]
    asked: re.Pattern[str] | None = None


#: An instruction: a numbered step, a command or literal, the means ("by passing ..."), an
#: imperative opening, or "you can/must ...".
_INSTRUCTION = re.compile(
    r"^\s*(?:\d{1,3}[.)]|step\s+\d+)|`|```|"
    r"^\s*(?:[-*]\s+)?(?:run|use|set|add|call|pass|install|open|select|choose|click|"
    r"create|enter|type|start|stop|restart|remove|replace|place|press|edit|write|"
    r"import|declare|configure|enable|disable|download|unpack|copy|move|put|make)\b|"
    r"\b(?:you|we) (?:can|must|should|need to|have to)\b|点击|选择|打开|运行|输入|将|执行",
    re.I | re.M,
)
#: A question that asks for the way back ("... and roll back if it fails?"), not one
#: about a failure itself ("how do I fix a failed upgrade?").
_ASK_FAILURE = re.compile(
    r"roll(?:ing)? ?back|\brevert|\bundo\b|\bif (?:it|this|that|the \w+(?: \w+)?) fails\b|"
    r"\bin case of (?:a )?failure\b|回滚|回退|撤销|"
    r"(?:如果|若|万一)[^，。？?]{0,8}失败|失败(?:时|后)",
    re.I,
)
_ASK_CHECK = re.compile(r"\b(?:and|then) (?:verify|check|confirm)\b|并(?:确认|验证|检查)", re.I)
_ASK_WHY = re.compile(r"\bwhy\b|\bcauses?\b|\breason\b|为什么|原因|为何", re.I)
_ASK_EFFECT = re.compile(
    r"\blead(?:s)? to\b|\bresults? in\b|\bconsequences?\b|\beffects?\b|\bhappens?\b|"
    r"导致|后果|结果|影响",
    re.I,
)

#: A figure: a number that is no part of a name ("4 litre", "1,200 rpm"; not "B2").
_FIGURE = re.compile(r"(?<![\w.-])\d[\d,.]*(?![\w-]*[A-Za-z]\d)")
#: Any unit (a comparison side is given by a unit that names it).
_ANY = re.compile(r"\S")

PARTS: dict[str, tuple[Part, ...]] = {
    "how_to": (
        Part("steps", "the steps", "required", _INSTRUCTION),
        Part("prerequisites", "what to prepare first", "optional", PREREQ),
        Part("failure_handling", "how to roll back", "asked", FAILURE, _ASK_FAILURE),
        Part("verification", "how to check the result", "asked", CHECK, _ASK_CHECK),
    ),
    "causal": (
        Part("mechanism", "why", "asked", MECHANISM, _ASK_WHY),
        Part("consequence", "what it leads to", "asked", CONSEQUENCE, _ASK_EFFECT),
    ),
    # per side of the comparison (:func:`_compare_missing`): a unit naming it, and its
    # figures when the other side's units give figures
    "compare": (
        Part("side", "each side", "required", _ANY),
        Part("side_figures", "figures for each side", "required", _FIGURE),
    ),
    "definition": (Part("defining_sentence", "what it is", "required", DEFINES),),
}


@dataclass(frozen=True, slots=True)
class Missing:
    """A required part the chosen units do not give, with what they do give."""

    part: str
    label: str
    given: str  # what the answer does hold ("the steps", "figures for the Orbit A1")


def _gives(part: Part, units: list[Candidate]) -> bool:
    """Whether a unit gives ``part``: its text matches the cue, or the section it sits in
    is that part (a "Rolling back" procedure's steps give the rollback)."""
    return any(part.cue.search(c.clean) or part.cue.search(c.section) for c in units)


def missing_parts(intent: str, question: Question, chosen: list[Candidate]) -> tuple[Missing, ...]:
    """The required parts of ``intent``'s profile that ``chosen`` does not give (none for
    an empty answer: an answer with nothing to quote is not partial, it abstains)."""
    if not chosen:
        return ()
    if intent == "compare":
        return _compare_missing(question, chosen)
    parts = PARTS.get(intent, ())
    out: list[Missing] = []
    for part in parts:
        needed = part.need == "required" or (
            part.need == "asked" and part.asked is not None and part.asked.search(question.text)
        )
        if needed and not _gives(part, chosen):
            given = [p for p in parts if p is not part and _gives(p, chosen)]
            out.append(Missing(part.name, part.label, _given_words(intent, given)))
    if intent == "causal" and not out and not any(_gives(p, chosen) for p in parts):
        out.append(Missing("mechanism", "why", "what happens"))  # no causal link at all
    return tuple(out)


def _given_words(intent: str, given: list[Part]) -> str:
    if intent == "how_to":
        return "the steps" if any(p.name == "steps" for p in given) else "the subject"
    if intent == "causal":
        return "why it happens" if any(p.name == "mechanism" for p in given) else "what happens"
    return "the subject"


def _compare_missing(question: Question, chosen: list[Candidate]) -> tuple[Missing, ...]:
    """Each side needs a unit naming it; when one side's units give figures, the other
    side's must too (a table row or sentence naming both sides serves both)."""
    named = sides(question)
    if len(named) < 2:
        return ()
    terms = [set(tokenize(s)) for s in named]
    own = [terms[0] - terms[1] or terms[0], terms[1] - terms[0] or terms[1]]

    def of(i: int) -> list[Candidate]:
        return [c for c in chosen if own[i] & set(tokenize(f"{c.clean} {c.section}"))]

    units = [of(0), of(1)]
    figures = [any(_FIGURE.search(c.clean) for c in u) for u in units]
    names = [re.sub(r"^(?:the|a|an)\s+", "", s, flags=re.I) for s in named]
    out: list[Missing] = []
    for i in (0, 1):
        if not units[i]:
            out.append(Missing("side", names[i], names[1 - i]))
        elif figures[1 - i] and not figures[i]:
            out.append(Missing("side_figures", names[i], names[1 - i]))
    return tuple(out)


def coverage_reason(intent: str, subject: str, missing: tuple[Missing, ...]) -> Reason | None:
    """The ``partial_coverage`` reason naming what is missing, in a user's words; None
    when nothing is."""
    if not missing:
        return None
    m = missing[0]
    if intent == "how_to":
        said = f"the documents describe {m.given} but not {m.label}"
        if m.part == "steps":
            said = f"the documents mention {subject or 'this'} {NO_STEPS}"
    elif intent == "causal":
        said = f"the documents say {m.given} but not {m.label}"
    elif intent == "compare":
        said = f"the documents give figures for {m.given} but not for {m.label}"
        if m.part == "side":
            said = f"the documents describe {m.given} but not {m.label}"
    else:  # definition
        said = f"the documents mention {subject or 'this'} but do not say what it is"
    rest = "; ".join(x.label for x in missing[1:])
    return Reason("partial_coverage", said + (f" (also missing: {rest})" if rest else ""))


def with_coverage(
    intent: str, question: Question, subject: str, chosen: list[Candidate], suff: Sufficiency
) -> tuple[Sufficiency, list[str]]:
    """``suff`` with the ``partial_coverage`` reason for the parts of ``intent``'s profile
    that ``chosen`` lacks (degradation ``partial_coverage`` unless a worse one is set), and
    the missing parts' names for the trace."""
    text = question.text
    missing = missing_parts(intent, question, chosen)
    at = text.lower().find(subject.lower()) if subject else -1
    said = text[at : at + len(subject)] if at >= 0 else subject  # the question's spelling
    reason = coverage_reason(intent, said.strip(" ?？"), missing)
    if reason is None:
        return suff, []
    return partial(suff, reason), [m.part for m in missing]
