"""Dense embedders: the protocol every encoder meets (bundled model or, later, an
OpenAI-compatible endpoint), the typed "route unavailable" status, fingerprints, and the
health probe. The bundled encoder lives in :mod:`citewise.index.minilm`.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

# Nothing in the dense route may reach a model hub; pin the usual switches off for any
# library that would try.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

F32 = npt.NDArray[np.float32]
Kind = Literal["passage", "query"]


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 rows (local model or remote API)."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def multilingual(self) -> bool:
        """False for an English-only encoder: recall skips it for mostly-CJK queries."""
        ...

    @property
    def fingerprint(self) -> str:
        """Stable id of everything that changes the vectors; stored with every index."""
        ...

    def encode(self, texts: Sequence[str], kind: Kind = "passage") -> F32: ...


@dataclass(frozen=True, slots=True)
class Unavailable:
    """The dense route cannot run; ``reason`` says why and ``hint`` what to do."""

    route: str
    reason: str
    hint: str = ""


def precision_of(embedder: object) -> tuple[str, str]:
    """``(precision, why not int8)`` of an embedder: "int8" or "fp32" (encoders that do not
    say, such as remote ones, are taken as fp32)."""
    precision = str(getattr(embedder, "precision", "fp32"))
    return precision, str(getattr(embedder, "precision_reason", ""))


def fingerprint_of(parts: dict[str, str]) -> str:
    """``model@version/…#hash``: readable head, sha256 over every setting for equality."""
    canon = "|".join(f"{k}={parts[k]}" for k in sorted(parts))
    digest = hashlib.sha256(canon.encode("utf-8")).hexdigest()[:16]
    return f"{parts['model']}@{parts['package']}#{digest}"


def package_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    ok: bool
    same: float  # cosine of one text encoded twice (in different batches)
    related: float  # cosine of a paraphrase pair
    unrelated: float  # cosine of two unrelated texts
    bound: float  # unrelated must stay below this, related above it
    seconds: float
    reason: str = ""


PROBE_SAME = "The committee approved the budget for the new public library."
PROBE_RELATED = "A new public library received budget approval from the committee."
PROBE_UNRELATED = "Mitochondria produce most of the chemical energy in eukaryotic cells."
#: Calibrated on all-MiniLM-L6-v2 (int8 and fp32): same 1.000, paraphrase 0.953, unrelated 0.137.
PROBE_BOUND = 0.5


def probe(embedder: Embedder, bound: float = PROBE_BOUND) -> ProbeResult:
    """Health check: identical text scores ~1, unrelated texts score well below ``bound``."""
    start = time.perf_counter()
    try:
        a = embedder.encode([PROBE_SAME, PROBE_UNRELATED], kind="passage")
        b = embedder.encode([PROBE_RELATED, PROBE_SAME], kind="passage")
    except Exception as exc:
        return ProbeResult(
            False,
            0.0,
            0.0,
            0.0,
            bound,
            time.perf_counter() - start,
            f"encode failed: {type(exc).__name__}: {exc}",
        )
    secs = time.perf_counter() - start
    if a.shape != (2, embedder.dim) or b.shape != (2, embedder.dim) or a.dtype != np.float32:
        return ProbeResult(
            False,
            0.0,
            0.0,
            0.0,
            bound,
            secs,
            f"bad output shape/dtype {a.shape} {a.dtype}, want (2, {embedder.dim})",
        )
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return ProbeResult(False, 0.0, 0.0, 0.0, bound, secs, "non-finite vector values")
    same = float(a[0] @ b[1])
    related = float(a[0] @ b[0])
    unrelated = float(a[0] @ a[1])
    reason = ""
    norms = np.linalg.norm(np.vstack([a, b]), axis=1)
    if not np.allclose(norms, 1.0, atol=1e-3):
        reason = f"vectors not unit length (norms {norms.min():.3f}..{norms.max():.3f})"
    elif same < 0.99:
        reason = f"same text scored {same:.3f} against itself (want >= 0.99)"
    elif unrelated >= bound:
        reason = f"unrelated texts scored {unrelated:.3f} (want < {bound})"
    elif related < bound or related <= unrelated:
        reason = (
            f"paraphrase scored {related:.3f} (want >= {bound} and > unrelated {unrelated:.3f})"
        )
    return ProbeResult(not reason, same, related, unrelated, bound, secs, reason)


def limit_blas_threads(n: int = 1) -> bool:
    """Cap numpy's BLAS pool for the whole process (needs ``threadpoolctl``; False without it).

    Measured on 2 cores, one query at a time (ONNX encode + numpy search over 5k vectors):
    78-93 q/s with OpenBLAS's default pool, 168 q/s with one BLAS thread. Call it once at
    start-up of a serving process, or export ``OPENBLAS_NUM_THREADS=1`` before numpy loads.
    The ``numpy`` embedding backend wants the pool for bulk encoding: don't cap it there.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return False
    threadpool_limits(limits=n, user_api="blas")
    return True
