"""Older editions set aside (issue 39): when the answer cites one edition of a document
family and recall also found an older edition of that family, the answer says so.

The class of text: two or more editions of one document among the documents recall
reached (its ranked hits, and the editions its edition filter left out before ranking,
``SearchResult.editions["excluded"]``), and the older editions of a cited document's
family that hold every subject term of the question in one passage (recall's
per-document cap can leave them below its cut when the newer edition fills it).

Two documents are editions of one family when one supersedes the other (a relation
``supersedes``/``replaces``/``repeals``/``obsoletes``, or ``superseded_by`` the other
way), when both are editions of one regulation (:mod:`citewise.ingest.regulation`), or
when their paths differ only by years, dates and version marks
(:func:`citewise.analysis.scope.edition_family`). The uncited one is older when the
cited one supersedes it, or it has the earlier effective date, or (neither dated) it
names the earlier year, or only it is marked superseded. Whatever dropped the older
edition (the edition filter, ranking, the evidence pack's selection), it is reported, in
the trace (``set_aside``) and as a line under the answer
(:func:`citewise.answer.wording.set_aside_lines`).

Chosen on ``examples/corpus`` (release notes 2023/2024) and the statute editions of the
tests; no benchmark corpus informed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from citewise.analysis.scope import edition_family
from citewise.analysis.tokenize import tokenize
from citewise.answer.models import EditionJSON, SetAsideJSON
from citewise.answer.units.context import DocFacts, context_years, document_facts, unit_context
from citewise.core.search import SearchFilters, SearchResult
from citewise.index.manager import KBIndex
from citewise.ingest.editions import STALE_STATUS, SUPERSEDING
from citewise.ingest.regulation import effective_date, from_metadata, regulation_key

__all__ = [
    "EditionFacts",
    "Editions",
    "edition_facts",
    "editions_of",
    "found_by_recall",
    "set_aside",
    "set_aside_in",
    "speaking_editions",
]


@dataclass(frozen=True, slots=True)
class EditionFacts:
    """What decides whether two documents are editions of one family, and which is older."""

    path: str
    title: str
    label: str  # the edition label or date a reader is shown ("" when none)
    regulation: str | None  # the regulation's comparison key (regulation_key), if any
    family: str  # the path without years, dates and version marks (edition_family)
    effective: date | None
    year: int | None  # the newest year the document's own context names
    stale: bool  # its metadata marks it superseded (or obsolete, archived ...)
    supersedes: frozenset[str]  # paths it replaces
    superseded_by: frozenset[str]  # paths that replace it (its own ``superseded_by``)

    def to_json(self) -> EditionJSON:
        return {"path": self.path, "title": self.title, "edition": self.label}


def _relation_targets(meta: Mapping[str, Any], kinds: Iterable[str]) -> frozenset[str]:
    wanted = set(kinds)
    return frozenset(
        str(rel.get("target", "")).lstrip("./")
        for rel in meta.get("relations") or ()
        if isinstance(rel, dict) and str(rel.get("type", "")).lower() in wanted
    )


def edition_facts(facts: DocFacts) -> EditionFacts:
    """The :class:`EditionFacts` of one document from its title, path and metadata."""
    meta = facts.metadata or {}
    reg, reg_label = from_metadata(meta, facts.title)
    ctx = unit_context(facts)
    effective = effective_date(meta)
    years = [int(y) for y in context_years(ctx)]
    label = reg_label or ctx.edition or (effective.isoformat() if effective else ctx.date)
    return EditionFacts(
        path=facts.path,
        title=facts.title,
        label=str(label or ""),
        regulation=regulation_key(reg) if reg else None,
        family=edition_family(facts.path),
        effective=effective,
        year=max(years) if years else None,
        stale=str(meta.get("status", "")).strip().lower() in STALE_STATUS,
        supersedes=_relation_targets(meta, SUPERSEDING),
        superseded_by=_relation_targets(meta, ("superseded_by", "replaced_by")),
    )


@dataclass(frozen=True, slots=True)
class Editions:
    """Every document's :class:`EditionFacts`, and who may share a family with whom: by
    family key, by regulation, and by relations either way (built once per index state)."""

    facts: Mapping[str, EditionFacts]
    by_family: Mapping[str, frozenset[str]]
    by_regulation: Mapping[str, frozenset[str]]
    related: Mapping[str, frozenset[str]]  # paths a relation joins to each path

    def kin(self, path: str) -> frozenset[str]:
        """The documents that may be editions of ``path``'s family (before
        :func:`_one_family` decides)."""
        e = self.facts.get(path)
        if e is None:
            return frozenset()
        out = self.by_family.get(e.family, frozenset()) | self.related.get(path, frozenset())
        if e.regulation:
            out |= self.by_regulation.get(e.regulation, frozenset())
        # a relation may name a path that is no document (yet): only documents are kin
        return frozenset(p for p in out if p != path and p in self.facts)


def editions_of(docs: Mapping[str, DocFacts]) -> Editions:
    """The :class:`Editions` of ``docs`` (pure; :func:`_editions` keeps it per state)."""
    facts = {p: edition_facts(d) for p, d in docs.items()}
    family: dict[str, set[str]] = {}
    regulation: dict[str, set[str]] = {}
    related: dict[str, set[str]] = {}
    for p, e in facts.items():
        family.setdefault(e.family, set()).add(p)
        if e.regulation:
            regulation.setdefault(e.regulation, set()).add(p)
        for other in e.supersedes | e.superseded_by:
            related.setdefault(p, set()).add(other)
            related.setdefault(other, set()).add(p)

    def frozen(m: dict[str, set[str]]) -> dict[str, frozenset[str]]:
        return {k: frozenset(v) for k, v in m.items()}

    return Editions(facts, frozen(family), frozen(regulation), frozen(related))


def _editions(index: KBIndex) -> Editions:
    return index.memo("edition-facts", lambda: editions_of(document_facts(index)))


def _replaces(new: EditionFacts, old: EditionFacts) -> bool:
    return old.path in new.supersedes or new.path in old.superseded_by


def _one_family(a: EditionFacts, b: EditionFacts) -> bool:
    if a.path == b.path:
        return False
    if _replaces(a, b) or _replaces(b, a):
        return True
    if a.regulation and b.regulation:
        return a.regulation == b.regulation
    return a.family == b.family


def _older(old: EditionFacts, new: EditionFacts) -> bool:
    """Whether ``old`` is an older edition than ``new`` (see the module docstring)."""
    if _replaces(new, old):
        return True
    if _replaces(old, new):
        return False
    if old.effective is not None and new.effective is not None:
        return old.effective < new.effective
    if old.year is not None and new.year is not None and old.year != new.year:
        return old.year < new.year
    return old.stale and not new.stale


def set_aside(cited: Iterable[str], found: Iterable[str], editions: Editions) -> list[SetAsideJSON]:
    """Each document of ``found`` (recall's documents) that no citation quotes and that
    is an older edition of a cited document's family, with the newest cited edition that
    supersedes it, in path order."""
    facts = editions.facts
    mine = [facts[p] for p in dict.fromkeys(cited) if p in facts]
    out: list[SetAsideJSON] = []
    for path in sorted(set(found) - {e.path for e in mine}):
        old = facts.get(path)
        if old is None:
            continue
        newer = [e for e in mine if _one_family(old, e) and _older(old, e)]
        if newer:
            by = max(newer, key=lambda e: (e.effective or date.min, e.year or 0, e.path))
            out.append({"set_aside": old.to_json(), "superseded_by": by.to_json()})
    return out


def found_by_recall(result: SearchResult | None) -> list[str]:
    """The documents recall reached: its hits' and the superseded editions its edition
    filter left out before ranking (``editions["excluded"]``), in that order."""
    if result is None:
        return []
    paths = [h.path for h in result.hits]
    for item in (result.editions or {}).get("excluded") or ():
        if item.get("status") == "superseded":
            paths.append(str(item["path"]))
    return list(dict.fromkeys(paths))


def speaking_editions(
    index: KBIndex, filters: SearchFilters | None, cited: Iterable[str], terms: Iterable[str]
) -> list[str]:
    """The documents the caller may read (access and path scope) that are in the edition
    family of a cited document and hold every one of ``terms`` (stemmed, as
    :func:`~citewise.analysis.tokenize.tokenize` gives them) in one chunk."""
    want = set(terms)
    eds = _editions(index)
    mine = [eds.facts[p] for p in dict.fromkeys(cited) if p in eds.facts]
    kin = {
        p
        for e in mine
        for p in eds.kin(e.path)
        if _one_family(eds.facts[p], e) and _in_scope(p, filters)
    }
    if not want or not kin:
        return []
    chunks = index.chunks
    principal = filters.principal if filters is not None else None
    ids = [c for c in index.readable(principal) if chunks[c].path in kin]
    texts = index.chunk_texts(ids)
    return sorted({chunks[c].path for c, t in texts.items() if want <= set(tokenize(t))})


def set_aside_in(
    index: KBIndex,
    filters: SearchFilters | None,
    cited: Iterable[str],
    terms: Iterable[str],
    recall: SearchResult | None,
) -> list[SetAsideJSON]:
    """The older editions set aside for an answer citing ``cited``: of those recall
    reached and those that speak to the question's subject ``terms``."""
    cited = list(cited)
    found = found_by_recall(recall) + speaking_editions(index, filters, cited, terms)
    return set_aside(cited, found, _editions(index))


def _in_scope(path: str, filters: SearchFilters | None) -> bool:
    prefixes = filters.path_prefixes if filters is not None else ()
    return not prefixes or any(path.startswith(p) for p in prefixes)
