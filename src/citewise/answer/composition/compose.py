"""The deterministic extractive composer: one answer per profile, sentences copied from
evidence (trimmed, never invented), each carrying the exact span it came from.

Here: the candidate pool (every unit of the evidence, scored), the choice by profile
(:mod:`citewise.answer.composition.profiles`; generic questions get their best-covered units), and
the completion of the question's distinctive terms (:func:`complete_terms`). The
candidate type and role weights live in :mod:`citewise.answer.candidate`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from citewise.analysis.question import Question
from citewise.analysis.tokenize import term_coverage, tokenize
from citewise.answer.candidate import ROLE_WEIGHT, Candidate, UnitsOf, diverse, inside
from citewise.answer.choice import scored
from citewise.answer.clean import clean_sentence
from citewise.answer.composition.lists import counted_list
from citewise.answer.composition.profiles import (
    CONSEQUENCE,
    FAILURE,
    STEP,
    causal,
    clause,
    compare,
    definition,
    how_to,
)
from citewise.answer.relevance import Scorer
from citewise.answer.support import contains_orchestration
from citewise.evidence.models import TRUNCATION_MARKER, Fragment
from citewise.evidence.sentences import Span, split_sentences
from citewise.recall.identifiers import clause_refs

__all__ = [
    "COMPLETION_FLOOR",
    "ROLE_WEIGHT",
    "Candidate",
    "UnitsOf",
    "candidates",
    "complete_terms",
    "compose",
    "compose_ranked",
    "fragment_spans",
    "sentence_candidates",
]

#: Unit kinds a profile may take from anywhere in an evidence document (not only from the
#: fragments): a comparison's table, a how-to's closing-check table and code example.
_ANYWHERE = {"compare": frozenset({"table"}), "how_to": frozenset({"table", "code"})}


def candidates(
    question: Question,
    fragments: list[Fragment],
    *,
    units_of: UnitsOf | None = None,
    scorer: Scorer | None = None,
    anywhere: frozenset[str] = frozenset(),
    keep: Callable[[str], bool] | None = None,
) -> list[Candidate]:
    """Every unit of every readable fragment, scored by relevance and role.

    With ``units_of`` (the document's structural units, :mod:`citewise.answer.units.structure`) the
    units are those the fragments touch, scored by term overlap blended with ``scorer``'s
    meaning similarity; without it, the fragments' own sentences by term overlap."""
    if units_of is not None:
        from citewise.answer.ranking import unit_candidates

        return unit_candidates(question, fragments, units_of, scorer, ROLE_WEIGHT, anywhere, keep)
    return sentence_candidates(question.text, fragments)


def sentence_candidates(query: str, fragments: list[Fragment]) -> list[Candidate]:
    """The fragments' own sentences scored by role and by term overlap with ``query`` (the
    question's text, or a question joined with a graph neighbour's title)."""
    out: list[Candidate] = []
    seen: set[tuple[str, int, int]] = set()
    for fi, frag in enumerate(fragments):
        weight = ROLE_WEIGHT.get(frag.role, 0.0)
        if weight == 0.0 or frag.kind in ("code", "mermaid"):
            continue  # code and diagrams are cited whole as evidence, never as prose
        for span in fragment_spans(frag):
            clean = clean_sentence(span.text)
            if (
                len(clean) < 3
                or contains_orchestration(clean)
                or "```" in span.text
                or span.kind == "heading"
                or _is_table_header(frag, span)
            ):
                continue
            key = (frag.doc_id, span.start, span.end)
            if key in seen:
                continue
            seen.add(key)
            cover = term_coverage(query, [clean, " ".join(frag.heading_path[-1:])])
            own = term_coverage(query, clean)
            score = weight * (0.6 * own.ratio + 0.4 * cover.ratio)
            out.append(Candidate(frag, span, clean, score, (fi, span.start)))
    return out


def _is_table_header(frag: Fragment, span: Span) -> bool:
    """The header row of a table names columns; it states nothing by itself."""
    if span.kind != "table_row":
        return False
    after = frag.text[span.end - frag.char_start :].lstrip("\r\n")
    return bool(re.match(r"\|?\s*:?-{2,}", after))


def fragment_spans(frag: Fragment) -> list[Span]:
    """The sentence units of ``frag`` at their document offsets; a truncated fragment is
    split head and tail apart, so no unit spans the truncation marker."""
    if not frag.truncated or frag.head_end is None or frag.tail_start is None:
        return split_sentences(frag.text, frag.char_start)
    head_len = frag.head_end - frag.char_start
    head = split_sentences(frag.text[:head_len], frag.char_start)
    tail_text = frag.text[head_len + len(TRUNCATION_MARKER) :]
    return head + split_sentences(tail_text, frag.tail_start)


def compose(
    question: Question,
    intent: str,
    fragments: list[Fragment],
    *,
    limit: int = 6,
    units_of: UnitsOf | None = None,
    scorer: Scorer | None = None,
    needed: Sequence[str] = (),
    admit: Callable[[Candidate], bool] | None = None,
) -> list[Candidate]:
    """Choose and order the units of the answer for ``intent`` (see :func:`candidates`).

    ``needed``: the question's distinctive terms (index tokens) a complete answer holds;
    when the profile's choice leaves some out, the best unit holding them is added.
    ``admit`` (the question's constraints) passes or refuses each candidate first."""
    return compose_ranked(
        question,
        intent,
        fragments,
        limit=limit,
        units_of=units_of,
        scorer=scorer,
        needed=needed,
        admit=admit,
    )[0]


def compose_ranked(
    question: Question,
    intent: str,
    fragments: list[Fragment],
    *,
    limit: int = 6,
    units_of: UnitsOf | None = None,
    scorer: Scorer | None = None,
    needed: Sequence[str] = (),
    admit: Callable[[Candidate], bool] | None = None,
    answerable: Mapping[tuple[str, int, int], float] | None = None,
) -> tuple[list[Candidate], list[Candidate]]:
    """:func:`compose`'s choice, and the ranked candidates it chose from (best first;
    those the question's constraints refused score 0): the meaning check answers from
    the next of them when the chosen units fail it (:mod:`citewise.answer.meaning.check`).
    Candidates are ordered by one score (:func:`citewise.answer.choice.scored`): their
    answerability (``answerable``, filled by ``admit`` as it judges them) carried by
    their document's recall rank."""
    chosen, pool = _compose(question, intent, fragments, limit, units_of, scorer, admit, answerable)
    chosen = complete_terms(chosen, pool, needed)
    if units_of is None:
        return chosen, pool
    from citewise.answer.ranking import present

    return present(chosen, intent), pool


#: A unit added for a missing distinctive term scores at least this share of the best.
COMPLETION_FLOOR = 0.35


def complete_terms(
    chosen: list[Candidate], pool: list[Candidate], needed: Sequence[str]
) -> list[Candidate]:
    """``chosen`` with, while some of ``needed`` are held by no chosen unit (its text or
    its section heading), the relevant unit of ``pool`` that holds the most of them (at
    least :data:`COMPLETION_FLOOR` of the best score; ties: the better score), from a
    document the answer already quotes. An answer to "how does X split values for Path
    options on Unix" that quotes the general rule also quotes the sentence about Path on
    Unix; a term no quoted source holds is not stitched in from another one (the answer
    is then partial, or abstains)."""
    if not chosen or not needed:
        return chosen
    best = max(c.score for c in pool) if pool else 0.0
    docs = {c.fragment.doc_id for c in chosen}

    def held(c: Candidate) -> set[str]:
        return set(tokenize(c.clean)) | set(tokenize(c.section))

    missing = set(needed) - set().union(*(held(c) for c in chosen))
    out = list(chosen)
    while missing:
        options = [
            (len(missing & held(c)), c.score, c)
            for c in pool
            if c not in out
            and c.fragment.doc_id in docs
            and c.score >= COMPLETION_FLOOR * best
            and missing & held(c)
        ]
        if not options:
            break
        _, _, add = max(options, key=lambda o: (o[0], o[1], [-x for x in o[2].order]))
        out.append(add)
        missing -= held(add)
    return out


def _compose(
    question: Question,
    intent: str,
    fragments: list[Fragment],
    limit: int,
    units_of: UnitsOf | None,
    scorer: Scorer | None,
    admit: Callable[[Candidate], bool] | None = None,
    answerable: Mapping[tuple[str, int, int], float] | None = None,
) -> tuple[list[Candidate], list[Candidate]]:
    """The profile's choice, and the pool it chose from."""
    pool = _pool(question, intent, fragments, units_of, scorer, admit, answerable)
    if not pool:
        return [], pool
    return _by_profile(question, intent, pool, limit), pool


def _pool(
    question: Question,
    intent: str,
    fragments: list[Fragment],
    units_of: UnitsOf | None,
    scorer: Scorer | None,
    admit: Callable[[Candidate], bool] | None = None,
    answerable: Mapping[tuple[str, int, int], float] | None = None,
) -> list[Candidate]:
    pool = [
        c
        for c in candidates(
            question,
            fragments,
            units_of=units_of,
            scorer=scorer,
            anywhere=_ANYWHERE.get(intent, frozenset()),
            keep=_part_cue(intent),
        )
        if c.score > 0 or _kept_part(intent, c)
    ]
    if admit is not None:  # a profile part the gate refuses stays, unranked (score 0):
        # the profile takes it only beside an admitted unit of its own section
        passed = [(c, admit(c)) for c in pool]
        pool = [
            c if ok else replace(c, score=0.0) for c, ok in passed if ok or _kept_part(intent, c)
        ]
    if not any(c.score > 0 or (intent == "how_to" and STEP.match(c.span.text)) for c in pool):
        return []  # profile parts alone (a rollback line, a consequence) answer nothing
    if intent != "how_to":  # code is quoted by its lead-in, or as a how-to's example
        only = _code_only_literals(question, pool)
        pool = [c for c in pool if c.kind != "code" or c.key in only]
    if intent not in ("definition", "compare", "how_to"):  # tables: figures, props, checks
        pool = [c for c in pool if c.kind != "table"]
    # one score orders every profile's units: answerability carried by recall's ranking
    pool = scored(pool, fragments, answerable)
    pool.sort(key=lambda c: (-c.score, c.order))
    return pool


#: Units a profile keeps even when they share no word with the question and lie outside
#: the evidence fragments (in the same document): a how-to's failure handling, a causal
#: answer's consequence. The profile takes them only beside the procedure or the cause
#: they belong to (:func:`citewise.answer.composition.profiles.failure_handling`, ``causal``).
_PART_CUE = {"how_to": FAILURE, "causal": CONSEQUENCE}


def _part_cue(intent: str) -> Callable[[str], bool] | None:
    cue = _PART_CUE.get(intent)
    return None if cue is None else (lambda text: cue.search(text) is not None)


def _kept_part(intent: str, c: Candidate) -> bool:
    if intent == "how_to" and STEP.match(c.span.text):
        return True
    cue = _PART_CUE.get(intent)
    return cue is not None and bool(cue.search(c.clean))


def _by_profile(
    question: Question, intent: str, pool: list[Candidate], limit: int
) -> list[Candidate]:
    refs = clause_refs(question.text)
    if refs:
        found = clause(refs, pool, limit)
        if found:
            return found
    if intent == "how_to":
        return how_to(question, pool, limit + 4)
    if intent == "compare":
        return compare(question, pool, limit)
    if intent == "definition":
        return definition(pool, min(limit, 4))
    if intent == "causal":
        return causal(pool, limit)
    best = pool[0].score
    listed = counted_list(question, pool)
    rest = [
        c
        for c in pool
        if c.score >= 0.75 * best and c not in listed and not any(inside(c, o) for o in listed)
    ]
    return listed + diverse(rest, min(limit, 3) - len(listed))


_LITERAL = re.compile(r"[._:\-/=]")


def _code_only_literals(question: Question, pool: list[Candidate]) -> set[tuple[str, int, int]]:
    """Code units that alone hold a literal the question names (``~/.bashrc``,
    ``--foo-bar``): with no prose unit to quote it, the code block is the answer (the best
    such block)."""
    literals = {t for t in question.tokens if _LITERAL.search(t)}
    if not literals:
        return set()
    prose = set()
    for c in pool:
        if c.kind != "code":
            prose.update(tokenize(c.clean))
    wanted = literals - prose
    code = [c for c in pool if c.kind == "code" and wanted & set(tokenize(c.clean))]
    best = max(code, key=lambda c: (c.score, [-x for x in c.order]), default=None)
    return {best.key} if best is not None else set()
