"""Keeps one KB's derived indexes (BM25 segments, vectors) in step with the store.

The store is the source of truth: every add, replace or delete commits there in one
transaction. Before any search, :meth:`KBIndex.sync` compares the store's change
``generation`` with the one the indexes reflect and applies the difference (remove chunks
that left the current revision, add the new ones), so a deleted or replaced document can
never be returned, even if the process died between a commit and an index save.

Vectors are keyed by the encoder fingerprint: a changed fingerprint re-encodes everything,
while a chunk whose encoded text (same content hash) is already indexed under the same
fingerprint reuses its vector.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citewise.graph.build import KBGraph
from citewise.index.embedder import Embedder, Unavailable, probe
from citewise.index.lexical import LexicalIndex
from citewise.index.vectors import VectorIndex
from citewise.index.views import CallerViews
from citewise.ingest.editions import superseded_paths
from citewise.store.models import StoredChunk
from citewise.store.protocol import Store

EmbedderLoader = Callable[[], Embedder | Unavailable]
MANIFEST = "manifest.json"


_LOADED: list[Embedder | Unavailable] = []
_LOADING = threading.Lock()  # one load per process even when several KBs ask at once


def default_loader() -> Embedder | Unavailable:
    """The bundled MiniLM, loaded once per process (it is read-only and thread-safe)."""
    with _LOADING:
        if not _LOADED:
            from citewise.index.minilm import load_minilm

            _LOADED.append(load_minilm())
    return _LOADED[0]


_USE: list[Embedder | Unavailable] = []


def use_loader() -> Embedder | Unavailable:
    """The multilingual USE encoder (optional extra), loaded once per process."""
    with _LOADING:
        if not _USE:
            from citewise.index.multilingual import load_use

            _USE.append(load_use())
    return _USE[0]


#: Encoder name (``Settings.encoder``) -> loader.
LOADERS: dict[str, EmbedderLoader] = {"minilm": default_loader, "use": use_loader}


def dense_text(chunk: StoredChunk) -> str:
    """What the encoder sees: the heading breadcrumb, then the chunk's text."""
    return f"{chunk.breadcrumb}\n{chunk.search_text}" if chunk.breadcrumb else chunk.search_text


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class DenseState:
    status: str  # ok | unavailable | disabled
    reason: str = ""
    fingerprint: str = ""


@dataclass(frozen=True, slots=True)
class SyncReport:
    added: int
    removed: int
    encoded: int
    reused: int
    encode_seconds: float
    seconds: float


@dataclass(slots=True)
class IndexState:
    """One generation of a KB's derived indexes. Published whole, then only read: a sync
    builds the next state aside (on copies) and swaps it in with one assignment."""

    generation: str = ""
    revision: int = 0  # the KB's current revision when ``chunks`` were read
    chunks: dict[str, StoredChunk] = field(default_factory=dict)
    #: Paths of superseded editions (recall ranks them below current editions).
    superseded: frozenset[str] = frozenset()
    lexical: LexicalIndex = field(default_factory=LexicalIndex)
    vectors: VectorIndex | None = None
    keys: dict[str, str] = field(default_factory=dict)  # chunk id -> text key of its vector
    #: per-caller values derived from this state only (scope key -> chunk ids it may see,
    #: a principal's scoring population, superseded paths, revision view); only added to
    scopes: dict[object, Any] = field(default_factory=dict)


class KBIndex(CallerViews):
    """The lexical and dense indexes of one knowledge base, persisted under ``directory``.

    Safe to search from many threads. :meth:`sync` builds a new :class:`IndexState` aside
    under a lock and publishes it with one assignment, so a search never sees half an
    update. Inside :meth:`pinned` a thread keeps one state (and the graph that goes with
    it) for the whole request, whatever other threads or processes change meanwhile.
    """

    def __init__(
        self,
        store: Store,
        kb: str,
        directory: Path,
        *,
        dense: bool = True,
        loader: EmbedderLoader = default_loader,
    ) -> None:
        self.store, self.kb, self.dir = store, kb, directory
        self._dense_wanted, self._loader = dense, loader
        self._state = IndexState()
        self._sync_lock = threading.RLock()
        self._pin = threading.local()
        self.embedder: Embedder | None = None
        self.dense = DenseState("disabled", "dense route disabled by configuration")
        self._loaded = False
        self.graph = KBGraph(store, kb)  # structural knowledge graph, synced on use

    # -- the published state -------------------------------------------------------
    @property
    def state(self) -> IndexState:
        """The state this thread sees: its pinned one inside :meth:`pinned`, else the latest."""
        pinned: IndexState | None = getattr(self._pin, "state", None)
        return self._state if pinned is None else pinned

    @property
    def chunks(self) -> dict[str, StoredChunk]:
        return self.state.chunks

    @property
    def revision(self) -> int:
        return self.state.revision

    @property
    def superseded(self) -> frozenset[str]:
        return self.state.superseded

    @property
    def lexical(self) -> LexicalIndex:
        return self.state.lexical

    @property
    def vectors(self) -> VectorIndex | None:
        return self.state.vectors

    @contextmanager
    def pinned(self) -> Iterator[IndexState]:
        """Sync, then keep this thread on that state and its graph until the block ends.

        Inside, :meth:`sync` and ``graph.sync()`` change nothing and return the pinned
        state, so one request reads one generation throughout. Re-entrant.
        """
        held: IndexState | None = getattr(self._pin, "state", None)
        if held is not None:
            yield held
            return
        for _ in range(3):  # another process may commit between the two syncs: retry
            self.sync()
            state, graph = self._state, self.graph.sync()
            if graph.generation == state.generation:
                break
        self._pin.state = state
        try:
            with self.graph.pinned(graph):
                yield state
        finally:
            self._pin.state = None

    # -- dense encoder ----------------------------------------------------------
    def _ensure_embedder(self) -> Embedder | None:
        if not self._dense_wanted or self.embedder is not None or self.dense.status != "disabled":
            return self.embedder
        with self._sync_lock:
            if self.embedder is not None or self.dense.status != "disabled":
                return self.embedder
            got = self._loader()
            if isinstance(got, Unavailable):
                hint = f" ({got.hint})" if got.hint else ""
                self.dense = DenseState("unavailable", got.reason + hint)
                return None
            health = probe(got)
            if not health.ok:
                self.dense = DenseState("unavailable", f"health probe failed: {health.reason}")
                return None
            self.embedder = got
            self.dense = DenseState("ok", fingerprint=got.fingerprint)
            return got

    def embed_query(self, query: str) -> np.ndarray | None:
        emb = self._ensure_embedder()
        return None if emb is None else emb.encode([query], kind="query")[0]

    # -- persistence -------------------------------------------------------------
    def _load(self) -> None:
        self._loaded = True
        manifest = self.dir / MANIFEST
        if not manifest.exists():
            return
        try:
            meta = json.loads(manifest.read_text("utf-8"))
            lexical = LexicalIndex.load(self.dir / "lexical")
            vectors = None
            if (self.dir / "vectors.npz").exists():
                vectors = VectorIndex.load(self.dir / "vectors.npz")
            keys = dict(meta.get("keys", {}))
            generation = str(meta.get("generation", ""))
        except (OSError, ValueError, KeyError):  # a damaged cache is rebuilt, not trusted
            return
        # No chunks yet: the first sync reads them from the store (see ``fresh``).
        self._state = IndexState(generation, lexical=lexical, vectors=vectors, keys=keys)

    def _save(self, state: IndexState) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        state.lexical.save(self.dir / "lexical")
        if state.vectors is not None:
            state.vectors.save(self.dir / "vectors.npz")
        meta = {"generation": state.generation, "keys": state.keys}
        tmp = self.dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(meta), "utf-8")
        tmp.replace(self.dir / MANIFEST)

    # -- sync --------------------------------------------------------------------
    def sync(self) -> SyncReport:
        """Bring the indexes to the store's current revision (a no-op when nothing changed,
        and inside :meth:`pinned`)."""
        started = time.perf_counter()
        if getattr(self._pin, "state", None) is not None:
            return SyncReport(0, 0, 0, 0, 0.0, 0.0)
        with self._sync_lock:
            if not self._loaded:
                self._load()
            old = self._state
            generation = self.store.generation(self.kb)
            if generation == old.generation and old.chunks:
                return SyncReport(0, 0, 0, 0, 0.0, time.perf_counter() - started)
            generation, revision, live = self._read_current(generation)
            lexical = old.lexical.copy()
            gone = [cid for cid in lexical.ids() if cid not in live]
            lexical.remove(gone)
            new = [c for cid, c in live.items() if cid not in lexical]
            lexical.add((c.chunk_id, c.search_text, c.breadcrumb) for c in new)
            lexical.prepare()
            vectors, keys, (encoded, reused, enc_secs) = self._sync_vectors(old, live)
            state = IndexState(
                generation=generation,
                revision=revision,
                chunks=live,
                superseded=superseded_paths((c.path, c.metadata) for c in live.values()),
                lexical=lexical,
                vectors=vectors,
                keys=keys,
            )
            self._state = state  # the one publishing step
            if generation != old.generation or gone or new or encoded:
                # Only a cache (checked against the store on load); a concurrent
                # ``citewise add`` saving the same directory must not fail this sync.
                with contextlib.suppress(OSError):
                    self._save(state)
        return SyncReport(
            len(new), len(gone), encoded, reused, enc_secs, time.perf_counter() - started
        )

    def _read_current(self, generation: str) -> tuple[str, int, dict[str, StoredChunk]]:
        """Revision and chunks of one generation: the reads span several store
        transactions, so they are repeated when another process committed in between
        (after three tries the older generation is kept, so the next sync reads again)."""
        for _ in range(3):
            revision = self.store.get_kb(self.kb).revision
            live = {c.chunk_id: c for c in self.store.iter_chunks(self.kb)}
            after = self.store.generation(self.kb)
            if after == generation:
                break
            generation = after
        else:
            generation = ""
        return generation, revision, live

    def _memo_table(self) -> dict[object, Any]:
        return self.state.scopes

    def _sync_vectors(
        self, old: IndexState, live: dict[str, StoredChunk]
    ) -> tuple[VectorIndex | None, dict[str, str], tuple[int, int, float]]:
        """The vectors and keys of ``live``, built on copies of ``old``'s."""
        emb = self._ensure_embedder()
        if emb is None:
            return old.vectors, dict(old.keys), (0, 0, 0.0)
        if old.vectors is None or old.vectors.fingerprint != emb.fingerprint:
            vectors, keys = VectorIndex(emb.dim, fingerprint=emb.fingerprint), {}
        else:
            vectors, keys = old.vectors.copy(), dict(old.keys)
        by_key: dict[str, str] = {}
        for cid, key in keys.items():
            by_key.setdefault(key, cid)
        gone = [cid for cid in keys if cid not in live]
        missing = [c for cid, c in live.items() if cid not in keys]
        texts = {c.chunk_id: dense_text(c) for c in missing}
        reuse = [
            (c.chunk_id, by_key[text_key(texts[c.chunk_id])])
            for c in missing
            if text_key(texts[c.chunk_id]) in by_key
        ]
        reused_ids = {cid for cid, _ in reuse}
        if reuse:
            vectors.add([cid for cid, _ in reuse], vectors.get([src for _, src in reuse]))
        todo = [c for c in missing if c.chunk_id not in reused_ids]
        started = time.perf_counter()
        if todo:
            vectors.add([c.chunk_id for c in todo], emb.encode([texts[c.chunk_id] for c in todo]))
        secs = time.perf_counter() - started if todo else 0.0
        vectors.remove(gone)
        for cid in gone:
            del keys[cid]
        for c in missing:
            keys[c.chunk_id] = text_key(texts[c.chunk_id])
        return vectors, keys, (len(todo), len(reuse), secs)
