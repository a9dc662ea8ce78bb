"""Offline replay of a recorded web verification.

The ``web_verification`` ledger event keeps every search (query as sent, allowlisted hits or
the error) and every fetch (snapshot hash, or the error). :class:`RecordedSearch` and
:class:`RecordedFetcher` answer from that record and the snapshot store instead of the
network, so running the same :class:`~citewise.web.verify.WebVerifier` again reproduces the
comparisons and states without a single request; :func:`replay_states` does that for a
saved answer and says where the replay differs.
"""

from __future__ import annotations

from typing import Any

from citewise.answer.models import Answer, Citation
from citewise.errors import FetchFailed, NotFoundError, SearchUnavailable, SnapshotWithheld
from citewise.store.protocol import Store
from citewise.web.fetcher import FetchedPage, Fetcher
from citewise.web.refs import EditionSource, MetadataEditions
from citewise.web.search import SearchHit, SearchOutcome
from citewise.web.snapshot import SnapshotStore
from citewise.web.verify import WebVerifier, support_by_number


class RecordedSearch:
    def __init__(self, record: dict[str, Any]) -> None:
        self._by_query = {str(s["query"]): s for s in record.get("searches") or ()}

    def search(self, query: str) -> SearchOutcome:
        rec = self._by_query.get(query)
        if rec is None:
            raise NotFoundError(f"The recorded verification never searched {query!r}.")
        if "error" in rec:
            raise SearchUnavailable(str(rec.get("message", rec["error"])))
        hits = tuple(SearchHit(h["url"], h["title"], h["snippet"]) for h in rec["hits"])
        return SearchOutcome(str(rec["engine"]), query, hits, tuple(rec.get("dropped") or ()))


class RecordedFetcher:
    """Pages from the record's snapshots. A withheld snapshot (issue 38) is never reused:
    with ``live`` (the second source configured) the page is fetched again, else the
    replay fails with SNAPSHOT_WITHHELD naming the reason."""

    def __init__(
        self, record: dict[str, Any], snapshots: SnapshotStore, live: Fetcher | None = None
    ) -> None:
        self._by_url = {str(f["url"]): f for f in record.get("fetches") or ()}
        self._snapshots, self._live = snapshots, live

    def fetch(self, url: str) -> FetchedPage:
        rec = self._by_url.get(url)
        if rec is None:
            raise NotFoundError(f"The recorded verification never fetched {url}.")
        if "error" in rec:
            raise FetchFailed(f"(recorded) {rec.get('message', rec['error'])}")
        try:
            self._snapshots.check_not_withheld(str(rec["sha256"]))
        except SnapshotWithheld:
            if self._live is None:
                raise
            return self._live.fetch(url)
        snap = self._snapshots.get(str(rec["sha256"]))
        return FetchedPage(
            url,
            snap.final_url,
            snap.status,
            snap.content_type,
            None,
            self._snapshots.body(snap.sha256),
            snap.fetched_at,
            str(rec.get("address", "")),
        )


def replay_states(
    record: dict[str, Any],
    snapshots: SnapshotStore,
    citations: tuple[Citation, ...],
    support: dict[int, bool],
    editions: EditionSource,
    live: Fetcher | None = None,
) -> list[tuple[str | None, str, str]]:
    """(citation id, recorded state, replayed state) for every comparison of ``record``.
    Without ``live``, a recorded page whose snapshot is withheld fails the replay with
    SNAPSHOT_WITHHELD (its reason) rather than verify anything from it."""
    if live is None:
        for f in record.get("fetches") or ():
            if "sha256" in f:
                snapshots.check_not_withheld(str(f["sha256"]))
    verifier = WebVerifier(
        RecordedSearch(record),
        RecordedFetcher(record, snapshots, live),
        snapshots if live is not None else None,
        max_pages=int(record.get("max_pages") or 3),
    )
    run = verifier.verify(citations, support, editions)
    recorded = {c["citation"]: c["state"] for c in record.get("comparisons") or ()}
    return [(c.citation_id, str(recorded.get(c.citation_id)), c.state) for c in run.checks]


def replayed_states(
    store: Store, kb: str, snapshots: SnapshotStore, record: dict[str, Any], answer: Answer
) -> list[list[str]]:
    """``[citation id, state]`` of ``answer``'s citations, verified again from ``record``
    (a saved answer's ``trace.web_verification``) and the snapshots: no network."""
    editions = MetadataEditions(store, kb)
    got = replay_states(
        record, snapshots, answer.citations, support_by_number(answer.claims), editions
    )
    return [[str(cid), state] for cid, _, state in got]
