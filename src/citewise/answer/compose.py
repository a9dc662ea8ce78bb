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
from dataclasses import dataclass

from citewise.answer.sentences import Span, clean_sentence, split_sentences
from citewise.answer.support import contains_orchestration
from citewise.evidence.models import TRUNCATION_MARKER, Fragment
from citewise.index.tokenize import key_terms, term_coverage, tokenize

ROLE_WEIGHT = {
    "direct_support": 1.0,
    "parent_context": 0.55,
    "adjacent_context": 0.6,
    "graph_neighbor_support": 0.5,
    "background": 0.3,
}
_DEFINES = re.compile(r"\b(?:is|are|means|refers to|defined as|stands for)\b|是|指|称为", re.I)
_CAUSAL = re.compile(
    r"\b(?:because|since|due to|leads? to|led to|causes?|caused|results? in|so that|"
    r"therefore|consequently|triggers?)\b|因为|由于|导致|造成|因此|所以|引起",
    re.I,
)
_CHECK = re.compile(r"\b(?:verify|check|confirm|ensure|make sure)\b|确认|检查|验证", re.I)
_PREREQ = re.compile(r"prerequisite|before you (?:start|begin)|requirements|前提|准备", re.I)
_STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+)", re.I)
_CAVEAT = re.compile(
    r"\b(?:note|warning|caution|only|except|unless|must not|never)\b|注意|警告", re.I
)
_SIDES = re.compile(r"\s+(?:vs\.?|versus|and|or|compared (?:to|with))\s+|和|与|跟|对比", re.I)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence of a fragment with its absolute span in the document text."""

    fragment: Fragment
    span: Span
    clean: str
    score: float
    order: tuple[int, ...]

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.fragment.doc_id, self.span.start, self.span.end)


def candidates(question: str, fragments: list[Fragment]) -> list[Candidate]:
    """Every sentence of every readable fragment, scored by key-term coverage and role."""
    out: list[Candidate] = []
    seen: set[tuple[str, int, int]] = set()
    for fi, frag in enumerate(fragments):
        weight = ROLE_WEIGHT.get(frag.role, 0.0)
        if weight == 0.0 or frag.kind in ("code", "mermaid"):
            continue  # code and diagrams are cited whole as evidence, never as prose
        for span in _spans(frag):
            clean = clean_sentence(span.text)
            if len(clean) < 3 or contains_orchestration(clean):
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


def _spans(frag: Fragment) -> list[Span]:
    if not frag.truncated or frag.head_end is None or frag.tail_start is None:
        return split_sentences(frag.text, frag.char_start)
    head_len = frag.head_end - frag.char_start
    head = split_sentences(frag.text[:head_len], frag.char_start)
    tail_text = frag.text[head_len + len(TRUNCATION_MARKER) :]
    return head + split_sentences(tail_text, frag.tail_start)


def compose(
    question: str, intent: str, fragments: list[Fragment], *, limit: int = 6
) -> list[Candidate]:
    """Choose and order the sentences of the answer for ``intent``."""
    pool = [c for c in candidates(question, fragments) if c.score > 0]
    pool.sort(key=lambda c: (-c.score, c.order))
    if not pool:
        return []
    if intent == "how_to":
        return _how_to(pool, limit + 4)
    if intent == "compare":
        return _compare(question, pool, limit)
    if intent == "definition":
        return _definition(pool, min(limit, 4))
    if intent == "causal":
        return _ranked_by(pool, _CAUSAL, limit)
    return _diverse(pool, min(limit, 4))


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


def _definition(pool: list[Candidate], n: int) -> list[Candidate]:
    """The best defining sentence, then what its own section says next, then a caveat."""
    best = pool[0].score
    defining = [c for c in pool if _DEFINES.search(c.clean) and c.score >= 0.5 * best]
    lead = defining[0] if defining else pool[0]
    section = [
        c
        for c in pool
        if c.fragment.doc_id == lead.fragment.doc_id
        and c.fragment.heading_path == lead.fragment.heading_path
        and c.span.start > lead.span.start
    ]
    section.sort(key=lambda c: c.span.start)
    chosen = [lead, *_diverse(section, n - 1)]
    if len(chosen) < 2:
        chosen += [c for c in _diverse(pool, n) if c not in chosen][: n - len(chosen)]
    return chosen[:n]


def _how_to(pool: list[Candidate], n: int) -> list[Candidate]:
    """Prerequisites, then the steps of the best-scoring section in document order, checks."""
    best = pool[0]
    section = best.fragment.heading_path
    same_doc = [c for c in pool if c.fragment.doc_id == best.fragment.doc_id]
    prereq = [c for c in same_doc if _PREREQ.search(" ".join(c.fragment.heading_path))][:3]
    steps = [c for c in same_doc if c.fragment.heading_path == section and c not in prereq]
    if not any(_STEP.match(c.span.text) for c in steps):
        steps = [c for c in same_doc if _STEP.match(c.span.text) and c not in prereq] or steps
    steps.sort(key=lambda c: c.span.start)
    checks = [c for c in same_doc if _CHECK.search(c.clean) and c not in steps + prereq][:2]
    return (prereq + steps + checks)[:n]


def _compare(question: str, pool: list[Candidate], n: int) -> list[Candidate]:
    sides = [s for s in _SIDES.split(_subject(question)) if key_terms(s)]
    if len(sides) < 2:
        return _diverse(pool, n)
    chosen: list[Candidate] = []
    both = [c for c in pool if all(term_coverage(s, c.clean).ratio >= 0.5 for s in sides[:2])]
    for side in sides[:2]:
        own = [c for c in pool if term_coverage(side, c.clean).ratio >= 0.5 and c not in chosen]
        chosen.extend(_diverse(own, max(1, (n - 2) // 2)))
    chosen.extend(c for c in _diverse(both, 2) if c not in chosen)
    return chosen[:n] or _diverse(pool, n)


def _subject(question: str) -> str:
    q = re.sub(
        r"^\s*(?:what(?:'s| is| are)? (?:the )?)?(?:differences?|difference between|"
        r"compare|comparison of)\s*(?:between|of)?\s*",
        "",
        question,
        flags=re.I,
    )
    return re.sub(r"[?？。.!！]+$", "", q.replace("区别", "").replace("有什么", ""))
