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
from citewise.answer.unit_context import DocFacts, context_years, unit_context
from citewise.core.search import SearchFilters, SearchResult
from citewise.index.manager import KBIndex
from citewise.ingest.editions import STALE_STATUS, SUPERSEDING
from citewise.ingest.regulation import effective_date, from_metadata, same_regulation

__all__ = [
    "EditionFacts",
    "edition_facts",
    "found_by_recall",
    "set_aside",
    "speaking_editions",
]


@dataclass(frozen=True, slots=True)
class EditionFacts:
    """What decides whether two documents are editions of one family, and which is older."""

    path: str
    title: str
    label: str  # the edition label or date a reader is shown ("" when none)
    regulation: str | None
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
        regulation=reg,
        effective=effective,
        year=max(years) if years else None,
        stale=str(meta.get("status", "")).strip().lower() in STALE_STATUS,
        supersedes=_relation_targets(meta, SUPERSEDING),
        superseded_by=_relation_targets(meta, ("superseded_by", "replaced_by")),
    )


def _replaces(new: EditionFacts, old: EditionFacts) -> bool:
    return old.path in new.supersedes or new.path in old.superseded_by


def _one_family(a: EditionFacts, b: EditionFacts) -> bool:
    if a.path == b.path:
        return False
    if _replaces(a, b) or _replaces(b, a):
        return True
    if a.regulation and b.regulation:
        return same_regulation(a.regulation, b.regulation)
    return edition_family(a.path) == edition_family(b.path)


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


def set_aside(
    cited: Iterable[str], found: Iterable[str], facts: Mapping[str, DocFacts]
) -> list[SetAsideJSON]:
    """Each document of ``found`` (recall's documents) that no citation quotes and that
    is an older edition of a cited document's family, with the newest cited edition that
    supersedes it, in path order."""
    cited_paths = list(dict.fromkeys(cited))
    mine = {p: edition_facts(facts.get(p) or DocFacts(p)) for p in cited_paths}
    out: list[SetAsideJSON] = []
    for path in sorted(set(found) - set(cited_paths)):
        old = edition_facts(facts.get(path) or DocFacts(path))
        newer = [e for e in mine.values() if _one_family(old, e) and _older(old, e)]
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
    index: KBIndex,
    filters: SearchFilters | None,
    cited: Iterable[str],
    terms: Iterable[str],
    facts: Mapping[str, DocFacts],
) -> list[str]:
    """The documents the caller may read (access and path scope) that are in the edition
    family of a cited document and hold every one of ``terms`` (stemmed, as
    :func:`~citewise.analysis.tokenize.tokenize` gives them) in one chunk."""
    want = set(terms)
    mine = [edition_facts(facts.get(p) or DocFacts(p)) for p in dict.fromkeys(cited)]
    kin = {
        p
        for p in facts
        if any(_one_family(edition_facts(facts[p]), e) for e in mine) and _in_scope(p, filters)
    }
    if not want or not kin:
        return []
    chunks = index.chunks
    principal = filters.principal if filters is not None else None
    ids = [c for c in index.readable(principal) if chunks[c].path in kin]
    texts = index.chunk_texts(ids)
    return sorted({chunks[c].path for c, t in texts.items() if want <= set(tokenize(t))})


def _in_scope(path: str, filters: SearchFilters | None) -> bool:
    prefixes = filters.path_prefixes if filters is not None else ()
    return not prefixes or any(path.startswith(p) for p in prefixes)
