"""Editions in recall: which editions a question may see (before ranking, like
authorization), the lookup of an edition the question names, and the regulation
reference every hit, fragment and citation carries.

Modes (``SearchFilters.current_only``): ``None`` (default) leaves out regulation editions
that are superseded, not yet in force or withdrawn, unless the question names the edition
it wants ("§ 1002.4(b) of the 2017 edition", "ISO 13485:2016 clause 7.3.2"); ``True``
leaves out every such edition and every stale document, named or not; ``False`` keeps all
(superseded editions are only ranked lower). ``as_of`` (or, by default, a date the
question states: "as of 1 June 2019") judges the editions on that day instead of today.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from citewise.analysis.asof import as_of_in_question, parse_as_of
from citewise.core.search import Abstention, SearchFilters
from citewise.core.stored import ClauseMatch, StoredChunk
from citewise.index.manager import KBIndex
from citewise.ingest.editions import EXCLUDED, Edition, Status, edition_of, edition_status
from citewise.ingest.regulation import (
    edition_matches,
    editions_named,
    regulation_ids,
    same_regulation,
)
from citewise.recall import summaries
from citewise.recall.identifiers import clause_refs


@dataclass(frozen=True, slots=True)
class EditionScope:
    editions: Mapping[str, Edition] = field(default_factory=dict)  # by path
    status: Mapping[str, Status] = field(default_factory=dict)
    excluded: frozenset[str] = frozenset()  # paths left out before ranking
    #: Paths the identifier route is held to (the edition the question names), or None.
    named_paths: frozenset[str] | None = None
    info: dict[str, Any] | None = None
    abstention: Abstention | None = None

    def named_clause(self) -> str | None:
        """The clause the question names in an edition it names, when that edition has it."""
        lookup = (self.info or {}).get("lookup")
        if lookup and lookup.get("outcome") == "found" and lookup.get("clause"):
            return str(lookup["clause"])
        return None

    def reference(self, path: str, clause: str | None) -> dict[str, Any] | None:
        """Regulation, edition, clause, effective date and status of text in ``path``."""
        e = self.editions.get(path)
        if e is None:
            return None
        return {
            "regulation": e.regulation,
            "edition": e.label,
            "clause": clause,
            "effective_date": e.effective.isoformat() if e.effective else None,
            "status": self.status.get(path),
        }


def _today() -> date:
    return datetime.now(UTC).date()


def _editions(index: KBIndex, principal: str | None) -> dict[str, Edition]:
    readable, chunks = index.readable(principal), index.chunks

    def compute() -> dict[str, Edition]:
        docs: dict[str, StoredChunk] = {}
        for cid in sorted(readable):
            c = chunks[cid]
            docs.setdefault(c.path, c)
        out = {}
        for path, c in sorted(docs.items()):
            e = edition_of(path, c.metadata, c.breadcrumb.split(" > ")[0])
            if e is not None:
                out[path] = e
        return out

    return index.memo(("editions", index.classes(principal)), compute)


def edition_scope(
    index: KBIndex,
    query: str,
    filters: SearchFilters,
    find: Callable[[], list[ClauseMatch]] | None = None,
) -> EditionScope:
    """``find``: the store's matches of the query's clause references (the identifier route
    shares them; asked here only when the question names an edition and a clause)."""
    refs = clause_refs(query)
    find = find or (lambda: index.store.find_clauses(index.kb, refs))
    editions = _editions(index, filters.principal)
    mode = filters.current_only
    stated = as_of_in_question(query) if filters.as_of is None and mode is None else None
    as_of = parse_as_of(filters.as_of) if filters.as_of else stated
    on = as_of or _today()
    status = edition_status(editions.values(), on, today=as_of is None)
    stale = set(index.superseded_for(filters.principal)) if mode is True else set()
    # --as-of always judges editions on its date; "all editions" only switches today's off
    filtering = mode is not False or as_of is not None
    excluded = {p for p, st in status.items() if st in EXCLUDED} if filtering else set()
    named, lookup, abstain = _named(query, editions, status, excluded, filters, as_of, find)
    if named and lookup and lookup["outcome"] == "found":
        # the question asks for that edition by name: the regulation's others are left out
        others = {p for p, e in editions.items() if p not in named and _same(e, named, editions)}
        excluded |= others
        if mode is None and as_of is None:
            excluded -= named
    excluded |= stale
    if not editions and not stale:
        return EditionScope()
    info: dict[str, Any] = {
        "mode": "all" if mode is False and as_of is None else "current_only",
        "as_of": on.isoformat(),
        "as_of_source": "filter" if filters.as_of else "question" if stated else "today",
        "excluded": [_left_out(p, status, named) for p in sorted(excluded)],
        "lookup": lookup,
    }
    return EditionScope(editions, status, frozenset(excluded), named, info, abstain)


def _left_out(
    path: str, status: Mapping[str, Status], named: frozenset[str] | None
) -> dict[str, str]:
    """One left-out document: its status and why (its status, or another edition named)."""
    st = status.get(path, "superseded")  # a stale document that is no regulation edition
    why = "another edition is named" if named and st not in EXCLUDED else st
    return {"path": path, "status": st, "reason": why}


def _same(e: Edition, named: frozenset[str], editions: Mapping[str, Edition]) -> bool:
    return any(same_regulation(e.regulation, editions[p].regulation) for p in named)


def _named(
    query: str,
    editions: Mapping[str, Edition],
    status: Mapping[str, Status],
    excluded: set[str],
    filters: SearchFilters,
    as_of: date | None,
    find: Callable[[], list[ClauseMatch]],
) -> tuple[frozenset[str] | None, dict[str, Any] | None, Abstention | None]:
    """The edition a question names and whether it holds the clause it names."""
    regs = [r for r, _ in regulation_ids(query)]
    labels = sorted(editions_named(query))
    if not labels:
        return None, None, None
    label = labels[0]
    pool = [
        e
        for e in editions.values()
        if not regs or any(same_regulation(e.regulation, r) for r in regs)
    ]
    which = (
        regs[0]
        if regs
        else (
            pool[0].regulation
            if len({e.regulation for e in pool}) == 1 and pool
            else "the regulation"
        )
    )
    hits = [e for e in pool if edition_matches(e.label, e.effective, label)]
    by_label = [e for e in hits if e.label and edition_matches(e.label, None, label)]
    exact = [e for e in hits if e.label and e.label.lower() == label.lower()]
    hits = exact or by_label or hits  # a label says more than an effective year
    if len({e.regulation for e in hits}) == 1:
        which = hits[0].regulation
    refs = clause_refs(query)
    named = _named_clauses(refs)
    lookup: dict[str, Any] = {
        "regulation": which,
        "edition": label,
        "clause": named[0] if named else None,
    }
    if not hits:
        known = ", ".join(
            f"{e.label or 'unlabelled'} (effective {e.effective or 'unknown'})" for e in pool
        )
        reason = f"{which} has no {label} edition in this knowledge base (editions: {known})"
        return _failed(frozenset(), lookup, "edition_not_found", reason)
    paths = frozenset(e.path for e in hits)
    strict = filters.current_only is True or as_of is not None
    if strict and paths <= excluded:
        st = status[sorted(paths)[0]]
        switch = "current-only" if as_of is None else f"--as-of {as_of}"
        reason = (
            f"the {label} edition of {which} is {st} on {as_of or _today()}, and {switch} "
            "leaves it out (ask with --all-editions, or without --as-of, to read it)"
        )
        return _failed(paths, lookup, "edition_excluded", reason)
    if named:
        holds = [m for m in find() if m.clause_path in named and m.path in paths]
        if not regs and holds:  # no regulation named: the editions that hold the clause
            paths = frozenset(m.path for m in holds)
            left = {editions[p].regulation for p in paths}
            which = lookup["regulation"] = left.pop() if len(left) == 1 else which
        missing = [c for c in named if c not in {m.clause_path for m in holds}]
        if missing:
            reason = f"clause {missing[0]} does not exist in the {label} edition of {which}"
            return _failed(paths, lookup, "clause_not_in_edition", reason)
    where = ", ".join(sorted(paths))
    return paths, {**lookup, "outcome": "found", "reason": f"the {label} edition is {where}"}, None


def _named_clauses(refs: list[str]) -> list[str]:
    """The clauses a query names itself (not the parents :func:`clause_refs` adds)."""
    return [r for r in refs if not any(o != r and o.startswith(r + "(") for o in refs)]


def _failed(
    paths: frozenset[str], lookup: dict[str, Any], outcome: str, reason: str
) -> tuple[frozenset[str], dict[str, Any], Abstention]:
    return paths, {**lookup, "outcome": outcome, "reason": reason}, Abstention(reason, outcome)


def summary_boosts(index: KBIndex, query: str, eds: EditionScope) -> frozenset[str]:
    """Edition paths whose stored summary matches the question (recall/summaries.py); the
    summaries used are listed in ``eds.info["summaries"]``. Never evidence."""
    if not eds.editions or eds.info is None:
        return frozenset()
    stored = summaries.load(summaries.summaries_path(index.dir))
    paths, used = summaries.matching_paths(stored, query, dict(eds.editions))
    if used:
        eds.info["summaries"] = used
    return paths - eds.excluded


def hit_clause(index: KBIndex, chunk: StoredChunk, matched: str | None = None) -> str | None:
    """The clause path of a chunk: the one the identifier route matched in it, else that
    of its first node with one."""
    if matched is not None:
        return matched
    span = [(chunk.char_start, chunk.char_end)]
    nodes = index.nodes_near(chunk.path, chunk.version_id, span).nodes
    by_id = {n.id: n for n in nodes}
    for nid in chunk.node_ids:
        n = by_id.get(nid)
        if n is not None and n.clause_path:
            return n.clause_path
    return None
