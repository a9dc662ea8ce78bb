"""Answer-unit vectors, encoded when the index is built and kept in the store.

With the dense route on, the answer stage scores its candidate units by meaning
(:class:`~citewise.answer.relevance.DenseScorer`): encoding the units a question meets for
the first time cost about 11 units of 5.5 ms CPU per SciFact question. A unit's text
depends on its document version alone (:func:`~citewise.answer.units.structure.document_units`), so
the sync that indexes a new version also cuts its units and encodes the texts the scorer
would encode (:func:`~citewise.answer.ranking.version_dense_inputs`, one text per forward call as
on the ask path, so each vector is the same bytes). They are kept in the store's vector
table under a namespace of their own (:func:`unit_namespace`), never mixed with chunk
vectors, by text key: a changed document's new units are encoded at its sync, and a
vector can only ever serve the text it was made from, so no stale one is read. The
answer stage reads the few it needs (:func:`stored_unit_vectors`) and encodes only a
unit found nowhere (one cut from a window of a very long version, or a version not yet
synced by a process with the dense route on).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from citewise.core.records import Node
from citewise.errors import NotFoundError, StoreError
from citewise.index.embedder import Embedder
from citewise.index.vectors import F32, vector_from_bytes, vectors_to_bytes
from citewise.store.protocol import Store

log = logging.getLogger(__name__)

__all__ = [
    "UnitReport",
    "UnitTexts",
    "encode_version_units",
    "stored_unit_vectors",
    "unit_key",
    "unit_namespace",
    "version_unit_texts",
]

#: Appended to the encoder's fingerprint: the store namespace of answer-unit vectors.
UNIT_SUFFIX = ":unit"
#: Versions cut, looked up and encoded per store round trip.
VERSION_GROUP = 128

Progress = Callable[[str, int, int], None]


def unit_namespace(fingerprint: str) -> str:
    """The vector-table fingerprint under which ``fingerprint``'s unit vectors are kept."""
    return fingerprint + UNIT_SUFFIX


def unit_key(text: str) -> str:
    """The text key of an encoded unit text (the scorer's cache key, the store's row key)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class UnitReport:
    versions: int  # document versions whose units were cut
    units: int  # distinct unit texts among them
    encoded: int  # of those, encoded now (the rest were in the store)
    seconds: float  # spent encoding


#: A version's nodes -> the texts the answer stage encodes for its units (the answer
#: stage's :func:`~citewise.answer.ranking.version_dense_inputs`, given by the home: the
#: index does not import the answer stage).
UnitTexts = Callable[[Sequence[Node]], list[str]]


def version_unit_texts(
    store: Store, kb: str, path: str, version_id: int, cut: UnitTexts
) -> list[str]:
    """The distinct texts the answer stage encodes for the units of one version."""
    return list(dict.fromkeys(cut(store.nodes_of_version(kb, path, version_id))))


def encode_version_units(
    store: Store,
    kb: str,
    emb: Embedder,
    versions: Collection[tuple[str, int]],
    cut: UnitTexts,
    progress: Progress | None = None,
) -> UnitReport:
    """Encode and store the unit texts of ``versions`` (path, version id) that the store
    does not hold yet under ``emb``'s unit namespace. A version that can no longer be read
    (deleted meanwhile) is skipped; a store that refuses the write costs an encode at ask
    time later, never this sync."""
    space = unit_namespace(emb.fingerprint)
    ordered = sorted(versions)
    units = encoded = 0
    secs = 0.0
    for i in range(0, len(ordered), VERSION_GROUP):
        texts: dict[str, str] = {}
        for path, version_id in ordered[i : i + VERSION_GROUP]:
            try:
                got = version_unit_texts(store, kb, path, version_id, cut)
            except NotFoundError as exc:
                log.info("units of %s v%d not encoded: %s", path, version_id, exc)
                continue
            texts.update((unit_key(t), t) for t in got)
        units += len(texts)
        have = store.get_vectors(space, list(texts)) if texts else {}
        todo = [(k, t) for k, t in texts.items() if k not in have]
        if todo:
            started = time.perf_counter()
            vecs = emb.encode([t for _, t in todo], kind="passage")
            secs += time.perf_counter() - started
            encoded += len(todo)
            _keep(store, space, [k for k, _ in todo], vecs)
        if progress is not None:
            progress("units", min(i + VERSION_GROUP, len(ordered)), len(ordered))
    return UnitReport(len(ordered), units, encoded, secs)


def _keep(store: Store, space: str, keys: Sequence[str], vecs: F32) -> None:
    try:
        store.put_vectors(space, dict(zip(keys, vectors_to_bytes(vecs), strict=True)))
    except StoreError as exc:
        log.warning("could not store %d unit vectors: %s", len(keys), exc)


def stored_unit_vectors(store: Store, emb: Embedder, keys: Sequence[str]) -> dict[str, F32]:
    """The kept unit vectors of ``keys`` (text keys) by key; missing or damaged ones are left
    out, and a store that cannot answer gives none (the caller encodes them)."""
    if not keys:
        return {}
    try:
        found = store.get_vectors(unit_namespace(emb.fingerprint), keys)
    except StoreError as exc:
        log.warning("could not read %d unit vectors: %s", len(keys), exc)
        return {}
    out = {}
    for k, b in found.items():
        v = vector_from_bytes(b, emb.dim)
        if v is not None:
            out[k] = v
    return out
