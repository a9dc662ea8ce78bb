"""Deterministic sufficiency gates, run before any answer is written.

Each gate returns machine-readable reasons (:class:`~citewise.sufficiency.models.Reason`,
emitted as ``gate:detail``). The result is a status
(sufficient / borderline / insufficient) and one degradation state, chosen by severity:
insufficient_evidence > conflict > stale_evidence > source_window_unavailable >
partial_coverage > none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from citewise.analysis.intent import Intent
from citewise.analysis.question import Question
from citewise.analysis.tokenize import Coverage, term_coverage, tokenize
from citewise.evidence.models import EvidencePack, Fragment

# The how-to action rules lived here; their import names stay (explicit re-exports).
from citewise.sufficiency.actions import action_term as action_term
from citewise.sufficiency.actions import cohesion as cohesion
from citewise.sufficiency.actions import generic_action as generic_action
from citewise.sufficiency.actions import procedure_mismatch as procedure_mismatch
from citewise.sufficiency.figures import Constraint, number_found
from citewise.sufficiency.models import Degradation, QuestionTerm, Reason, Status, Sufficiency
from citewise.sufficiency.presence import (
    FILLER,
    TermProfile,
    judge,
    missing_surface,
)
from citewise.sufficiency.presence import REFERENCE_WORDS as _REFERENCE_WORDS

#: Share of the question's key terms the direct evidence must contain.
SUFFICIENT_COVERAGE = 0.6
BORDERLINE_COVERAGE = 0.34
_SEVERITY: tuple[Degradation, ...] = (
    "insufficient_evidence",
    "conflict",
    "stale_evidence",
    "source_window_unavailable",
    "partial_coverage",
)
_STEPS = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*+])\s", re.M)
_HAS_DIGIT = re.compile(r"\d")
#: A fenced or indented code block: the answer to many a documentation how-to.
_CODE = re.compile(r"^\s*(?:```|~~~)|^(?: {4}|\t)\S", re.M)


@dataclass(frozen=True, slots=True)
class GateInput:
    #: The analysed question (its text, words and key terms are read from it).
    question: Question
    intent: Intent
    pack: EvidencePack
    conflicts: int = 0
    stale_paths: tuple[str, ...] = ()
    #: Subject terms that occur nowhere in the knowledge base.
    unknown_terms: tuple[str, ...] = ()
    #: The question's terms weighed against the knowledge base (None: ratio rules only).
    profile: TermProfile | None = None
    #: (path, context) of documents: their title, path, file kind, edition and date
    #: (:func:`citewise.answer.units.context.document_contexts`), present beside each of
    #: their passages ("MapReduce" in the title of the paper whose passage is quoted).
    context: tuple[tuple[str, str], ...] = ()


def _texts(frags: Sequence[Fragment]) -> list[str]:
    return [f.text for f in frags] + [" ".join(f.heading_path) for f in frags]


def _contexts(g: GateInput, frags: Sequence[Fragment]) -> list[str]:
    """The contexts of the documents ``frags`` are from (:attr:`GateInput.context`)."""
    where = dict(g.context)
    return [where[p] for p in dict.fromkeys(f.path for f in frags) if p in where]


def _without_reference_words(c: Coverage) -> Coverage:
    terms = tuple(t for t in c.terms if t not in _REFERENCE_WORDS and t not in FILLER)
    return Coverage(terms, tuple(t for t in c.matched if t in terms))


def review(g: GateInput) -> Sufficiency:
    """Run every gate; the first failing hard gate makes the evidence insufficient."""
    direct = list(g.pack.direct)
    refused = _absent(g, direct)
    if refused is not None:
        return refused
    texts = _texts(direct) + _contexts(g, direct)
    found = _Findings()
    required = tuple(t for t in g.profile.required if not t.soft) if g.profile else ()
    refused = _subject_refusal(g, direct, texts, required, found)
    if refused is None:
        refused = _coverage_refusal(g, texts, bool(required), found)
    if refused is not None:
        return refused
    _soft_gates(g, direct, found)
    return _verdict(found)


@dataclass(slots=True)
class _Findings:
    """What the gates that do not refuse found, in the order they found it: the reasons and
    the degradation each one implies."""

    reasons: list[Reason] = field(default_factory=list)
    degradations: list[Degradation] = field(default_factory=list)

    def add(self, reason: Reason, degradation: Degradation) -> None:
        self.reasons.append(reason)
        self.degradations.append(degradation)


def _refuse(*reasons: Reason) -> Sufficiency:
    return Sufficiency("insufficient", "insufficient_evidence", reasons)


def _absent(g: GateInput, direct: list[Fragment]) -> Sufficiency | None:
    """No direct evidence (recall's own reason, in the question's words), or subject terms
    the knowledge base never holds: the question's subject is absent."""
    never = (
        [t.key for t in g.profile.terms if t.df == 0 and t.required and not t.soft]
        if g.profile
        else []
    )
    if not direct and not g.unknown_terms and not never:
        why = next(
            (x.reason for x in g.pack.limitations if x.kind == "insufficient_evidence"),
            "no direct evidence",
        )
        why = _surface_reason(g, why)
        return _refuse(Reason("no_direct_evidence", why))
    if not direct:
        words = missing_surface(g.question, (*g.unknown_terms, *never))
        return _refuse(_listed("subject_absent", words))
    if g.unknown_terms:
        words = missing_surface(g.question, g.unknown_terms)
        return _refuse(_listed("subject_absent", words))
    return None


def _subject_refusal(
    g: GateInput,
    direct: list[Fragment],
    texts: list[str],
    required: tuple[QuestionTerm, ...],
    found: _Findings,
) -> Sufficiency | None:
    """The weighed terms' presence (a partial judgement is a finding) and the subject gates,
    or the ratio gates without weighed terms; then a how-to answered by another task's
    steps."""
    pack = g.pack
    if g.profile is not None and g.profile.checks:
        verdict = judge(g.profile, texts)
        if verdict.verdict == "absent":
            return Sufficiency("insufficient", "insufficient_evidence", _given(verdict.reason))
        if verdict.verdict == "partial":
            found.reasons += _given(verdict.reason)
            found.degradations.append("partial_coverage")
        refusal = _subject_gates(
            g, tuple(t.key for t in required), _sections(direct, pack, dict(g.context))
        )
    else:
        refusal = _ratio_gates(g, texts, direct)
    if refusal is not None:
        return _refuse(refusal)
    mismatch = procedure_mismatch(g.intent, (*direct, *pack.augmentation))
    if mismatch:
        return _refuse(mismatch)
    return None


def _coverage_refusal(
    g: GateInput, texts: list[str], weighed: bool, found: _Findings
) -> Sufficiency | None:
    """The question's words in the direct and augmenting evidence: too few refuse (only
    without required weighed terms), fewer than :data:`SUFFICIENT_COVERAGE` are partial."""
    cover = _without_reference_words(g.question.coverage(texts + _texts(g.pack.augmentation)))
    missing = tuple(missing_surface(g.question, cover.missing[:5]))
    missing_words = ", ".join(missing)
    if cover.ratio < BORDERLINE_COVERAGE and not weighed:
        why = f"{cover.ratio:.2f}<{BORDERLINE_COVERAGE}, not found: {missing_words}"
        return _refuse(Reason("coverage", why, missing))
    if cover.ratio < SUFFICIENT_COVERAGE and "partial_coverage" not in found.degradations:
        why = f"{cover.ratio:.2f}, not found: {missing_words}"
        found.add(Reason("partial_coverage", why, missing), "partial_coverage")
    return None


def _soft_gates(g: GateInput, direct: list[Fragment], found: _Findings) -> None:
    """The gates that degrade without refusing: a how-to without steps or code, a fragment
    without a citation, a pack over its budget, conflicts, stale files, missing windows."""
    pack = g.pack
    how_texts = [f.text for f in (*direct, *pack.augmentation)]
    if g.intent.kind == "how_to" and not any(
        _STEPS.search(t) or _CODE.search(t) for t in how_texts
    ):
        found.add(Reason("intent_mismatch", "how_to evidence has no steps"), "partial_coverage")
    if any(not f.citation_id for f in direct):
        found.add(Reason("citation_missing"), "insufficient_evidence")
    use, budget = pack.budget_use, pack.budget
    if use.tokens > budget.total_tokens or use.fragments > budget.max_fragments:
        found.add(Reason("over_budget"), "insufficient_evidence")
    if g.conflicts:
        found.add(Reason("conflict", f"{g.conflicts} unresolved"), "conflict")
    if g.stale_paths:
        found.add(Reason("stale_evidence", ", ".join(g.stale_paths)), "stale_evidence")
    for lim in pack.limitations:
        if lim.kind == "source_window_unavailable":
            found.add(Reason("source_window_unavailable", lim.path), "source_window_unavailable")


def _verdict(found: _Findings) -> Sufficiency:
    """The status and the worst degradation (by :data:`_SEVERITY`) of what the gates found:
    any finding makes a partial or clean answer borderline (and degraded, saying so)."""
    reasons = found.reasons
    worst: Degradation = next((d for d in _SEVERITY if d in found.degradations), "none")
    if worst == "insufficient_evidence":
        return Sufficiency("insufficient", worst, tuple(reasons))
    borderline = bool(reasons) and worst in ("partial_coverage", "none")
    status: Status = "borderline" if borderline else "sufficient"
    if borderline and worst == "none":
        worst = "partial_coverage"  # a borderline answer is degraded, and says so
    recoverable = status == "borderline"
    return Sufficiency(status, worst, tuple(reasons), recoverable)


def _sections(
    direct: Sequence[Fragment], pack: EvidencePack, where: Mapping[str, str] | None = None
) -> list[Fragment]:
    """Each direct fragment widened to the context the pack holds from its own section
    (same document, same heading path) and to its document's context (``where``: title,
    path, edition): two terms in one section, or one in the passage and one in the title
    of its document, are not scattered."""
    out = []
    for f in direct:
        near = [
            a.text
            for a in (*direct, *pack.augmentation)
            if a is not f and a.doc_id == f.doc_id and a.heading_path == f.heading_path
        ]
        near += [where[f.path]] if where and f.path in where else []
        out.append(replace(f, text="\n".join([f.text, *near])) if near else f)
    return out


def _subject_gates(
    g: GateInput, required: tuple[str, ...], direct: Sequence[Fragment]
) -> Reason | None:
    """With weighed terms: the distinctive ones must meet in one passage, and a how-to's
    verb must be described when it is itself distinctive (never "send" or "use")."""
    if len(required) >= 2 and g.intent.kind != "compare" and cohesion(required, direct) < 2:
        return _scattered(_asked_words(g, required))
    action = action_term(g.intent)
    if action and action in required and cohesion((action,), direct) == 0:
        word = missing_surface(g.question, (action,))[0]
        return Reason("action_absent", f"no passage describes '{word}'", (word,))
    return None


def _asked_words(g: GateInput, keys: Sequence[str]) -> list[str]:
    """The question's own words for index tokens ``keys``: a word read as a slip is named as
    the question spelt it ("Basset", not the documents' "bassett")."""
    spelt = {t.key: t.surface for t in g.profile.terms if t.asked} if g.profile else {}
    return [spelt.get(k) or missing_surface(g.question, (k,))[0] for k in keys]


def _ratio_gates(g: GateInput, texts: list[str], direct: Sequence[Fragment]) -> Reason | None:
    """Without weighed terms (or none distinctive): half the subject terms must be found,
    two of them in one passage, and a how-to's verb somewhere."""
    subject_terms = tuple(t for t in g.intent.subject_terms if t not in _REFERENCE_WORDS)
    if not subject_terms:
        return None
    subject = term_coverage(" ".join(subject_terms), texts)
    # the joined stems are tokenized again ("decis" -> "deci"): name them as the question did
    again = {k: t for t in subject_terms for k in tokenize(t)}
    missing = [again.get(t, t) for t in subject.missing]
    missing_ids = [t for t in missing if _HAS_DIGIT.search(t) and not _figure_in(t, texts)]
    if missing_ids or subject.ratio < 0.5:
        return _listed("subject_missing", missing_surface(g.question, missing[:6]))
    spread = len(subject_terms) >= 2 and g.intent.kind != "compare"
    if spread and cohesion(subject_terms, direct) < 2:
        return _scattered(missing_surface(g.question, subject_terms))
    action = action_term(g.intent)
    generic = g.profile is not None  # weighed, and the verb was not distinctive
    if action and not generic and cohesion((action,), direct) == 0:
        word = missing_surface(g.question, (action,))[0]
        return Reason("action_absent", f"no passage describes '{word}'", (word,))
    return None


def _figure_in(term: str, texts: Sequence[str]) -> bool:
    """A plain number of the question that a text names in a compatible form ("1950" as
    "the 1950s", "7" as "seven"): not a missing identifier."""
    if not term.isdigit():
        return False
    figure = Constraint("number", term, term)
    return any(number_found(figure, t) for t in texts)


def _listed(kind: str, words: Sequence[str]) -> Reason:
    """A reason whose detail is the question's ``words``, comma-separated."""
    return Reason(kind, ", ".join(words), tuple(words))


def _scattered(words: Sequence[str]) -> Reason:
    return Reason("subject_scattered", f"no passage holds two of {', '.join(words)}", tuple(words))


def _given(reason: Reason | None) -> tuple[Reason, ...]:
    """A presence judgement's reason (always set when it is not ``ok``)."""
    return () if reason is None else (reason,)


_MISSING_LIST = re.compile(r"\(missing: ([^)]*)\)")


def _surface_reason(g: GateInput, why: str) -> str:
    """A recall reason's "(missing: befor, rai)" in the question's own words (a slip as
    the question spelt it: recall searched the documents' spelling)."""
    m = _MISSING_LIST.search(why)
    if not m:
        return why
    words = ", ".join(dict.fromkeys(_asked_words(g, [w.strip() for w in m.group(1).split(",")])))
    return f"{why[: m.start()]}(missing: {words}){why[m.end() :]}"
