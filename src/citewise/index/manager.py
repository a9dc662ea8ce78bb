"""Keeps one KB's derived indexes (BM25 segments, vectors) in step with the store.

The store is the source of truth: every add, replace or delete commits there in one
transaction. Before any search, :meth:`KBIndex.sync` compares the store's change
``generation`` with the one the indexes reflect and applies the difference (remove chunks
that left the current revision, add the new ones), so a deleted or replaced document can
never be returned, even if the process died between a commit and an index save.

Vectors are keyed by the encoder fingerprint: a changed fingerprint re-encodes everything,
while a chunk whose encoded text (same content hash) is already indexed under the same
fingerprint reuses its vector. The store keeps every encoded vector by fingerprint and text
key (:mod:`citewise.index.vector_store`); the index directory is only a cache, so a new
server process or home on the same store loads vectors instead of encoding them again.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from citewise.config import RerankConfig
from citewise.core.stored import StoredChunk
from citewise.errors import StoreError
from citewise.graph.build import ChunkRow, KBGraph, chunk_rows_of
from citewise.index import passages as passage_vectors
from citewise.index import vector_store
from citewise.index.embedder import Embedder, Unavailable, precision_of, probe
from citewise.index.language import EncoderChoice, choose_encoder, read_choice, write_choice
from citewise.index.lexical import LexicalIndex
from citewise.index.passages import Passages, PassageSync
from citewise.index.pg_lexical_route import StoredLexical, database_lexical
from citewise.index.query_vectors import query_vector
from citewise.index.unit_vectors import UnitReport, UnitTexts, encode_version_units
from citewise.index.vector_store import keep_vectors, stored_vectors
from citewise.index.vectors import VectorHit, VectorIndex
from citewise.index.views import CallerViews
from citewise.ingest.editions import superseded_paths
from citewise.store.protocol import Store

if TYPE_CHECKING:
    from citewise.core.reranker import Reranker

EmbedderLoader = Callable[[], Embedder | Unavailable]
MANIFEST = "manifest.json"


_LOADED: list[Embedder | Unavailable] = []
_LOADING = threading.Lock()  # one load per process even when several KBs ask at once


def default_loader() -> Embedder | Unavailable:
    """The bundled MiniLM, loaded once per process (it is read-only and thread-safe)."""
    with _LOADING:
        if not _LOADED:
            from citewise.index.minilm import MiniLMSettings, load_minilm

            _LOADED.append(load_minilm(MiniLMSettings.from_env()))
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


def without_texts(chunks: dict[str, StoredChunk]) -> dict[str, StoredChunk]:
    """The records an index state keeps: the chunks without their ``search_text`` (read
    back from the store for the few chunks a search needs, see :meth:`KBIndex.chunk_texts`;
    held for every chunk it was the largest part of a record)."""
    return {cid: replace(c, search_text="") for cid, c in chunks.items()}


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


#: Chunks encoded per call while syncing (small corpora are one call, as before).
ENCODE_GROUP = 1024
#: Chunks tokenised into the lexical index per step when many arrive at once (a fresh
#: server's first sync): each step is folded into the merged segment before the next is
#: tokenised, so the token lists held at once are those of one step, not of the corpus.
LEXICAL_SLICE = 32_768


#: Chunk texts a KB index keeps after reading them back from the store (see chunk_texts).
TEXT_CACHE = 4096
#: Key of :func:`vector_store.group_by_key` over a whole state in ``IndexState.scopes``.
_WHOLE_BY_KEY = ("vector keys", "whole")
#: ... and of :func:`passages.by_passage_key` over a whole state.
_WHOLE_BY_PASSAGE = ("passage keys", "whole")
PASSAGES_FILE = "passages.npz"


DenseStatus = Literal["ok", "unavailable", "disabled"]


@dataclass(frozen=True, slots=True)
class DenseState:
    status: DenseStatus
    reason: str = ""
    fingerprint: str = ""
    encoder: str = ""  # the loaded encoder's name, e.g. "all-MiniLM-L6-v2 (int8)"
    precision: str = ""  # arithmetic of the loaded encoder: int8 | fp32
    precision_reason: str = ""  # why fp32 where int8 was wanted


@dataclass(frozen=True, slots=True)
class IndexSyncReport:
    added: int
    removed: int
    encoded: int
    reused: int
    encode_seconds: float
    seconds: float
    #: Answer-unit texts encoded for new versions (index/unit_vectors.py), and the time.
    units: int = 0
    unit_seconds: float = 0.0
    #: The short-passage vectors (index/passages.py) this sync encoded or reused.
    passages: PassageSync = field(default_factory=PassageSync)


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
    #: Each chunk's short-passage vectors (index/passages.py); None without them.
    passages: Passages | None = None
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
        multilingual: EmbedderLoader | None = None,
    ) -> None:
        self.store, self.kb, self.dir = store, kb, directory
        self._dense_wanted, self._loader = dense, loader
        #: Set: the KB's encoder is chosen by its content (``loader`` or this one for mostly
        #: CJK text), once, and recorded (:mod:`citewise.index.language`).
        self._multilingual = multilingual
        self.choice: EncoderChoice | None = None
        self._state = IndexState()
        self._sync_lock = threading.RLock()
        self._pin = threading.local()
        self.embedder: Embedder | None = None
        self.dense = DenseState("disabled", "dense route disabled by configuration")
        self._loaded = False
        #: The encoder fingerprint whose answer-unit vectors every indexed version has.
        self._units_done = ""
        #: Called with ("embed", chunks done, chunks to encode) while a sync encodes, and
        #: with ("units", versions done, versions) while it encodes their answer units.
        self.progress: Callable[[str, int, int], None] | None = None
        # The structural knowledge graph, synced on use; it takes its chunk rows from this
        # index's state when that state is of the generation it builds.
        self.graph = KBGraph(store, kb, rows=self._chunk_rows)
        self._texts: dict[tuple[str, int, str], str] = {}  # see chunk_texts
        self._texts_lock = threading.Lock()
        #: Vector searches over at least this many rows go to the store where it can rank.
        self.store_search_min = vector_store.store_search_min()
        #: The rerank stage's model (recall/rerank.py): None when none is configured, or
        #: why the configured one cannot run. Set by the home from its settings.
        self.reranker: Reranker | Unavailable | None = None
        self.rerank_config = RerankConfig()
        #: The answer stage's unit texts of a version (set by the home): with it and the
        #: dense route on, a sync encodes the answer units of new versions ahead of the
        #: questions (:mod:`citewise.index.unit_vectors`).
        self.unit_texts: UnitTexts | None = None
        #: PostgreSQL mode: the lexical route is the database's (index/pg_lexical_route.py)
        #: and no in-process BM25 index is built; None: the in-process index.
        self.db_lexical = database_lexical(store, kb)

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
    def generation(self) -> str:
        return self.state.generation

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

    def chunk_texts(self, chunk_ids: Collection[str]) -> dict[str, str]:
        """``search_text`` of chunks of this thread's state, by chunk id, read from the store
        (the state keeps no texts) for exactly the version each record is of, so a pinned
        request reads the texts it ranked even after a newer version was stored. Texts are
        immutable per version: the last :data:`TEXT_CACHE` read are kept."""
        chunks = self.state.chunks
        out: dict[str, str] = {}
        todo: list[tuple[str, int, str]] = []
        for cid in chunk_ids:
            c = chunks.get(cid)
            if c is None:
                continue
            key = (c.doc_id, c.version_id, cid)
            got = c.search_text or self._texts.get(key)
            if got is None:
                todo.append(key)
            else:
                out[cid] = got
        if todo:
            read = self.store.chunk_texts(self.kb, todo)
            with self._texts_lock:
                if len(self._texts) + len(read) > TEXT_CACHE:
                    self._texts.clear()
                for doc_id, version_id, cid in todo:
                    if cid in read:
                        self._texts[(doc_id, version_id, cid)] = out[cid] = read[cid]
        return out

    def chunk_text(self, chunk_id: str) -> str:
        """``search_text`` of one chunk of this thread's state (see :meth:`chunk_texts`);
        :class:`~citewise.errors.StoreError` when the store no longer holds it."""
        got = self.chunk_texts([chunk_id]).get(chunk_id)
        if got is None:
            raise StoreError(
                f"The text of chunk {chunk_id} is not in the store.",
                hint="The document was removed meanwhile; search again.",
            )
        return got

    def _chunk_rows(self, generation: str) -> Iterator[ChunkRow] | None:
        """The graph's chunk rows from the latest published state when it is of
        ``generation`` (else None: the graph reads them from the store)."""
        state = self._state
        if not generation or state.generation != generation or not state.revision:
            return None
        return chunk_rows_of(state.chunks.values())

    # -- dense encoder ----------------------------------------------------------
    def _choose(self, live: dict[str, StoredChunk] | None) -> EmbedderLoader:
        """The loader for this KB; with ``multilingual`` set, decided once from content."""
        if self._multilingual is None:
            return self._loader
        if self.choice is None:
            self.choice = read_choice(self.dir)
        if self.choice is None and live:
            self.choice = choose_encoder([dense_text(c) for c in live.values()])
            with contextlib.suppress(OSError):
                write_choice(self.dir, self.choice)
            if self.choice.encoder == "use":  # forget an English encoder loaded for queries
                self.embedder = None
                self.dense = DenseState("disabled", "dense route disabled by configuration")
        return self._multilingual if self.choice and self.choice.encoder == "use" else self._loader

    def _ensure_embedder(self, live: dict[str, StoredChunk] | None = None) -> Embedder | None:
        if not self._dense_wanted:
            return None
        if self._multilingual is not None and self.choice is None and live:
            with self._sync_lock:
                self._choose(live)
        if self.embedder is not None or self.dense.status != "disabled":
            return self.embedder
        with self._sync_lock:
            if self.embedder is not None or self.dense.status != "disabled":
                return self.embedder
            chosen = self._choose(live)
            got = chosen()
            if isinstance(got, Unavailable) and chosen is not self._loader:
                got = self._loader()  # multilingual extra missing: the default encoder
            if isinstance(got, Unavailable):
                hint = f" ({got.hint})" if got.hint else ""
                self.dense = DenseState("unavailable", got.reason + hint)
                return None
            health = probe(got)
            if not health.ok:
                self.dense = DenseState("unavailable", f"health probe failed: {health.reason}")
                return None
            self.embedder = got
            precision, why = precision_of(got)
            self.dense = DenseState("ok", "", got.fingerprint, got.name, precision, why)
            return got

    def embed_query(self, query: str) -> np.ndarray | None:
        emb = self._ensure_embedder()
        return None if emb is None else query_vector(emb, query)

    @property
    def passages(self) -> Passages | None:
        return self.state.passages

    def search_vectors(
        self,
        qvec: np.ndarray,
        k: int,
        allowed: Collection[str] | None = None,
        *,
        passages: bool = True,
    ) -> list[VectorHit]:
        """Top ``k`` of this thread's state by inner product among ``allowed``: in the store
        (pgvector HNSW) for searches of at least :attr:`store_search_min` rows where it can,
        else in-process (see :func:`citewise.index.vector_store.search`). With
        ``passages`` and passage vectors in the state, a chunk scores by its best passage
        (:func:`citewise.index.passages.search`)."""
        state = self.state
        if passages and state.passages is not None:
            return self._search_passages(state, state.passages, qvec, k, allowed)
        if state.vectors is None:
            return []
        whole = None
        if allowed is None and len(state.vectors) >= self.store_search_min:
            whole = state.scopes.get(_WHOLE_BY_KEY)
            if whole is None:
                whole = state.scopes[_WHOLE_BY_KEY] = vector_store.group_by_key(state.keys)
        return vector_store.search(
            self.store,
            self.embedder,
            state.vectors,
            state.keys,
            qvec,
            k,
            allowed,
            store_min=self.store_search_min,
            whole=whole,
        )

    def _search_passages(
        self,
        state: IndexState,
        held: Passages,
        qvec: np.ndarray,
        k: int,
        allowed: Collection[str] | None,
    ) -> list[VectorHit]:
        def whole() -> dict[str, tuple[str, ...]]:  # once per state, as for chunk vectors
            got = state.scopes.get(_WHOLE_BY_PASSAGE)
            if got is None:
                got = state.scopes[_WHOLE_BY_PASSAGE] = passage_vectors.by_passage_key(
                    held, state.keys, None
                )
            return got

        return passage_vectors.search(
            self.store,
            held,
            state.keys,
            qvec,
            k,
            allowed,
            store_min=self.store_search_min,
            whole=whole,
        )

    # -- persistence -------------------------------------------------------------
    def _load(self) -> None:
        self._loaded = True
        manifest = self.dir / MANIFEST
        if not manifest.exists():
            return
        try:
            meta = json.loads(manifest.read_text("utf-8"))
            lexical = (
                LexicalIndex.load(self.dir / "lexical")
                if self.db_lexical is None
                else LexicalIndex()
            )
            vectors = None
            if (self.dir / "vectors.npz").exists():
                vectors = VectorIndex.load(self.dir / "vectors.npz")
            held = None
            if (self.dir / PASSAGES_FILE).exists():
                held = Passages.load(self.dir / PASSAGES_FILE)
            keys = dict(meta.get("keys", {}))
            units_done = str(meta.get("units", ""))
            generation = str(meta.get("generation", ""))
        except (OSError, ValueError, KeyError):  # a damaged cache is rebuilt, not trusted
            return
        # No chunks yet: the first sync reads them from the store (see ``fresh``).
        self._state = IndexState(
            generation, lexical=lexical, vectors=vectors, keys=keys, passages=held
        )
        self._units_done = units_done

    def _save(self, state: IndexState) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        state.lexical.save(self.dir / "lexical")
        if state.vectors is not None:
            state.vectors.save(self.dir / "vectors.npz")
        if state.passages is not None:
            state.passages.save(self.dir / PASSAGES_FILE)
        meta = {"generation": state.generation, "keys": state.keys, "units": self._units_done}
        tmp = self.dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(meta), "utf-8")
        tmp.replace(self.dir / MANIFEST)

    # -- sync --------------------------------------------------------------------
    def sync(self) -> IndexSyncReport:
        """Bring the indexes to the store's current revision (a no-op when nothing changed,
        and inside :meth:`pinned`)."""
        started = time.perf_counter()
        if getattr(self._pin, "state", None) is not None:
            return IndexSyncReport(0, 0, 0, 0, 0.0, 0.0)
        with self._sync_lock:
            if not self._loaded:
                self._load()
            old = self._state
            generation = self.store.generation(self.kb)
            if generation == old.generation and old.chunks:
                return IndexSyncReport(0, 0, 0, 0, 0.0, time.perf_counter() - started)
            lexical = old.lexical.copy() if self.db_lexical is None else None
            generation, revision, live, added = self._read_current(generation, lexical)
            indexed = old.lexical if lexical is None else lexical
            gone = [cid for cid in indexed.ids() if cid not in live]
            if lexical is None:  # the database's postings (index/pg_lexical_route.py)
                assert self.db_lexical is not None
                added = sum(1 for cid in live if cid not in old.lexical)
                lexical = StoredLexical(self.db_lexical, live)
            lexical.remove(gone)
            lexical.prepare()
            vectors, keys, (encoded, reused, enc_secs) = self._sync_vectors(old, live)
            held, psync = self._sync_passages(old, live, keys)
            units = self._sync_units(old, live)
            state = IndexState(
                generation=generation,
                revision=revision,
                chunks=without_texts(live) if self._dense_wanted else live,
                superseded=superseded_paths((c.path, c.metadata) for c in live.values()),
                lexical=lexical,
                vectors=vectors,
                keys=keys,
                passages=held,
            )
            self._state = state  # the one publishing step
            if (
                generation != old.generation
                or gone
                or added
                or encoded
                or units.versions
                or psync.reused
                or psync.chunks_encoded
            ):
                # Only a cache (checked against the store on load); a concurrent
                # ``citewise add`` saving the same directory must not fail this sync.
                with contextlib.suppress(OSError):
                    self._save(state)
        return IndexSyncReport(
            added,
            len(gone),
            encoded,
            reused,
            enc_secs,
            time.perf_counter() - started,
            units.encoded,
            units.seconds,
            psync,
        )

    def _read_current(
        self, generation: str, lexical: LexicalIndex | None
    ) -> tuple[str, int, dict[str, StoredChunk], int]:
        """Revision and chunks of one generation, tokenising the chunks ``lexical`` lacks as
        they stream in (:data:`LEXICAL_SLICE` at a time), and how many it added. Without a
        dense route the records keep no text from then on (see :func:`without_texts`), so
        the texts held at once are one slice's, not the corpus's. The reads span several
        store transactions, so they are repeated when another process committed in between
        (after three tries the older generation is kept, so the next sync reads again)."""
        added = 0
        for _ in range(3):
            revision = self.store.get_kb(self.kb).revision
            live: dict[str, StoredChunk] = {}
            chunks = iter(self.store.iter_chunks(self.kb))
            while part := list(itertools.islice(chunks, LEXICAL_SLICE)):
                new = [] if lexical is None else [c for c in part if c.chunk_id not in lexical]
                if new and lexical is not None:
                    lexical.add((c.chunk_id, c.search_text, c.breadcrumb) for c in new)
                    added += len(new)
                if self._dense_wanted:  # the vectors' keys are hashes of the texts
                    live.update((c.chunk_id, c) for c in part)
                else:
                    live.update((c.chunk_id, replace(c, search_text="")) for c in part)
            after = self.store.generation(self.kb)
            if after == generation:
                break
            generation = after
        else:
            generation = ""
        return generation, revision, live, added

    def _sync_passages(
        self, old: IndexState, live: dict[str, StoredChunk], keys: dict[str, str]
    ) -> tuple[Passages | None, PassageSync]:
        """The short-passage vectors of ``live``, built on a copy of ``old``'s (none
        without an encoder that cuts them)."""
        emb = self.embedder if self._dense_wanted else None
        if emb is None:
            return old.passages, PassageSync()

        def tick(done: int, total: int) -> None:
            if self.progress is not None:
                self.progress("passages", done, total)

        return passage_vectors.sync_passages(
            self.store,
            emb,
            old.passages,
            live.keys(),
            lambda cid: dense_text(live[cid]),
            keys,
            tick,
        )

    def _sync_units(self, old: IndexState, live: dict[str, StoredChunk]) -> UnitReport:
        """Encode the answer units of the versions new since ``old`` (of every version, once,
        when this cache does not record that they were; see :mod:`.unit_vectors`)."""
        emb, cut = self.embedder, self.unit_texts
        if emb is None or cut is None or not live:
            return UnitReport(0, 0, 0, 0.0)
        every = self._units_done != emb.fingerprint
        versions = {
            (c.path, c.version_id) for cid, c in live.items() if every or cid not in old.keys
        }
        report = encode_version_units(self.store, self.kb, emb, versions, cut, self.progress)
        self._units_done = emb.fingerprint
        return report

    def _memo_table(self) -> dict[object, Any]:
        return self.state.scopes

    def _sync_vectors(
        self, old: IndexState, live: dict[str, StoredChunk]
    ) -> tuple[VectorIndex | None, dict[str, str], tuple[int, int, float]]:
        """The vectors and keys of ``live``, built on copies of ``old``'s."""
        emb = self._ensure_embedder(live)
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
        stored = stored_vectors(
            self.store, emb, {c.chunk_id: text_key(texts[c.chunk_id]) for c in todo}
        )
        if stored:
            vectors.add(list(stored), np.stack(list(stored.values())))
        todo = [c for c in todo if c.chunk_id not in stored]
        started = time.perf_counter()
        for i in range(0, len(todo), ENCODE_GROUP):  # groups, so long work can show progress
            group = todo[i : i + ENCODE_GROUP]
            encoded = emb.encode([texts[c.chunk_id] for c in group])
            vectors.add([c.chunk_id for c in group], encoded)
            keep_vectors(self.store, emb, [text_key(texts[c.chunk_id]) for c in group], encoded)
            if self.progress is not None:
                self.progress("embed", i + len(group), len(todo))
        secs = time.perf_counter() - started if todo else 0.0
        vectors.remove(gone)
        for cid in gone:
            del keys[cid]
        for c in missing:
            keys[c.chunk_id] = text_key(texts[c.chunk_id])
        return vectors, keys, (len(todo), len(reuse) + len(stored), secs)
