"""The context every candidate unit is read with (issue 34): its document's title, path,
file kind, edition and date, its section path, its page and, for a table row, the
table's column headers.

A sentence rarely repeats where it stands: "Providers must encrypt data at rest." is the
2013 edition's rule because its *document* is the 2013 edition; a spreadsheet row is the
spreadsheet's. The question's scope (:mod:`citewise.analysis.scope`) and its years are
matched against this record (:func:`scope_unmet`, :func:`context_text`), never demanded
from the sentence alone.

:func:`document_facts` reads each current document's title and metadata once per index
state (from its first chunk, as :mod:`citewise.recall.editions` does);
:func:`unit_context` builds the record for one unit from them, and :func:`context_text`
is its plain-text form for word and year matching (the answerability score joins it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citewise.analysis.scope import FILE_KINDS, Scope, edition_family, kind_of_path
from citewise.analysis.tokenize import tokenize
from citewise.evidence.models import Fragment

if TYPE_CHECKING:
    from citewise.index.manager import KBIndex

__all__ = [
    "DocFacts",
    "UnitContext",
    "context_text",
    "document_contexts",
    "document_facts",
    "edition_family",
    "fragment_context",
    "in_scope",
    "newest_editions",
    "scope_unmet",
    "section_met",
    "source_met",
    "unit_context",
]

#: Metadata keys that carry a document's edition or date (front matter, sidecars,
#: regulation editions): their values are context, as the title is.
DATE_KEYS = (
    "edition",
    "version",
    "release",
    "revision",
    "date",
    "year",
    "published",
    "effective",
    "effective_date",
    "issued",
    "updated",
    "created",
    "modified",
)


@dataclass(frozen=True, slots=True)
class DocFacts:
    """What a document says about itself: title, path and metadata (one per path)."""

    path: str
    title: str = ""
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class UnitContext:
    """Where one candidate unit stands. ``file_kind`` is a key of
    :data:`~citewise.analysis.scope.FILE_KINDS` ("" for other files); ``edition`` and
    ``date`` are the document's own (metadata, regulation edition), "" when unknown;
    ``page`` the page the unit is on when the format has pages; ``columns`` a table row's
    column headers."""

    title: str
    path: str
    file_kind: str = ""
    edition: str = ""
    date: str = ""
    section: tuple[str, ...] = ()
    page: str = ""
    columns: tuple[str, ...] = ()


def document_facts(index: KBIndex) -> dict[str, DocFacts]:
    """Every current document's :class:`DocFacts` by path, read once per index state."""
    chunks = index.chunks

    def compute() -> dict[str, DocFacts]:
        out: dict[str, DocFacts] = {}
        for cid in sorted(chunks):
            c = chunks[cid]
            if c.path not in out:
                out[c.path] = DocFacts(c.path, c.breadcrumb.split(" > ")[0], c.metadata)
        return out

    return index.memo("unit-context-docs", compute)


def unit_context(
    facts: DocFacts,
    section: tuple[str, ...] = (),
    *,
    regulation: Mapping[str, Any] | None = None,
    locator: Mapping[str, Any] | None = None,
    columns: tuple[str, ...] = (),
) -> UnitContext:
    """The :class:`UnitContext` of a unit of the document ``facts`` describe, in
    ``section``; ``regulation`` and ``locator`` are the fragment's own (edition and
    effective date of a regulation edition; the page in the original file)."""
    meta = facts.metadata or {}
    reg = regulation or {}
    edition = str(reg.get("edition") or _first(meta, DATE_KEYS[:4]))
    date = str(reg.get("effective_date") or _first(meta, DATE_KEYS[4:]))
    page = (locator or {}).get("page")
    return UnitContext(
        title=facts.title,
        path=facts.path,
        file_kind=kind_of_path(facts.path),
        edition=edition,
        date=date,
        section=section,
        page="" if page is None else str(page),
        columns=columns,
    )


def _first(meta: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    for k in keys:
        v = meta.get(k)
        if isinstance(v, (str, int, float)) and str(v).strip():
            return str(v).strip()
    return ""


def context_text(ctx: UnitContext) -> str:
    """The context as one line of text: title, path (its separators as spaces), the
    file kind with the words that name it, edition, date, section path and column
    headers. Word and year matching read this; nothing of it is ever quoted."""
    kind_words = " ".join(FILE_KINDS[ctx.file_kind][0]) if ctx.file_kind else ""
    path = re.sub(r"[/_.\-]+", " ", ctx.path)
    parts = [ctx.title, path, kind_words, ctx.edition, ctx.date, *ctx.section, *ctx.columns]
    return " \n".join(p for p in parts if p)


#: How a refusal names a file kind ("no passage found in a spreadsheet").
_KIND_NAMES = {"pdf": "a PDF", "slides": "slides", "ebook": "an e-book"}

_YEAR_IN = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")


def context_years(ctx: UnitContext) -> frozenset[str]:
    """The years the context names (in the title, path, edition, date or section)."""
    return frozenset(_YEAR_IN.findall(context_text(ctx)))


def scope_unmet(scope: Scope, ctx: UnitContext) -> tuple[str, ...]:
    """The parts of a question's document scope that the unit's context does not meet:
    a named file kind, edition or source document ("" parts none). Years alone are no
    document scope (a year may be in the sentence: :mod:`citewise.answer.admission`)."""
    out: list[str] = []
    if scope.kinds and ctx.file_kind not in scope.kinds:
        out.append(" or ".join(_KIND_NAMES.get(k, f"a {k}") for k in scope.kinds))
    missing = [e for e in scope.editions if not _edition_met(e, ctx)]
    if missing:
        out.append(f"the {' or '.join(missing)} edition")
    if scope.source and not source_met(scope.source, ctx):
        out.append(f"the document {scope.source}")
    return tuple(out)


def _edition_met(edition: str, ctx: UnitContext) -> bool:
    """Whether the context names ``edition``: a year as a year of its title, path,
    edition or date; "version 2" as ``v2``/``version 2``/``2.0`` in its title, path or
    edition label; an ordinal edition by its words."""
    if edition.isdigit():
        return edition in context_years(ctx)
    number = edition.rpartition(" ")[2]
    text = context_text(ctx).lower()
    if number.isdigit() or re.fullmatch(r"\d+(?:\.\d+)*", number):
        n = re.escape(number)
        pat = rf"(?<![\w.])(?:v|version|rev|revision|release|edition)?\s?{n}(?:\.0)*(?![\w]|\.\d)"
        return re.search(pat, text) is not None
    return edition.lower() in text  # an ordinal edition by its words: "2nd edition"


def source_met(source: str, ctx: UnitContext) -> bool:
    """Whether the document named ``source`` ("Bigtable", "Privacy Act") is this unit's:
    at least half of the name's index tokens are in the document's title or path."""
    want = set(tokenize(source))
    if not want:
        return True
    have = set(tokenize(f"{ctx.title} {re.sub(r'[/_.-]+', ' ', ctx.path)}"))
    return 2 * len(want & have) >= len(want)


def fragment_context(f: Fragment, facts: Mapping[str, DocFacts]) -> UnitContext:
    """The context a fragment's units share (its document and section)."""
    doc = facts.get(f.path) or DocFacts(f.path)
    return unit_context(doc, f.heading_path, regulation=f.regulation, locator=f.locator)


def in_scope(
    fragments: Sequence[Fragment], scope: Scope, facts: Mapping[str, DocFacts]
) -> tuple[list[Fragment], tuple[str, ...]]:
    """The fragments of the documents a question's scope names, and what no fragment met.

    A named file kind or edition restricts the candidates to the documents that are it;
    when none is, nothing is kept and the unmet parts are returned (the answer would
    come from another edition or file than the one asked about). A named source document
    restricts them only when some fragment's document is it: a name that is no title
    ("according to the maintainers") stays a term the answer must hold. A named section
    ("in the Quickstart section") restricts them to the fragments under it, when any is.
    """
    if not fragments:
        return [], ()
    scope = scope.held({kind_of_path(p) for p in facts})  # kinds no document is: subject
    kept = newest_editions(fragments, facts) if scope.newest and not scope.editions else []
    kept = kept or list(fragments)
    if not (scope.restricts or scope.section):
        return kept, ()
    if scope.kinds or scope.editions:
        plain = Scope(kinds=scope.kinds, editions=scope.editions)
        kept = [f for f in kept if not scope_unmet(plain, fragment_context(f, facts))]
        if not kept:
            return [], scope_unmet(plain, fragment_context(fragments[0], facts))
    if scope.source:
        named = [f for f in kept if source_met(scope.source, fragment_context(f, facts))]
        kept = named or kept
    if scope.section:
        headed = [f for f in kept if section_met(scope.section, f.heading_path)]
        kept = headed or kept
    return kept, ()


def section_met(section: str, heading_path: Sequence[str]) -> bool:
    """Whether a section named ``section`` ("Quickstart") is on ``heading_path``: at
    least half of the name's index tokens are in one of its headings."""
    want = set(tokenize(section))
    if not want:
        return False
    return any(2 * len(want & set(tokenize(h))) >= len(want) for h in heading_path)


def newest_editions(fragments: Sequence[Fragment], facts: Mapping[str, DocFacts]) -> list[Fragment]:
    """The fragments a "current"/"latest" question may quote: of each family of editions
    among them (:func:`edition_family`, two documents at least, each naming a year), those
    of the edition with the newest year; every other fragment stays."""
    year: dict[str, int] = {}
    for f in fragments:
        doc = facts.get(f.path) or DocFacts(f.path)  # the document's years, not a section's
        years = context_years(unit_context(doc, regulation=f.regulation))
        if years:
            year[f.path] = max(int(y) for y in years)
    family: dict[str, list[str]] = {}
    for path in year:
        family.setdefault(edition_family(path), []).append(path)
    older = {
        p
        for paths in family.values()
        if len(paths) > 1
        for p in paths
        if year[p] < max(year[q] for q in paths)
    }
    return [f for f in fragments if f.path not in older]


def document_contexts(index: KBIndex, paths: Iterable[str]) -> dict[str, str]:
    """The document-level :func:`context_text` (title, path, file kind, edition, date; no
    section) of each of ``paths``: what the presence checks count as present beside the
    passages of that document."""
    facts = document_facts(index)
    return {
        p: context_text(unit_context(facts.get(p) or DocFacts(p))) for p in dict.fromkeys(paths)
    }
