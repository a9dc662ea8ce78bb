"""Rows and state of the toy in-memory backend (see :mod:`tests.memstore`)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from citewise.core.records import Chunk, Node, sha256_text, stable_id
from citewise.core.stored import IngestAction, RevisionInfo
from citewise.errors import CorruptContent, DocumentNotFound, KBNotFound
from citewise.store import checks

DEFAULT_KB = "default"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Doc:
    doc_id: str
    kb: str
    path: str
    head: int  # vid of the newest version (may be a deletion)


@dataclass(frozen=True)
class Content:
    doc_id: str
    sha: str
    text: str
    nodes: tuple[Node, ...]
    chunks: tuple[Chunk, ...]


@dataclass(frozen=True)
class Version:
    vid: int
    doc_id: str
    number: int
    action: IngestAction
    content: int | None  # content id; None for deletions
    content_sha: str
    raw: bytes | None
    raw_sha: str
    format: str
    title: str
    metadata: str  # JSON, so the row stays immutable
    source: str
    restored_from: int | None
    rev_added: int
    rev_removed: int | None
    created_at: str


@dataclass
class State:
    kbs: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (description, at)
    revisions: dict[tuple[str, int], RevisionInfo] = field(default_factory=dict)
    docs: dict[str, Doc] = field(default_factory=dict)
    contents: dict[int, Content] = field(default_factory=dict)
    versions: dict[int, Version] = field(default_factory=dict)
    batches: dict[str, int | None] = field(default_factory=dict)
    ledger: list[tuple[int, str, str | None, str, str, str, str, str]] = field(default_factory=list)
    checkpoints: list[str] = field(default_factory=list)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    next_id: int = 1
    marks: int = 0  # takedowns and expiries so far (they move the generation)

    def copy(self) -> State:
        return State(**{f.name: _copy(getattr(self, f.name)) for f in dataclasses.fields(self)})

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    # -- lookups shared by reads and writes ---------------------------------------
    def require_kb(self, kb: str) -> None:
        if kb not in self.kbs:
            checks.check_kb_name(kb)
            raise KBNotFound(f"No knowledge base named {kb!r}.", hint="Create it first.")

    def head_rev(self, kb: str) -> RevisionInfo | None:
        revs = [r for (k, _), r in self.revisions.items() if k == kb]
        return max(revs, key=lambda r: r.revision, default=None)

    def doc(self, kb: str, path: str) -> Doc:
        self.require_kb(kb)
        got = self.docs.get(stable_id("d", kb, path))
        if got is None:
            raise DocumentNotFound(f"No document {path!r} in knowledge base {kb!r}.")
        return got

    def current(self, kb: str) -> list[tuple[Doc, Version]]:
        """Live documents of ``kb`` with their head version, by path."""
        rows = [(d, self.versions[d.head]) for d in self.docs.values() if d.kb == kb]
        return sorted(((d, v) for d, v in rows if v.action != "deleted"), key=lambda t: t[0].path)

    def version(self, doc_id: str, number: int) -> Version | None:
        found = [v for v in self.versions.values() if v.doc_id == doc_id and v.number == number]
        return found[0] if found else None

    def members(self, kb: str, rev: int) -> list[tuple[str, str]]:
        return [
            (self.docs[v.doc_id].path, v.content_sha)
            for v in self.versions.values()
            if self.docs[v.doc_id].kb == kb
            and v.rev_added <= rev
            and (v.rev_removed is None or v.rev_removed > rev)
        ]


def _copy(value: Any) -> Any:
    return value.copy() if isinstance(value, dict | list) else value


def verify_node(n: Node, c: Content) -> None:
    ok = (
        sha256_text(n.text) == n.sha256
        and c.text[n.char_start : n.char_end] == n.text
        and sha256_text(c.text) == c.sha
    )
    if not ok:
        raise CorruptContent(f"Stored text of node {n.id} no longer matches its recorded sha256.")


class MemTx:
    """One lock and one state; a write works on a copy swapped in only on success."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._state = State()
        self._state.kbs[DEFAULT_KB] = ("The default knowledge base.", now())

    @contextmanager
    def write(self) -> Iterator[State]:
        """A transaction: changes to the yielded copy are kept only if the block succeeds."""
        with self._lock:
            draft = self._state.copy()
            yield draft
            self._state = draft

    @contextmanager
    def read(self) -> Iterator[State]:
        with self._lock:
            yield self._state
