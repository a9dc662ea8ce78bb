"""Dual-source verification of an answer's citations.

For each citation, :class:`WebVerifier` maps it to a clause reference (regulation, edition,
clause path; :mod:`citewise.web.refs`), searches the configured engine with the minimal
terms, fetches the allowlisted results through the SSRF-safe fetcher, keeps each page as a
snapshot, finds the same clause path on a page about the same regulation, compares the
texts and decides the state (:func:`citewise.web.states.decide`). One search per clause
reference, however often it is cited. Everything asked and fetched is kept in
:class:`VerificationRun` so the ledger can replay it offline (:mod:`citewise.web.replay`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from citewise.answer.models import Citation, Claim
from citewise.errors import SearchUnavailable, SnapshotWithheld, WebError
from citewise.web.compare import Comparison, compare
from citewise.web.fetcher import Fetcher
from citewise.web.refs import ClauseRef, EditionSource, editions_named, regulation_ids
from citewise.web.refs import same_regulation as _same_reg
from citewise.web.search import SearchProvider, clause_query, key_terms
from citewise.web.snapshot import SnapshotStore, WebSnapshot, snapshot_of, snippet_confirmed
from citewise.web.states import EditionMatch, Evidence, State, WebOutcome, decide

SUPPORTING = frozenset({"supported", "notice"})


@dataclass(frozen=True, slots=True)
class WebFinding:
    outcome: WebOutcome
    snapshot: WebSnapshot | None = None
    clause_text: str = ""
    edition: str | None = None
    edition_match: EditionMatch = "unknown"
    note: str = ""  # why pages were left out (a withheld address), added to the reason

    def to_json(self, ref: ClauseRef) -> dict[str, Any] | None:
        if self.snapshot is None:
            return None
        return self.snapshot.ref | {
            "regulation": ref.regulation,
            "edition": self.edition,
            "clause": ref.clause_path,
            "text": self.clause_text,
        }


@dataclass(frozen=True, slots=True)
class CitationCheck:
    number: int | None
    citation_id: str | None
    state: State
    reason: str
    ref: ClauseRef | None
    kb: dict[str, Any] | None
    web: dict[str, Any] | None
    comparison: Comparison | None

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "reason": self.reason,
            "reference": self.ref.to_json() if self.ref else None,
            "kb_evidence": self.kb,
            "web_evidence": self.web,
            "comparison": self.comparison.to_json() if self.comparison else None,
        }


@dataclass
class VerificationRun:
    checks: list[CitationCheck] = field(default_factory=list)
    searches: list[dict[str, Any]] = field(default_factory=list)
    fetches: list[dict[str, Any]] = field(default_factory=list)
    max_pages: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "max_pages": self.max_pages,
            "searches": self.searches,
            "fetches": self.fetches,
            "comparisons": [
                {"citation": c.citation_id, "number": c.number} | c.to_json() for c in self.checks
            ],
        }


class WebVerifier:
    def __init__(
        self,
        provider: SearchProvider,
        fetcher: Fetcher,
        snapshots: SnapshotStore | None = None,
        *,
        max_pages: int = 3,
    ) -> None:
        self.provider, self.fetcher, self.snapshots = provider, fetcher, snapshots
        self.max_pages = max_pages

    def verify(
        self, citations: Sequence[Citation], support: Mapping[int, bool], editions: EditionSource
    ) -> VerificationRun:
        """Check each citation; ``support`` says, by citation number, whether a kept claim
        the citation is cited for is supported by it (:func:`support_by_number`)."""
        run = VerificationRun()
        cache: dict[ClauseRef, WebFinding] = {}
        for c in citations:
            ref = editions.clause_ref(c)
            run.checks.append(self._check(run, cache, c, ref, support.get(c.number, False)))
        return run

    def check_reference(self, ref: ClauseRef, run: VerificationRun) -> CitationCheck:
        """A clause the knowledge base does not hold (named in a question): web only."""
        finding = self._lookup(run, ref, "")
        match = finding.edition_match
        if ref.edition is None and finding.edition is not None:
            match = "same"  # nothing to compare with: the page's own edition is the one
        evidence = Evidence(True, False, True, ref.edition is not None, finding.outcome, match)
        state, why = decide(evidence)
        check = CitationCheck(None, None, state, why, ref, None, finding.to_json(ref), None)
        run.checks.append(check)
        return check

    def _check(
        self,
        run: VerificationRun,
        cache: dict[ClauseRef, WebFinding],
        c: Citation,
        ref: ClauseRef | None,
        supports: bool,
    ) -> CitationCheck:
        kb = {"citation": c.id, "sha256": c.sha256, "path": c.path, "version_id": c.version_id,
              "text": c.excerpt} | ({"edition": ref.edition} if ref else {})  # fmt: skip
        if ref is None:
            state, why = decide(Evidence(False, True, supports, False, "no_clause"))
            return CitationCheck(c.number, c.id, state, why, None, kb, None, None)
        base = Evidence(True, True, supports, ref.edition is not None, "no_clause")
        state, why = decide(base)
        if state in ("unverified", "edition_unresolved"):  # decided before any web request
            return CitationCheck(c.number, c.id, state, why, ref, kb, None, None)
        if ref not in cache:
            cache[ref] = self._lookup(run, ref, c.excerpt)
        finding = cache[ref]
        cmp = compare(c.excerpt, finding.clause_text) if finding.outcome == "found" else None
        evidence = Evidence(True, True, supports, True, finding.outcome, finding.edition_match,
                            bool(cmp and cmp.matches))  # fmt: skip
        state, why = decide(evidence)
        why = f"{why} ({finding.note})" if finding.note else why
        return CitationCheck(c.number, c.id, state, why, ref, kb, finding.to_json(ref), cmp)

    def _lookup(self, run: VerificationRun, ref: ClauseRef, kb_text: str) -> WebFinding:
        run.max_pages = self.max_pages
        query = clause_query(ref, key_terms(kb_text) if kb_text else [])
        try:
            outcome = self.provider.search(query)
        except SearchUnavailable as exc:
            run.searches.append({"query": query, "error": exc.code, "message": str(exc)})
            return WebFinding("unavailable")
        run.searches.append(outcome.to_json())
        failed = 0
        held: list[str] = []
        found: list[WebFinding] = []
        for hit in outcome.hits[: self.max_pages]:
            try:
                self._not_taken_down(hit.url)
                page = self.fetcher.fetch(hit.url)
                self._not_taken_down(page.final_url)
            except WebError as exc:
                failed += 1
                if isinstance(exc, SnapshotWithheld):
                    held.append(exc.message)
                run.fetches.append({"url": hit.url, "error": exc.code, "message": str(exc)})
                continue
            snap = snapshot_of(page)
            if self.snapshots is not None:
                self.snapshots.put(snap, page.body)
            run.fetches.append(
                snap.ref | {"status": snap.status, "content_type": snap.content_type,
                            "address": page.address, "snippet": hit.snippet,
                            "snippet_confirmed": snippet_confirmed(hit.snippet, snap)}
            )  # fmt: skip
            finding = _finding(snap, ref)
            if finding is not None:
                found.append(finding)
        if found:
            order: dict[EditionMatch, int] = {"same": 0, "different": 1, "unknown": 2}
            return min(found, key=lambda f: order[f.edition_match])
        return WebFinding("unavailable" if failed else "no_clause", note="; ".join(held))

    def _not_taken_down(self, url: str) -> None:
        """A taken-down address is neither fetched nor kept (governance/web_withhold.py)."""
        mark = self.snapshots.address_mark(url) if self.snapshots is not None else None
        if mark is not None:
            raise SnapshotWithheld(url, str(mark.get("kind")), str(mark.get("reason")))


def support_by_number(claims: Sequence[Claim]) -> dict[int, bool]:
    """Citation number (as in the public answer) -> whether a kept claim citing it is
    supported. An answer's claims keep their pre-release numbers; the public citations are
    those the kept claims use, renumbered in ascending order (answer.pipeline.finish)."""
    kept = [c for c in claims if c.kept]
    used = sorted({n for c in kept for n in c.citations})
    renumber = {old: new for new, old in enumerate(used, start=1)}
    out: dict[int, bool] = {}
    for claim in kept:
        for n in claim.citations:
            out[renumber[n]] = out.get(renumber[n], False) or claim.verdict in SUPPORTING
    return out


def _finding(snap: WebSnapshot, ref: ClauseRef) -> WebFinding | None:
    """The clause on this page, if the page is about ``ref``'s regulation and has it."""
    head = f"{snap.title}\n{snap.text}"
    if not any(_same_reg(reg, ref.regulation) for reg, _ in regulation_ids(head)):
        return None
    clause = snap.clauses.get(ref.clause_path)
    if not clause:
        return None
    labels = editions_named(head, ref.regulation)
    match: EditionMatch = "unknown"
    edition = next(iter(labels)) if len(labels) == 1 else None
    if edition is not None and ref.edition is not None:
        match = "same" if edition.strip().lower() == ref.edition.strip().lower() else "different"
    return WebFinding("found", snap, clause, edition, match)
