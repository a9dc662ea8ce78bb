"""The deterministic extractive composer: one answer per profile, sentences copied from
evidence (trimmed, never invented), each carrying the exact span it came from.

Profiles (the order in which selected sentences are presented):
- definition: what it is (definitional sentences about the subject), key properties, caveats;
- how_to: prerequisites, ordered steps (document order, step numbers kept), checks;
- compare: both sides, each with its own evidence, then rows that set them side by side;
- causal: mechanism and consequence sentences ("because", "leads to", "导致"), then support;
- generic: the best-covered sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citewise.analysis.tokenize import key_terms, term_coverage, tokenize
from citewise.answer.candidate import Candidate
from citewise.answer.clean import clean_sentence
from citewise.answer.procedure import PROCEDURE_HEAD
from citewise.answer.relevance import Scorer
from citewise.answer.support import contains_orchestration
from citewise.answer.units import Unit
from citewise.evidence.models import TRUNCATION_MARKER, Fragment
from citewise.evidence.sentences import Span, split_sentences
from citewise.recall.identifiers import clause_refs

ROLE_WEIGHT = {
    "direct_support": 1.0,
    "parent_context": 0.55,
    "adjacent_context": 0.6,
    "graph_neighbor_support": 0.5,
    "background": 0.3,
}
_DEFINES = re.compile(r"\b(?:is|are|means|refers to|defined as|stands for)\b|是|指|称为", re.I)
#: "X is a/an/the ...": a sentence that says what something is, not what value it has.
_DEFINES_STRICT = re.compile(
    r"\b(?:is|are) (?:an?|the|one of)\b|\bmeans\b|refers to|defined as|是一|指的是|是指", re.I
)
_CAUSAL = re.compile(
    r"\b(?:because|since|due to|leads? to|led to|causes?|caused|results? in|so that|"
    r"therefore|consequently|triggers?)\b|因为|由于|导致|造成|因此|所以|引起",
    re.I,
)
_CHECK = re.compile(r"\b(?:verify|check|confirm|ensure|make sure)\b|确认|检查|验证", re.I)
_CHECK_HEAD = re.compile(r"\b(?:verif\w*|checks?|validat\w*|confirm\w*)\b|确认|检查|验证", re.I)
_PREREQ = re.compile(r"prerequisite|before you (?:start|begin)|requirements|前提|准备", re.I)
_STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+)", re.I)
_CAVEAT = re.compile(
    r"\b(?:note|warning|caution|only|except|unless|must not|never)\b|注意|警告", re.I
)
_SIDE_PROCEDURE = re.compile(r"roll(?:ing)? ?back|revert|undo|troubleshoot|回滚|撤销", re.I)
_SIDES = re.compile(r"\s+(?:vs\.?|versus|and|or|compared (?:to|with))\s+|和|与|跟|对比", re.I)


#: Unit kinds a profile may take from anywhere in an evidence document (not only from the
#: fragments): a comparison's table, a how-to's closing-check table and code example.
_ANYWHERE = {"compare": frozenset({"table"}), "how_to": frozenset({"table", "code"})}


UnitsOf = Callable[[Fragment], list[Unit]]


def candidates(
    question: str,
    fragments: list[Fragment],
    *,
    units_of: UnitsOf | None = None,
    scorer: Scorer | None = None,
    anywhere: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Every unit of every readable fragment, scored by relevance and role.

    With ``units_of`` (the document's structural units, :mod:`citewise.answer.units`) the
    units are those the fragments touch, scored by term overlap blended with ``scorer``'s
    meaning similarity; without it, the fragments' own sentences by term overlap."""
    if units_of is not None:
        from citewise.answer.ranking import unit_candidates

        return unit_candidates(question, fragments, units_of, scorer, ROLE_WEIGHT, anywhere)
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
            cover = term_coverage(question, [clean, " ".join(frag.heading_path[-1:])])
            own = term_coverage(question, clean)
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
    question: str,
    intent: str,
    fragments: list[Fragment],
    *,
    limit: int = 6,
    units_of: UnitsOf | None = None,
    scorer: Scorer | None = None,
) -> list[Candidate]:
    """Choose and order the units of the answer for ``intent`` (see :func:`candidates`)."""
    chosen = _compose(question, intent, fragments, limit, units_of, scorer)
    if units_of is None:
        return chosen
    from citewise.answer.ranking import present

    return present(chosen, intent)


def _compose(
    question: str,
    intent: str,
    fragments: list[Fragment],
    limit: int,
    units_of: UnitsOf | None,
    scorer: Scorer | None,
) -> list[Candidate]:
    pool = [
        c
        for c in candidates(
            question,
            fragments,
            units_of=units_of,
            scorer=scorer,
            anywhere=_ANYWHERE.get(intent, frozenset()),
        )
        if c.score > 0 or (intent == "how_to" and _STEP.match(c.span.text))
    ]
    if intent != "how_to":  # code is quoted by its lead-in, or as a how-to's example
        only = _code_only_literals(question, pool)
        pool = [c for c in pool if c.kind != "code" or c.key in only]
    if intent not in ("definition", "compare", "how_to"):  # tables: figures, props, checks
        pool = [c for c in pool if c.kind != "table"]
    pool.sort(key=lambda c: (-c.score, c.order))
    if not pool:
        return []
    refs = clause_refs(question)
    if refs:
        clause = _clause(refs, pool, limit)
        if clause:
            return clause
    if intent == "how_to":
        return _how_to(question, pool, limit + 4)
    if intent == "compare":
        return _compare(question, pool, limit)
    if intent == "definition":
        return _definition(pool, min(limit, 4))
    if intent == "causal":
        return _ranked_by(pool, _CAUSAL, limit)
    best = pool[0].score
    return _diverse([c for c in pool if c.score >= 0.75 * best], min(limit, 3))


_LITERAL = re.compile(r"[._:\-/=]")


def _code_only_literals(question: str, pool: list[Candidate]) -> set[tuple[str, int, int]]:
    """Code units that alone hold a literal the question names (``~/.bashrc``,
    ``--foo-bar``): with no prose unit to quote it, the code block is the answer (the best
    such block)."""
    literals = {t for t in tokenize(question) if _LITERAL.search(t)}
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


def _diverse(pool: list[Candidate], n: int) -> list[Candidate]:
    """Best first, skipping near-duplicates of what is already chosen."""
    chosen: list[Candidate] = []
    bags: list[set[str]] = []
    for c in pool:
        bag = set(tokenize(c.clean))
        if any(bag and len(bag & b) / len(bag | b) > 0.8 for b in bags):
            continue
        chosen.append(c)
        bags.append(bag)
        if len(chosen) >= n:
            break
    return chosen


def _ranked_by(
    pool: list[Candidate], cue: re.Pattern[str], n: int, first_only: bool = False
) -> list[Candidate]:
    best = pool[0].score
    lead = [c for c in pool if cue.search(c.clean) and c.score >= 0.5 * best]
    lead = lead[:1] if first_only else lead[: max(1, n // 2)]
    rest = [c for c in pool if c not in lead and c.score >= 0.5 * best]
    caveats = [c for c in rest if _CAVEAT.search(c.clean)][:1]
    body = _diverse(lead + [c for c in rest if c not in caveats], n - len(caveats))
    return body + [c for c in caveats if c not in body]


def _clause(refs: list[str], pool: list[Candidate], n: int) -> list[Candidate]:
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


def _definition(pool: list[Candidate], n: int) -> list[Candidate]:
    """The best defining sentence, then what its own section says next, then a caveat."""
    best = pool[0].score
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
        if c.kind not in ("table", "para") and _DEFINES.search(c.clean) and c.score >= 0.5 * best
    ]
    lead = defining[0] if defining else pool[0]
    section = [
        c
        for c in pool
        if c.fragment.doc_id == lead.fragment.doc_id
        and c.fragment.heading_path == lead.fragment.heading_path
        and c.span.start > lead.span.start
    ]
    section.sort(key=lambda c: c.span.start)
    table = next((c for c in section if c.kind == "table"), None)
    if table is not None:  # the key-properties table whole, instead of its rows one by one
        section = [
            c
            for c in section
            if c is table or not (table.span.start <= c.span.start < table.span.end)
        ]
    else:
        section = [c for c in section if c.kind != "table"]
    chosen = [lead, *_diverse(section, n - 1)]
    if len(chosen) < 2:  # the lead stands alone: add only other strong sentences
        strong = [c for c in pool if c is not lead and c.score >= 0.75 * best]
        chosen += [c for c in _diverse(strong, n) if c not in chosen][: n - len(chosen)]
    return chosen[:n]


def _how_to(question: str, pool: list[Candidate], n: int) -> list[Candidate]:
    """Prerequisites, then the steps of the best-scoring section in document order, checks."""
    groups: dict[tuple[str, tuple[str, ...]], float] = {}
    for c in pool:
        if _STEP.match(c.span.text):
            key = (c.fragment.doc_id, c.fragment.heading_path)
            groups[key] = groups.get(key, 0.0) + c.score
    for key in groups:  # the announced main procedure beats a rollback or side list
        head = " ".join(key[1][-1:])
        groups[key] += 1.0 if PROCEDURE_HEAD.search(head) else 0.0
        groups[key] -= (
            1.0 if _SIDE_PROCEDURE.search(head) and not _SIDE_PROCEDURE.search(question) else 0.0
        )
    if groups:  # the procedure: the section whose numbered steps match the question best
        doc_id, section = max(groups, key=lambda k: (groups[k], k))
    else:
        doc_id, section = pool[0].fragment.doc_id, pool[0].fragment.heading_path
    same_doc = [c for c in pool if c.fragment.doc_id == doc_id]
    prereq = [c for c in same_doc if _PREREQ.search(" ".join(c.fragment.heading_path))]
    prereq = [c for c in prereq if not any(_inside(c, o) for o in prereq)][:3]
    # Each step is the opening sentence of its numbered item; details stay in the citation.
    steps = [
        c
        for c in same_doc
        if c.fragment.heading_path == section and _STEP.match(c.span.text) and c not in prereq
    ]
    if not steps:  # prose instructions: the section's relevant units, in document order
        steps = [
            c
            for c in same_doc
            if c.fragment.heading_path == section
            and c not in prereq
            and (c.kind != "table" or c.section == " ".join(section[-1:]))
        ]
        top = max((c.score for c in steps), default=0.0)
        prose = [c for c in steps if c.score >= 0.35 * top and c.kind not in ("code", "table")]
        # a section whose evidence is its example alone: the code block is the answer
        code = sorted((c for c in steps if c.kind == "code"), key=lambda c: (-c.score, c.order))
        steps = prose or code[:1]
        if steps and not any(c.kind == "lead" or "```" in c.clean for c in steps):
            # prose that tells what to do: the section's code example shows how
            here = " ".join(section[-1:])
            first = min(c.span.start for c in steps)
            example = sorted(
                (c for c in same_doc if c.kind == "code" and c.section == here),
                key=lambda c: (c.span.start < first, c.span.start),
            )[:1]
            steps += example
    steps = sorted(steps, key=lambda c: c.span.start)[:15]
    checks = [
        c
        for c in same_doc
        if _CHECK.search(c.clean)
        and c not in steps + prereq
        and not _STEP.match(c.span.text)
        and len(c.clean.split("\n", 1)[0].split()) >= 4  # "Check it:" is no check
        and not (_SIDE_PROCEDURE.search(c.section) and not _SIDE_PROCEDURE.search(question))
    ][:2]
    last = max((c.span.end for c in steps), default=0)
    closing = [  # the closing check: a table in a later "Checks"/"Verify" section
        c
        for c in same_doc
        if c.kind == "table" and c.span.start >= last and _CHECK_HEAD.search(c.section)
    ][:1]
    checks = closing + [c for c in checks if c.kind != "table"][: 2 - len(closing)]
    return (prereq + steps + checks)[: max(n, len(prereq) + len(steps) + len(closing))]


def _inside(c: Candidate, o: Candidate) -> bool:
    """``c`` is quoted by the larger unit ``o`` (same document)."""
    return (
        o is not c
        and o.fragment.doc_id == c.fragment.doc_id
        and o.span.start <= c.span.start
        and c.span.end <= o.span.end
        and (o.span.start, o.span.end) != (c.span.start, c.span.end)
    )


def _compare(question: str, pool: list[Candidate], n: int) -> list[Candidate]:
    """Each side with its own evidence (sentences naming that side's distinctive terms),
    then sentences that name both."""
    sides = [s for s in _SIDES.split(_subject(question)) if key_terms(s)][:2]
    if len(sides) < 2:
        return _diverse(pool, n)
    a, b = (set(key_terms(x)) for x in sides)
    own_terms = [a - b or a, b - a or b]

    def names(c: Candidate, terms: set[str]) -> bool:
        return bool(terms & set(tokenize(c.clean)))

    both = [c for c in pool if all(names(c, t) for t in own_terms)]
    chosen: list[Candidate] = []
    per_side = max(1, (n - 2) // 2)
    for mine, other in (own_terms, own_terms[::-1]):
        own = [c for c in pool if names(c, mine) and not names(c, other) and c not in chosen]
        own.sort(key=lambda c: (not _DEFINES_STRICT.search(c.clean), -c.score, c.order))
        chosen.extend(_diverse(own, per_side))
    tables = [c for c in both if c.kind == "table"]
    if tables:  # the table that sets both sides side by side carries the compared figures
        chosen.append(max(tables, key=lambda c: (c.score, -c.span.start)))
    chosen.extend(c for c in _diverse([c for c in both if c.kind != "table"], 2) if c not in chosen)
    return chosen[: n + 1] or _diverse(pool, n)


def _subject(question: str) -> str:
    q = re.sub(
        r"^\s*(?:what(?:'s| is| are)? (?:the )?)?(?:differences?|difference between|"
        r"compare|comparison of)\s*(?:between|of)?\s*",
        "",
        question,
        flags=re.I,
    )
    return re.sub(r"[?？。.!！]+$", "", q.replace("区别", "").replace("有什么", ""))
