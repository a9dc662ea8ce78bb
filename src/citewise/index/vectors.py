"""A vector index for unit-length float32 embeddings, in plain numpy.

Every vector is stored as
* sign bits, packed (``dim / 8`` bytes): a Hamming-distance prefilter over the whole corpus;
* int8 codes with a per-vector scale (``dim`` bytes + 4): rescoring of the prefilter's
  candidates, an inner product within ~1e-3 of the float one;
* float32 (``dim * 4`` bytes) only while the index holds at most ``exact_threshold`` vectors:
  below it search is exact, above it the floats are dropped and the binary → int8 path runs.

``allowed`` (the ids the caller may see) is applied before any truncation: the prefilter,
the rescoring and the top-k all run over allowed rows only, so an authorised hit is never
pushed out by rows the caller may not see. Removed ids are tombstoned at once and compacted
away later; they are never returned.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
FORMAT = "citewise-vectors/1"

_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


class VectorHit(NamedTuple):
    id: str
    score: float


def _popcount_rows(x: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    counts = np.bitwise_count(x) if hasattr(np, "bitwise_count") else _POPCOUNT[x]  # numpy >= 2
    out: npt.NDArray[np.int32] = counts.sum(axis=1, dtype=np.int32)
    return out


def quantize_int8(vecs: F32) -> tuple[npt.NDArray[np.int8], F32]:
    """Symmetric per-vector int8 codes and their scales (``x ~= code * scale``)."""
    scale = np.maximum(np.abs(vecs).max(axis=1), 1e-12).astype(np.float32) / np.float32(127.0)
    codes = np.clip(np.rint(vecs / scale[:, None]), -127, 127).astype(np.int8)
    return codes, scale


def sign_bits(vecs: F32) -> npt.NDArray[np.uint8]:
    return np.packbits(vecs > 0, axis=1)


def vectors_to_bytes(vecs: F32) -> list[bytes]:
    """Each row as float32 little-endian bytes (the store's vector format)."""
    rows = np.ascontiguousarray(vecs, dtype="<f4")
    return [row.tobytes() for row in rows]


def vector_from_bytes(data: bytes, dim: int) -> F32 | None:
    """One stored row back as float32, or None when it is not ``dim`` finite values (a
    damaged or foreign row is encoded again, never trusted)."""
    if len(data) != 4 * dim:
        return None
    vec: F32 = np.frombuffer(data, dtype="<f4").astype(np.float32)
    return vec if bool(np.all(np.isfinite(vec))) else None


class VectorIndex:
    """``add``/``remove``/``search``/``save``/``load`` over string ids."""

    def __init__(
        self,
        dim: int,
        *,
        fingerprint: str = "",
        exact_threshold: int = 20_000,
        candidates: int = 200,
        oversample: int = 10,
        fraction: float = 0.01,
    ) -> None:
        if dim <= 0 or dim % 8:
            raise ValueError("dim must be a positive multiple of 8")
        self.dim = dim
        self.fingerprint = fingerprint
        self.exact_threshold = exact_threshold
        self.candidates = candidates  # minimum prefilter survivors
        self.oversample = oversample  # survivors per requested hit
        self.fraction = fraction  # survivors as a share of the searched rows
        self._ids: list[str] = []
        self._slot: dict[str, int] = {}
        self._alive = np.zeros(0, dtype=bool)
        self._bits = np.zeros((0, dim // 8), dtype=np.uint8)
        self._q8 = np.zeros((0, dim), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)
        self._f32: F32 | None = np.zeros((0, dim), dtype=np.float32)

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, item: object) -> bool:
        return item in self._slot

    def copy(self) -> VectorIndex:
        """An independent copy (arrays that are only ever replaced, never written, are shared)."""
        twin = copy.copy(self)
        twin._ids = list(self._ids)
        twin._slot = dict(self._slot)
        twin._alive = self._alive.copy()
        return twin

    def get(self, ids: Sequence[str]) -> F32:
        """Stored vectors of ``ids`` (KeyError for unknown ones): float32 while exact, else the
        int8 codes dequantised and renormalised (cosine to the original ~0.9999)."""
        rows = np.fromiter((self._slot[i] for i in ids), dtype=np.intp, count=len(ids))
        if self._f32 is not None:
            return self._f32[rows].copy()
        out: F32 = self._q8[rows].astype(np.float32) * self._scale[rows, None]
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    @property
    def exact(self) -> bool:
        """True while searches use the float32 vectors."""
        return self._f32 is not None

    def add(self, ids: Sequence[str], vecs: F32) -> None:
        """Add (or replace) vectors; rows must be unit length, shape ``(len(ids), dim)``."""
        vecs = np.ascontiguousarray(vecs, dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape != (len(ids), self.dim):
            raise ValueError(f"vectors shape {vecs.shape}, want ({len(ids)}, {self.dim})")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids in one add() call")
        if not np.all(np.isfinite(vecs)):
            raise ValueError("non-finite vector values")
        self.remove([i for i in ids if i in self._slot])
        base = len(self._ids)
        codes, scale = quantize_int8(vecs)
        self._ids.extend(ids)
        self._slot.update({id_: base + n for n, id_ in enumerate(ids)})
        self._alive = np.concatenate([self._alive, np.ones(len(ids), dtype=bool)])
        self._bits = np.concatenate([self._bits, sign_bits(vecs)])
        self._q8 = np.concatenate([self._q8, codes])
        self._scale = np.concatenate([self._scale, scale])
        if self._f32 is not None:
            if len(self._slot) > self.exact_threshold:
                self._f32 = None  # too large for floats: binary prefilter + int8 rescoring
            else:
                self._f32 = np.concatenate([self._f32, vecs])

    def remove(self, ids: Iterable[str]) -> int:
        """Forget ``ids`` (unknown ids are ignored); returns how many were removed."""
        n = 0
        for id_ in ids:
            slot = self._slot.pop(id_, None)
            if slot is not None:
                self._alive[slot] = False
                n += 1
        if n and len(self._ids) > 1024 and len(self._slot) < 0.75 * len(self._ids):
            self._compact()
        return n

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive)
        self._ids = [self._ids[i] for i in keep]
        self._slot = {id_: n for n, id_ in enumerate(self._ids)}
        self._alive = np.ones(len(keep), dtype=bool)
        self._bits, self._q8, self._scale = self._bits[keep], self._q8[keep], self._scale[keep]
        if self._f32 is not None:
            self._f32 = self._f32[keep]

    def _rows(self, allowed: Collection[str] | None) -> npt.NDArray[np.intp]:
        if allowed is None:
            return np.flatnonzero(self._alive)
        slots = [s for s in (self._slot.get(i) for i in allowed) if s is not None]
        return np.asarray(sorted(slots), dtype=np.intp)

    def search(self, qvec: F32, k: int, allowed: Collection[str] | None = None) -> list[VectorHit]:
        """Top ``k`` ids by inner product among the live ids in ``allowed`` (all if None)."""
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"query has {q.shape[0]} dims, index has {self.dim}")
        # rows: the candidate slots; None means "every live slot" and avoids copying the
        # whole matrix per query (dead slots are masked instead).
        rows = None if allowed is None else self._rows(allowed)
        n_rows = len(self._slot) if rows is None else rows.size
        if k <= 0 or n_rows == 0:
            return []
        if self._f32 is not None:
            if rows is None:
                scores = self._f32 @ q
                if n_rows < len(self._ids):
                    scores[~self._alive] = -np.inf
                rows = np.arange(len(self._ids))
            else:
                scores = self._f32[rows] @ q
        else:
            n_cand = max(self.candidates, k * self.oversample, int(n_rows * self.fraction))
            qbits = sign_bits(q[None, :])
            if n_rows <= n_cand:
                rows = np.flatnonzero(self._alive) if rows is None else rows
            elif rows is None:
                ham = _popcount_rows(np.bitwise_xor(self._bits, qbits))
                ham[~self._alive] = self.dim + 1
                rows = np.argpartition(ham, n_cand - 1)[:n_cand]
            else:
                ham = _popcount_rows(np.bitwise_xor(self._bits[rows], qbits))
                rows = rows[np.argpartition(ham, n_cand - 1)[:n_cand]]
            scores = (self._q8[rows].astype(np.float32) @ q) * self._scale[rows]
        top = min(k, n_rows)
        best = np.argpartition(-scores, top - 1)[:top] if top < scores.size else np.arange(top)
        best = best[np.argsort(-scores[best], kind="stable")]
        return [VectorHit(self._ids[rows[i]], float(scores[i])) for i in best]

    def save(self, path: Path) -> None:
        """Write one ``.npz`` (no pickles) atomically."""
        self._compact()
        meta = {
            "format": FORMAT,
            "dim": self.dim,
            "fingerprint": self.fingerprint,
            "exact_threshold": self.exact_threshold,
            "candidates": self.candidates,
            "oversample": self.oversample,
            "fraction": self.fraction,
        }
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "meta": np.asarray(json.dumps(meta)),
            "ids": np.asarray(self._ids, dtype=np.str_),
            "bits": self._bits,
            "q8": self._q8,
            "scale": self._scale,
        }
        if self._f32 is not None:
            arrays["f32"] = self._f32
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        with tmp.open("wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> VectorIndex:
        with np.load(Path(path), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("format") != FORMAT:
                raise ValueError(f"{path}: not a {FORMAT} file")
            idx = cls(
                int(meta["dim"]),
                fingerprint=str(meta["fingerprint"]),
                exact_threshold=int(meta["exact_threshold"]),
                candidates=int(meta["candidates"]),
                oversample=int(meta["oversample"]),
                fraction=float(meta.get("fraction", 0.01)),
            )
            idx._ids = [str(i) for i in z["ids"]]
            idx._bits, idx._q8, idx._scale = z["bits"], z["q8"], z["scale"]
            idx._f32 = z["f32"] if "f32" in z.files else None
        idx._slot = {id_: n for n, id_ in enumerate(idx._ids)}
        idx._alive = np.ones(len(idx._ids), dtype=bool)
        return idx
