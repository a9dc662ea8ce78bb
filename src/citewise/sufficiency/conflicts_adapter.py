"""Bridges the pure fact/conflict rules to a knowledge base: which documents to read,
which conflicts matter for this question, and which evidence is stale.

Facts are read from the full text of every document the pack draws on (so an appendix far
from the matched span still counts), block by block with each block's heading path as a
qualifier source. Facts of stale editions are left out when a current edition exists.
A conflict matters when its subject shares a key term with the question (a subject with no
key terms, such as "p" or "n", never does).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citewise.analysis.tokenize import key_terms, term_coverage
from citewise.evidence.augment import hit_fragment
from citewise.evidence.models import EvidencePack, Fragment
from citewise.ingest.models import BLOCK_KINDS, Node
from citewise.recall.models import Hit
from citewise.sufficiency._numbers import concerns_question
from citewise.sufficiency.models import ConflictNote, ConflictSide

if TYPE_CHECKING:
    from citewise.analysis.question import Question
    from citewise.context import StageContext
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
    """Conflicts among the facts of the pack's documents that concern ``question``. The
    chunks of the best recall ``hits`` from documents the pack left out (segment selection
    keeps few documents) are read for entity-valued facts only (:data:`ENTITY_KINDS`): a
    second source naming another winner or current version is a disagreement the answer
    owes the reader, whichever document evidence selection preferred."""
    from citewise.sufficiency.conflicts import find_conflicts
    from citewise.sufficiency.facts import extract_facts

    stale = set(stale_paths(kb, pack, principal))
    docs: dict[str, Fragment] = {}
    for f in pack.fragments:
        if f.path not in stale:
            docs.setdefault(f.path, f)
    facts: list[Fact] = []
    owner: dict[int, Fragment] = {}
    for path, frag in sorted(docs.items()):
        spans = [(f.char_start, f.char_end) for f in pack.fragments if f.path == path]
        whole = _document_facts(kb, path, frag, spans)
        for fact in whole:
            owner[id(fact)] = frag
        facts.extend(whole)
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
                facts.append(fact)
    terms = set(question.key_terms)
    notes: list[ConflictNote] = []
    for c in find_conflicts(facts):
        pair = (c.a, c.b)
        subject_terms = set(key_terms(c.a.subject)) | set(key_terms(c.b.subject))
        coverage = term_coverage(c.a.subject, question.text).ratio
        if not concerns_question(subject_terms, terms, coverage):
            continue  # a disagreement about something the question does not ask about
        sides = tuple(_side(owner[id(p)], p) for p in pair)
        sentence = (
            f"The sources disagree on {c.a.subject}: {sides[0].fragment.path} gives "
            f"{p_raw(c.a)} and {sides[1].fragment.path} gives {p_raw(c.b)}."
        )
        notes.append(ConflictNote(c.a.subject, c.a.attribute, sentence, sides, c.reason))
    return notes


#: Documents versions whose facts one index state keeps (see ``CallerViews.cached``).
FACT_CACHE = 4096


def _document_facts(
    kb: StageContext, path: str, frag: Fragment, spans: list[tuple[int, int]]
) -> tuple[Fact, ...]:
    """The facts of one document version, block by block. A version's facts depend on its
    content only, so they are kept with the index state when its nodes were read whole."""
    from citewise.sufficiency.facts import extract_facts

    index = kb.index
    key = (frag.doc_id, frag.version_id)
    got: tuple[Fact, ...] | None = index.lookup("facts", key)
    if got is not None:
        return got
    text = index.version_text(frag.doc_id, frag.version_id)
    window = index.nodes_near(path, frag.version_id, spans)
    found = tuple(
        fact
        for start, end, heading in _units(window.nodes)
        for fact in extract_facts(
            text[start:end], base_offset=start, heading_path=heading, doc_path=path
        )
    )
    if window.complete:
        index.keep("facts", key, found, FACT_CACHE)
    return found


def _hit_fragment(h: Hit) -> Fragment:
    """A recall hit as a fragment a conflict side can be cited from."""
    return hit_fragment(h, role="conflict", reason="conflict_source", rank=float(h.rank))


def _units(nodes: list[Node]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Fact-bearing ranges: each block, with the items of one list read as one unit (the
    options of a list are alternatives, not contradicting facts)."""
    units: list[tuple[int, int, tuple[str, ...]]] = []
    last_kind = ""
    for n in nodes:
        if n.kind not in FACT_KINDS:
            continue
        if units and n.char_end <= units[-1][1]:
            continue  # nested inside the current unit (a sub-item, a paragraph in an item)
        if n.kind == last_kind == "list_item" and n.heading_path == units[-1][2]:
            units[-1] = (units[-1][0], n.char_end, n.heading_path)
        else:
            units.append((n.char_start, n.char_end, n.heading_path))
        last_kind = n.kind
    return units


def p_raw(fact: object) -> str:
    return str(getattr(fact, "raw_value", "") or getattr(fact, "value", ""))


def _side(frag: Fragment, fact: object) -> ConflictSide:
    start, end = int(getattr(fact, "start")), int(getattr(fact, "end"))  # noqa: B009
    return ConflictSide(frag, start, end, str(getattr(fact, "text")), p_raw(fact))  # noqa: B009
