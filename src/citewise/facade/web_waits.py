"""The web verification step of an ask, waiting on the network without the server's lock.

An ask runs under the read side of the service lock; its opt-in web step then searches an
engine and fetches pages, each up to its own deadline. Held through those waits, the lock
would keep a writer out, and with it every later reader (the lock prefers writers). These
wrappers let the read hold go for exactly the network call and take it again after it; the
ask's pinned index state is its own, so what it reads stays the same meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from citewise.facade.rwlock import RWLock
from citewise.web.fetcher import FetchedPage, Fetcher
from citewise.web.search import SearchOutcome, SearchProvider
from citewise.web.verify import WebVerifier


@dataclass(frozen=True, slots=True)
class _SearchUnlocked:
    inner: SearchProvider
    lock: RWLock

    def search(self, query: str) -> SearchOutcome:
        with self.lock.released():
            return self.inner.search(query)


@dataclass(frozen=True, slots=True)
class _FetchUnlocked:
    inner: Fetcher
    lock: RWLock

    def fetch(self, url: str) -> FetchedPage:
        with self.lock.released():
            return self.inner.fetch(url)


def unlocked_waits(verifier: WebVerifier, lock: RWLock) -> WebVerifier:
    """``verifier`` whose searches and fetches run with ``lock``'s read hold let go."""
    verifier.provider = _SearchUnlocked(verifier.provider, lock)
    verifier.fetcher = _FetchUnlocked(verifier.fetcher, lock)
    return verifier
