"""Answer profiles: which candidate units an answer of each intent quotes, and in what
order.

- definition: what it is (definitional sentences about the subject), key properties, caveats;
- how_to: prerequisites, ordered steps (document order, step numbers kept), failure
  handling / rollback that follows the procedure, checks;
- compare: both sides, each with its own evidence, then rows that set them side by side;
- causal (:func:`causal`): mechanism and consequence sentences ("because", "leads to",
  "导致"), the consequence the lead's own section states ("As a result, ..."), support;
- a clause named in the question (:func:`clause`): that clause's own text.
"""

from __future__ import annotations

import re

from citewise.analysis.question import Question
from citewise.analysis.tokenize import key_terms, tokenize
from citewise.answer.candidate import Candidate, diverse, inside
from citewise.answer.composition.parts import (
    CONSEQUENCE,
    FAILURE,
    MECHANISM,
    SIDE_PROCEDURE,
    failure_handling,
    paired,
)
from citewise.answer.composition.procedure import PROCEDURE_HEAD
from citewise.answer.composition.sections import best_section, subsection_example

__all__ = [
    "CAUSAL",
    "CHECK",
    "CONSEQUENCE",
    "DEFINES",
    "FAILURE",
    "MECHANISM",
    "PREREQ",
    "STEP",
    "best_section",
    "causal",
    "clause",
    "compare",
    "definition",
    "how_to",
    "ranked_by",
    "sides",
    "subsection_example",
]

DEFINES = re.compile(r"\b(?:is|are|means|refers to|defined as|stands for)\b|是|指|称为", re.I)
#: "X is a/an/the ...": a sentence that says what something is, not what value it has.
_DEFINES_STRICT = re.compile(
    r"\b(?:is|are) (?:an?|the|one of)\b|\bmeans\b|refers to|defined as|是一|指的是|是指", re.I
)
CAUSAL = re.compile(
    r"\b(?:because|since|due to|leads? to|led to|causes?|caused|results? in|so that|"
    r"therefore|consequently|triggers?)\b|因为|由于|导致|造成|因此|所以|引起",
    re.I,
)
CHECK = re.compile(r"\b(?:verify|check|confirm|ensure|make sure)\b|确认|检查|验证", re.I)
_CHECK_HEAD = re.compile(r"\b(?:verif\w*|checks?|validat\w*|confirm\w*)\b|确认|检查|验证", re.I)
PREREQ = re.compile(r"prerequisite|before you (?:start|begin)|requirements|前提|准备", re.I)
STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+)", re.I)
_CAVEAT = re.compile(
    r"\b(?:note|warning|caution|only|except|unless|must not|never)\b|注意|警告", re.I
)
#: A sentence that gives the means ("We can do that by passing ...", "you can disable it
#: with ..."): the answer to "how", even when it shares few words with the question.
MEANS = re.compile(
    r"\b(?:by (?:passing|setting|using|adding|calling|declaring|creating|giving)|"
    r"(?:you|we) can (?:do (?:that|this|so)|\w+ (?:it|them|this|that) (?:with|by|using))|"
    r"to do (?:that|this|so))\b",
    re.I,
)
#: Prose of a how-to's section is quoted at this share of its best unit's score; a
#: sentence that gives the means at the lower share.
PROSE_SHARE = 0.35
MEANS_SHARE = 0.25
_SIDES = re.compile(r"\s+(?:vs\.?|versus|and|or|compared (?:to|with))\s+|和|与|跟|对比", re.I)


def ranked_by(
    pool: list[Candidate], cue: re.Pattern[str], n: int, first_only: bool = False
) -> list[Candidate]:
    best = pool[0].score
    lead = [c for c in pool if cue.search(c.clean) and c.score >= 0.5 * best]
    lead = lead[:1] if first_only else lead[: max(1, n // 2)]
    rest = [c for c in pool if c not in lead and c.score >= 0.5 * best]
    caveats = [c for c in rest if _CAVEAT.search(c.clean)][:1]
    body = diverse(lead + [c for c in rest if c not in caveats], n - len(caveats))
    return body + [c for c in caveats if c not in body]


def causal(pool: list[Candidate], n: int) -> list[Candidate]:
    """:func:`ranked_by` on :data:`CAUSAL`, then mechanism and consequence together
    (:func:`citewise.answer.composition.parts.paired`: "As a result, the pump shuts down"
    right after
    its cause)."""
    chosen = ranked_by(pool, CAUSAL, n)
    return chosen + paired(chosen, pool)


def clause(refs: list[str], pool: list[Candidate], n: int) -> list[Candidate]:
    """A question naming a clause gets that clause's own text, in document order."""
    for ref in refs:
        body = [
            c
            for c in pool
            if c.span.kind != "heading"
            and c.fragment.heading_path
            and re.match(rf"(?:§\s*)?{re.escape(ref)}\b", c.fragment.heading_path[-1])
        ]
        if body:
            return sorted(body, key=lambda c: c.span.start)[:n]
    return []


def definition(pool: list[Candidate], n: int) -> list[Candidate]:
    """The best defining sentence, then what its own section says next, then a caveat."""
    best = pool[0].score
    lead = _defining_lead(pool, best)
    section = _rest_of_section(pool, lead)
    chosen = [lead, *diverse(section, n - 1)]
    if len(chosen) < 2:  # the lead stands alone: add only other strong sentences
        strong = [c for c in pool if c is not lead and c.score >= 0.75 * best]
        chosen += [c for c in diverse(strong, n) if c not in chosen][: n - len(chosen)]
    return chosen[:n]


def _defining_lead(pool: list[Candidate], best: float) -> Candidate:
    """The best strong sentence that says what something is ("X is a ..."), else one with a
    looser defining verb, else the best unit; tables and whole paragraphs never lead."""
    defining = [
        c
        for c in pool
        if c.kind not in ("table", "para")
        and _DEFINES_STRICT.search(c.clean)
        and c.score >= 0.5 * best
    ]
    defining = defining or [
        c
        for c in pool
        if c.kind not in ("table", "para") and DEFINES.search(c.clean) and c.score >= 0.5 * best
    ]
    return defining[0] if defining else pool[0]


def _rest_of_section(pool: list[Candidate], lead: Candidate) -> list[Candidate]:
    """The units after ``lead`` in its own section, in document order: a key-properties
    table whole instead of its rows one by one; without a table, no table rows."""
    section = [
        c
        for c in pool
        if c.fragment.doc_id == lead.fragment.doc_id
        and c.fragment.heading_path == lead.fragment.heading_path
        and c.span.start > lead.span.start
    ]
    section.sort(key=lambda c: c.span.start)
    table = next((c for c in section if c.kind == "table"), None)
    if table is None:
        return [c for c in section if c.kind != "table"]
    return [
        c for c in section if c is table or not (table.span.start <= c.span.start < table.span.end)
    ]


def how_to(question: Question, pool: list[Candidate], n: int) -> list[Candidate]:
    """Prerequisites, then the steps of the best-scoring section in document order, checks."""
    doc_id, section = _procedure_section(question, pool)
    same_doc = [c for c in pool if c.fragment.doc_id == doc_id]
    prereq = _prerequisites(same_doc)
    # Each step is the opening sentence of its numbered item; details stay in the citation.
    steps = [
        c
        for c in same_doc
        if c.fragment.heading_path == section and STEP.match(c.span.text) and c not in prereq
    ]
    if not steps:  # prose instructions: the section's relevant units, in document order
        steps = _prose_steps(same_doc, section, prereq)
    steps = sorted(steps, key=lambda c: c.span.start)[:15]
    checks = _check_sentences(question, same_doc, steps + prereq)
    closing = _closing_check(same_doc, steps)
    checks = closing + [c for c in checks if c.kind != "table"][: 2 - len(closing)]
    failure = failure_handling(question, same_doc, steps, prereq + checks)
    after = sorted(failure + checks, key=lambda c: c.span.start) if failure else checks
    kept = len(prereq) + len(steps) + len(closing) + len(failure)
    return (prereq + steps + after)[: max(n, kept)]


def _side_unasked(text: str, question: Question) -> bool:
    """``text`` is about a side procedure (rollback, cleanup) the question does not ask for."""
    return bool(SIDE_PROCEDURE.search(text) and not SIDE_PROCEDURE.search(question.text))


def _procedure_section(question: Question, pool: list[Candidate]) -> tuple[str, tuple[str, ...]]:
    """The (document, heading path) of the procedure: the section whose numbered steps match
    the question best, the announced main procedure beating a rollback or side list; without
    numbered steps, :func:`best_section`."""
    groups: dict[tuple[str, tuple[str, ...]], float] = {}
    for c in pool:
        if STEP.match(c.span.text):
            key = (c.fragment.doc_id, c.fragment.heading_path)
            groups[key] = groups.get(key, 0.0) + c.score
    for key in groups:
        head = " ".join(key[1][-1:])
        groups[key] += 1.0 if PROCEDURE_HEAD.search(head) else 0.0
        groups[key] -= 1.0 if _side_unasked(head, question) else 0.0
    if groups:
        return max(groups, key=lambda k: (groups[k], k))
    return best_section(pool)


def _prerequisites(same_doc: list[Candidate]) -> list[Candidate]:
    """Units under a "Prerequisites"/"Before you start" heading, none inside another; 3 at most."""
    prereq = [c for c in same_doc if PREREQ.search(" ".join(c.fragment.heading_path))]
    return [c for c in prereq if not any(inside(c, o) for o in prereq)][:3]


def _prose_steps(
    same_doc: list[Candidate], section: tuple[str, ...], prereq: list[Candidate]
) -> list[Candidate]:
    """A section of prose instructions: its units that score near its best (a sentence that
    gives the means at the lower share), else its best code block; prose that tells what to
    do gets the section's code example that shows how."""
    steps = [
        c
        for c in same_doc
        if c.fragment.heading_path == section
        and c not in prereq
        and (c.kind != "table" or c.section == " ".join(section[-1:]))
    ]
    top = max((c.score for c in steps), default=0.0)
    prose = [
        c
        for c in steps
        if c.kind not in ("code", "table")
        and c.score >= (MEANS_SHARE if MEANS.search(c.clean) else PROSE_SHARE) * top
    ]
    # a section whose evidence is its example alone: the code block is the answer
    code = sorted((c for c in steps if c.kind == "code"), key=lambda c: (-c.score, c.order))
    steps = prose or code[:1]
    if steps and not any(c.kind == "lead" or "```" in c.clean for c in steps):
        steps += _section_example(same_doc, " ".join(section[-1:]), steps)
    return steps


def _section_example(
    same_doc: list[Candidate], here: str, steps: list[Candidate]
) -> list[Candidate]:
    """The code block of section ``here`` (the first one after the steps, else the first
    before them), else the example of one of its subsections."""
    first = min(c.span.start for c in steps)
    example = sorted(
        (c for c in same_doc if c.kind == "code" and c.section == here),
        key=lambda c: (c.span.start < first, c.span.start),
    )[:1]
    return example or subsection_example(same_doc, here, first)


def _check_sentences(
    question: Question, same_doc: list[Candidate], taken: list[Candidate]
) -> list[Candidate]:
    """Up to 2 sentences that tell the reader to verify the result: not a step, not a bare
    "Check it:" and not in a side procedure the question does not ask for."""
    return [
        c
        for c in same_doc
        if CHECK.search(c.clean)
        and c not in taken
        and not STEP.match(c.span.text)
        and len(c.clean.split("\n", 1)[0].split()) >= 4  # "Check it:" is no check
        and not _side_unasked(c.section, question)
    ][:2]


def _closing_check(same_doc: list[Candidate], steps: list[Candidate]) -> list[Candidate]:
    """The closing check: a table in a later "Checks"/"Verify" section, after the last step."""
    last = max((c.span.end for c in steps), default=0)
    return [
        c
        for c in same_doc
        if c.kind == "table" and c.span.start >= last and _CHECK_HEAD.search(c.section)
    ][:1]


def compare(question: Question, pool: list[Candidate], n: int) -> list[Candidate]:
    """Each side with its own evidence (sentences naming that side's distinctive terms),
    then sentences that name both."""
    named = sides(question)
    if len(named) < 2:
        return diverse(pool, n)
    a, b = (set(key_terms(x)) for x in named)
    own_terms = [a - b or a, b - a or b]

    def names(c: Candidate, terms: set[str]) -> bool:
        return bool(terms & set(tokenize(c.clean)))

    both = [c for c in pool if all(names(c, t) for t in own_terms)]
    chosen: list[Candidate] = []
    per_side = max(1, (n - 2) // 2)
    for mine, other in (own_terms, own_terms[::-1]):
        own = [c for c in pool if names(c, mine) and not names(c, other) and c not in chosen]
        own.sort(key=lambda c: (not _DEFINES_STRICT.search(c.clean), -c.score, c.order))
        chosen.extend(diverse(own, per_side))
    tables = [c for c in both if c.kind == "table"]
    if tables:  # the table that sets both sides side by side carries the compared figures
        chosen.append(max(tables, key=lambda c: (c.score, -c.span.start)))
    chosen.extend(c for c in diverse([c for c in both if c.kind != "table"], 2) if c not in chosen)
    return chosen[: n + 1] or diverse(pool, n)


def sides(question: Question) -> list[str]:
    """The two things a comparison question names ("the Lumen S200", "the Lumen S400")."""
    return [s.strip() for s in _SIDES.split(_subject(question)) if key_terms(s)][:2]


def _subject(question: Question) -> str:
    q = re.sub(
        r"^\s*(?:what(?:'s| is| are)? (?:the )?)?(?:differences?|difference between|"
        r"compare|comparison of)\s*(?:between|of)?\s*",
        "",
        question.text,
        flags=re.I,
    )
    return re.sub(r"[?？。.!！]+$", "", q.replace("区别", "").replace("有什么", ""))
