"""Typed contracts of the sufficiency stage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["sufficient", "borderline", "insufficient"]
Degradation = Literal[
    "none",
    "partial_coverage",
    "conflict",
    "stale_evidence",
    "insufficient_evidence",
    "source_window_unavailable",
]


@dataclass(frozen=True, slots=True)
class Sufficiency:
    status: Status
    degradation: Degradation
    reasons: tuple[str, ...]
    recoverable: bool = False
