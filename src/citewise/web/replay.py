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
from citewise.errors import FetchFailed, NotFoundError, SearchUnavailable
from citewise.store.protocol import Store
from citewise.web.fetcher import FetchedPage
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
    def __init__(self, record: dict[str, Any], snapshots: SnapshotStore) -> None:
        self._by_url = {str(f["url"]): f for f in record.get("fetches") or ()}
        self._snapshots = snapshots

    def fetch(self, url: str) -> FetchedPage:
        rec = self._by_url.get(url)
        if rec is None:
            raise NotFoundError(f"The recorded verification never fetched {url}.")
        if "error" in rec:
            raise FetchFailed(f"(recorded) {rec.get('message', rec['error'])}")
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
) -> list[tuple[str | None, str, str]]:
    """(citation id, recorded state, replayed state) for every comparison of ``record``."""
    verifier = WebVerifier(
        RecordedSearch(record),
        RecordedFetcher(record, snapshots),
        None,
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
