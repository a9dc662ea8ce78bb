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

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citewise.graph.build import KBGraph
from citewise.index.embedder import Embedder, Unavailable, probe
from citewise.index.lexical import LexicalIndex
from citewise.index.vectors import VectorIndex
from citewise.ingest.editions import superseded_paths
from citewise.store.models import StoredChunk
from citewise.store.protocol import Store

EmbedderLoader = Callable[[], Embedder | Unavailable]
MANIFEST = "manifest.json"


_LOADED: list[Embedder | Unavailable] = []


def default_loader() -> Embedder | Unavailable:
    """The bundled MiniLM, loaded once per process (it is read-only and thread-safe)."""
    if not _LOADED:
        from citewise.index.minilm import load_minilm

        _LOADED.append(load_minilm())
    return _LOADED[0]


_USE: list[Embedder | Unavailable] = []


def use_loader() -> Embedder | Unavailable:
    """The multilingual USE encoder (optional extra), loaded once per process."""
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


class KBIndex:
    """The lexical and dense indexes of one knowledge base, persisted under ``directory``."""

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
        self._generation = ""
        self._keys: dict[str, str] = {}  # chunk id -> text key of its vector
        self.chunks: dict[str, StoredChunk] = {}
        #: Paths of superseded editions (recall ranks them below current editions).
        self.superseded: frozenset[str] = frozenset()
        self._scopes: dict[object, frozenset[str]] = {}
        self.lexical = LexicalIndex()
        self.vectors: VectorIndex | None = None
        self.embedder: Embedder | None = None
        self.dense = DenseState("disabled", "dense route disabled by configuration")
        self._loaded = False
        self.graph = KBGraph(store, kb)  # structural knowledge graph, synced on use

    # -- dense encoder ----------------------------------------------------------
    def _ensure_embedder(self) -> Embedder | None:
        if not self._dense_wanted or self.embedder is not None or self.dense.status != "disabled":
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
            self.lexical = LexicalIndex.load(self.dir / "lexical")
            if (self.dir / "vectors.npz").exists():
                self.vectors = VectorIndex.load(self.dir / "vectors.npz")
            self._keys = dict(meta.get("keys", {}))
            self._generation = str(meta.get("generation", ""))
        except (OSError, ValueError, KeyError) as exc:  # a damaged cache is rebuilt, not trusted
            self.lexical, self.vectors, self._keys, self._generation = LexicalIndex(), None, {}, ""
            del exc

    def _save(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.lexical.save(self.dir / "lexical")
        if self.vectors is not None:
            self.vectors.save(self.dir / "vectors.npz")
        meta = {"generation": self._generation, "keys": self._keys}
        tmp = self.dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(meta), "utf-8")
        tmp.replace(self.dir / MANIFEST)

    # -- sync --------------------------------------------------------------------
    def sync(self) -> SyncReport:
        """Bring the indexes to the store's current revision (a no-op when nothing changed)."""
        started = time.perf_counter()
        if not self._loaded:
            self._load()
        generation = self.store.generation(self.kb)
        fresh = not self.chunks
        if generation == self._generation and not fresh:
            return SyncReport(0, 0, 0, 0, 0.0, time.perf_counter() - started)
        live = {c.chunk_id: c for c in self.store.iter_chunks(self.kb)}
        self.chunks = live
        self.superseded = superseded_paths((c.path, c.metadata) for c in live.values())
        gone = [cid for cid in self.lexical.ids() if cid not in live]
        self.lexical.remove(gone)
        new = [c for cid, c in live.items() if cid not in self.lexical]
        self.lexical.add((c.chunk_id, c.search_text, c.breadcrumb) for c in new)
        encoded, reused, enc_secs = self._sync_vectors(live)
        changed = generation != self._generation or gone or new or encoded
        self._generation = generation
        self._scopes.clear()
        if changed:
            self._save()
        return SyncReport(
            len(new), len(gone), encoded, reused, enc_secs, time.perf_counter() - started
        )

    def scoped(self, key: object, compute: Callable[[], frozenset[str]]) -> frozenset[str]:
        """The chunk ids a scope (filters + principal) may see, cached until the next change
        of the store's generation (scope depends only on current documents' metadata)."""
        if key not in self._scopes:
            if len(self._scopes) > 256:
                self._scopes.clear()
            self._scopes[key] = compute()
        return self._scopes[key]

    def _sync_vectors(self, live: dict[str, StoredChunk]) -> tuple[int, int, float]:
        emb = self._ensure_embedder()
        if emb is None:
            return 0, 0, 0.0
        if self.vectors is None or self.vectors.fingerprint != emb.fingerprint:
            self.vectors, self._keys = VectorIndex(emb.dim, fingerprint=emb.fingerprint), {}
        vectors = self.vectors
        by_key: dict[str, str] = {}
        for cid, key in self._keys.items():
            by_key.setdefault(key, cid)
        gone = [cid for cid in self._keys if cid not in live]
        missing = [c for cid, c in live.items() if cid not in self._keys]
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
            del self._keys[cid]
        for c in missing:
            self._keys[c.chunk_id] = text_key(texts[c.chunk_id])
        return len(todo), len(reuse), secs
