"""Bridges the pure fact/conflict rules to a knowledge base: which documents to read,
which conflicts matter for this question, and which evidence is stale.

A reported conflict is anchored in the evidence: one of its facts lies in a direct-support
fragment and concerns the question; the other may be anywhere in the pack's documents
(block by block, each block's heading path a qualifier source), read only where a block
holds every word of an anchored subject. Facts of stale editions are left out when a
current edition exists. A subject with no key terms ("p", "n") never concerns a question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from citewise.analysis.tokenize import key_terms, term_coverage, word_tokens
from citewise.core.records import BLOCK_KINDS, Node
from citewise.core.search import Hit
from citewise.evidence.augment import hit_fragment
from citewise.evidence.models import EvidencePack, Fragment
from citewise.sufficiency.models import ConflictNote, ConflictSide
from citewise.sufficiency.slot_conflicts import slot_conflicts

if TYPE_CHECKING:
    from citewise.analysis.question import Question
    from citewise.context import StageContext
    from citewise.sufficiency.conflicts import Conflict
    from citewise.sufficiency.facts import Fact

#: Entity-valued facts, read also from recall hits the pack left out.
ENTITY_KINDS = frozenset({"winner", "author", "creator", "director", "owner", "version"})
#: Words without which a chunk states no entity-valued fact (a cheap pre-filter).
ENTITY_CUE = re.compile(
    r"\b(?:won|wins|winner|champion|written|authored|created|founded|invented|designed|"
    r"developed|directed|owned|maintained|managed|owner|version|release)\b|冠军|获胜|得主|版本",
    re.IGNORECASE,
)
#: How many of the best recall hits are read for entity-valued facts.
EXTRA_HITS = 5

#: Blocks whose prose and tables state facts (code and diagrams do not; table rows are read
#: through their whole table so every row keeps its header).
FACT_KINDS = BLOCK_KINDS - {"code", "mermaid"}


def stale_paths(
    kb: StageContext, pack: EvidencePack, principal: str | None = None
) -> tuple[str, ...]:
    """Paths in the pack that are superseded editions while a current one exists, judged
    from the documents ``principal`` may read only (a hidden edition or relation counts
    as absent)."""
    used = {f.path for f in pack.fragments}
    if not used:
        return ()
    stale = kb.index.stale_documents(principal)
    return tuple(sorted(stale & used))


def detect_conflicts(
    kb: StageContext,
    question: Question,
    pack: EvidencePack,
    principal: str | None = None,
    hits: Sequence[Hit] = (),
) -> list[ConflictNote]:
    """Conflicts that concern ``question`` and touch the evidence the answer rests on.

    A conflict is anchored: one of its two facts lies inside a direct-support fragment of
    the pack and its subject is something the question asks about (:func:`_asked`);
    the other fact may sit anywhere in the pack's documents (an appendix far below the
    matched span) or, for entity-valued facts (:data:`ENTITY_KINDS`), in the chunks of the
    best recall ``hits`` from documents the pack left out (a second source naming another
    winner or current version). Two facts elsewhere in a document the pack only touches
    ("policy change effective March 1" against "October 1" three hundred pages apart) are
    not the answer's subject and are not reported. The rest of a document is read only
    where a block holds every word of an anchored subject, so the cost of a question
    follows its evidence, not the size of the documents it touches."""
    from citewise.sufficiency.conflicts import find_conflicts

    stale = set(stale_paths(kb, pack, principal))
    docs: dict[str, Fragment] = {}
    for f in pack.fragments:
        if f.path not in stale:
            docs.setdefault(f.path, f)
    direct: dict[str, list[tuple[int, int]]] = {}
    for f in pack.direct:
        direct.setdefault(f.path, []).append((f.char_start, f.char_end))
    reads: dict[str, tuple[str, list[_Block]]] = {}

    def read(path: str) -> tuple[str, list[_Block]]:
        if path not in reads:
            spans = [(f.char_start, f.char_end) for f in pack.fragments if f.path == path]
            reads[path] = _fact_units(kb, path, docs[path], spans)
        return reads[path]

    owner: dict[int, Fragment] = {}
    anchors = _anchors(question, docs, direct, read, owner)
    notes: list[ConflictNote] = []
    if anchors:  # else nothing the answer rests on states a value of the asked subject
        facts = list(anchors)
        facts += _same_subject_facts(anchors, docs, direct, read, owner)
        facts.extend(_entity_facts(hits, docs, stale, owner))
        anchored = {id(f) for f in anchors}
        for c in find_conflicts(facts):
            if id(c.a) not in anchored and id(c.b) not in anchored:
                continue  # neither side is in the evidence the answer rests on
            notes.append(_note(c, owner))
    # parallel statements of two documents with different values (slot_conflicts.py)
    return notes + slot_conflicts(question, pack, hits, stale, notes)


_Read = Callable[[str], tuple[str, list["_Block"]]]


def _anchors(
    question: Question,
    docs: dict[str, Fragment],
    direct: dict[str, list[tuple[int, int]]],
    read: _Read,
    owner: dict[int, Fragment],
) -> list[Fact]:
    """The facts of the asked subject stated in the direct-support fragments' blocks (each
    fact's fragment recorded in ``owner``)."""
    anchors: list[Fact] = []
    for path, frag in sorted(docs.items()):
        if path not in direct:
            continue  # no anchor here: read only when another document anchors a subject
        text, units = read(path)
        for fact in _facts_of(text, path, [u for u in units if _touches(u, direct[path])]):
            if _asked(fact, question):
                anchors.append(fact)
                owner[id(fact)] = frag
    return anchors


def _same_subject_facts(
    anchors: list[Fact],
    docs: dict[str, Fragment],
    direct: dict[str, list[tuple[int, int]]],
    read: _Read,
    owner: dict[int, Fragment],
) -> list[Fact]:
    """Facts of an anchored subject and attribute elsewhere in the pack's documents, read
    only in blocks that hold every word of an anchored subject."""
    from citewise.sufficiency.conflicts import subject_key

    keys = {(subject_key(f.subject, f.attribute), f.attribute) for f in anchors}
    needs = [n for n in (_need(key) for key, _ in keys) if n]
    facts: list[Fact] = []
    for path in sorted(docs):
        text, units = read(path)
        rest = [u for u in units if not _touches(u, direct.get(path)) and _holds(text, u, needs)]
        for fact in _facts_of(text, path, rest):
            if (subject_key(fact.subject, fact.attribute), fact.attribute) in keys:
                owner[id(fact)] = docs[path]
                facts.append(fact)
    return facts


def _note(c: Conflict, owner: dict[int, Fragment]) -> ConflictNote:
    """The conflict as the answer states it: both sides with their fragments."""
    pair = (c.a, c.b)
    sides = tuple(_side(owner[id(p)], p) for p in pair)
    sentence = (
        f"The sources disagree on {c.a.subject}: {sides[0].fragment.path} gives "
        f"{p_raw(c.a)} and {sides[1].fragment.path} gives {p_raw(c.b)}."
    )
    return ConflictNote(c.a.subject, c.a.attribute, sentence, sides, c.reason)


def _asked(fact: Fact, question: Question) -> bool:
    """The fact's subject is what the question asks about: at least half of its key terms
    are in the question, or it holds a name or identifier the question relies on. One
    shared common word ("effect" in "policy change effective" for "When does the
    prohibition take effect?") is not the asked subject."""
    subject = set(key_terms(fact.subject))
    if not subject:
        return False  # "p", "n", "there": cannot be shown to be what is asked
    if term_coverage(fact.subject, question.text).ratio >= 0.5:
        return True
    return bool(subject & set(key_terms(" ".join(question.named_terms))))


def _touches(unit: _Block, spans: list[tuple[int, int]] | None) -> bool:
    return any(unit.start < end and start < unit.end for start, end in spans or ())


def _need(key: str) -> frozenset[str]:
    """The words a block must hold to state a fact with subject ``key``: the key's words
    but the canonical synonym ("retry limit" is also said "max attempts")."""
    from citewise.sufficiency.conflicts import SYNONYMS

    canonical = {w for phrase in set(SYNONYMS.values()) for w in word_tokens(phrase)}
    return frozenset(w for w in key.split() if w not in canonical)


def _holds(text: str, unit: _Block, needs: list[frozenset[str]]) -> bool:
    """The block (with its heading) holds every word of an anchored subject."""
    held = set(word_tokens(text[unit.start : unit.end])) | set(word_tokens(" ".join(unit.heading)))
    return any(need <= held for need in needs)


def _facts_of(text: str, path: str, units: list[_Block]) -> list[Fact]:
    """The facts of ``units``; the facts of one table are one group (its rows enumerate
    cases, and two tables of one document each state their own), also where the format
    gives no Markdown header row for the fact reader to see."""
    out: list[Fact] = []
    for u in units:
        found = list(_block_facts(text[u.start : u.end], u.start, tuple(u.heading), path))
        if u.kind == "table":
            found = [f if f.group >= 0 else replace(f, group=u.start) for f in found]
        out.extend(found)
    return out


@lru_cache(maxsize=4096)
def _block_facts(block: str, start: int, heading: tuple[str, ...], path: str) -> tuple[Fact, ...]:
    """The facts of one block of a document version, kept per process: a pure function of
    its arguments (facts are frozen), and the next question on the same documents reads
    the same blocks (the per-version facts cache this replaced kept whole documents)."""
    from citewise.sufficiency.facts import extract_facts

    return tuple(extract_facts(block, base_offset=start, heading_path=heading, doc_path=path))


def _entity_facts(
    hits: Sequence[Hit], docs: dict[str, Fragment], stale: set[str], owner: dict[int, Fragment]
) -> list[Fact]:
    """Entity-valued facts of the best recall hits from documents the pack left out."""
    from citewise.sufficiency.facts import extract_facts

    out: list[Fact] = []
    for h in hits[:EXTRA_HITS]:
        if h.path in docs or h.path in stale or not ENTITY_CUE.search(h.excerpt):
            continue
        frag = _hit_fragment(h)  # the hit's own chunk: exact text at its offsets
        found = extract_facts(
            h.excerpt, base_offset=h.char_start, heading_path=h.heading_path, doc_path=h.path
        )
        for fact in found:
            if fact.attribute in ENTITY_KINDS:
                owner[id(fact)] = frag
                out.append(fact)
    return out


def _fact_units(
    kb: StageContext, path: str, frag: Fragment, spans: list[tuple[int, int]]
) -> tuple[str, list[_Block]]:
    """One document version's text and its fact-bearing blocks around ``spans`` (the
    whole version when it is small, see ``nodes_near``)."""
    index = kb.index
    text = index.version_text(frag.doc_id, frag.version_id)
    window = index.nodes_near(path, frag.version_id, spans)
    return text, _units(window.nodes)


def _hit_fragment(h: Hit) -> Fragment:
    """A recall hit as a fragment a conflict side can be cited from."""
    return hit_fragment(h, role="conflict", reason="conflict_source", rank=float(h.rank))


class _Block(NamedTuple):
    """A fact-bearing range of a document: one block, or the items of one list."""

    start: int
    end: int
    heading: tuple[str, ...]
    kind: str


def _units(nodes: list[Node]) -> list[_Block]:
    """Fact-bearing ranges: each block, with the items of one list read as one unit (the
    options of a list are alternatives, not contradicting facts)."""
    units: list[_Block] = []
    last_kind = ""
    for n in nodes:
        if n.kind not in FACT_KINDS:
            continue
        if units and n.char_end <= units[-1].end:
            continue  # nested inside the current unit (a sub-item, a paragraph in an item)
        if n.kind == last_kind == "list_item" and n.heading_path == units[-1].heading:
            units[-1] = units[-1]._replace(end=n.char_end)
        else:
            units.append(_Block(n.char_start, n.char_end, n.heading_path, n.kind))
        last_kind = n.kind
    return units


def p_raw(fact: object) -> str:
    return str(getattr(fact, "raw_value", "") or getattr(fact, "value", ""))


def _side(frag: Fragment, fact: object) -> ConflictSide:
    start, end = int(getattr(fact, "start")), int(getattr(fact, "end"))  # noqa: B009
    return ConflictSide(frag, start, end, str(getattr(fact, "text")), p_raw(fact))  # noqa: B009
