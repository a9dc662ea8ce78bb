"""Typed contracts of the answer stage: the one public answer and its trace."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from citewise.ingest.locator import locator_fields
from citewise.sufficiency.models import Degradation, Sufficiency

Outcome = Literal["answered", "insufficient_evidence", "non_kb_reply", "generation_unavailable"]
FailureStage = Literal[
    "parsing_source",
    "indexing",
    "retrieval",
    "reranking",
    "context_assembly",
    "graph_evidence",
    "generation",
    "citation_verification",
    "permission_scope",
]


@dataclass(frozen=True, slots=True)
class Citation:
    """One numbered citation: the exact excerpt at its offsets in its revision."""

    number: int
    id: str  # a span id ``<node_id>:<start>-<end>`` the store resolves
    path: str
    doc_id: str
    revision: int
    version_id: int
    node_ids: tuple[str, ...]
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    excerpt: str
    sha256: str
    role: str
    #: Where the excerpt is in the original file (ingest/locator.py); None for text formats.
    locator: dict[str, Any] | None = None
    #: The second source's verdict (web/verify.py), set only when web verification ran.
    verification: dict[str, Any] | None = None
    #: Regulation, edition, clause path, effective date and status of the cited text
    #: (recall/editions.py); None when the document is no regulation edition.
    regulation: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """One answer sentence, its citations and how well they support it."""

    text: str
    citations: tuple[int, ...]
    support: float
    verdict: str  # supported | weak | unsupported | notice
    kept: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Answer:
    outcome: Outcome
    answer: str
    citations: tuple[Citation, ...]
    degradation: Degradation
    sufficiency: Sufficiency
    replay_id: str
    trace_id: str
    intent: str
    kb: str
    revision: int
    claims: tuple[Claim, ...] = ()
    failure_stage: FailureStage | None = None
    trace: dict[str, Any] = field(default_factory=dict)

    def to_json(self, *, with_trace: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "outcome": self.outcome,
            "answer": self.answer,
            "citations": [
                {
                    "number": c.number,
                    "id": c.id,
                    "path": c.path,
                    "doc_id": c.doc_id,
                    "revision": c.revision,
                    "version_id": c.version_id,
                    "node_ids": list(c.node_ids),
                    "line_start": c.line_start,
                    "line_end": c.line_end,
                    "char_start": c.char_start,
                    "char_end": c.char_end,
                    "excerpt": c.excerpt,
                    "sha256": c.sha256,
                    "role": c.role,
                    **locator_fields(c.locator),
                    **({"verification": c.verification} if c.verification is not None else {}),
                    **({"regulation": c.regulation} if c.regulation is not None else {}),
                }
                for c in self.citations
            ],
            "degradation": self.degradation,
            "sufficiency": {
                "status": self.sufficiency.status,
                "reasons": list(self.sufficiency.reasons),
            },
            "intent": self.intent,
            "kb": self.kb,
            "revision": self.revision,
            "replay_id": self.replay_id,
            "trace_id": self.trace_id,
            "failure_stage": self.failure_stage,
            # Which writer produced the text: "extractive" or "llm:<route>/<model>".
            "answer_source": str(self.trace.get("answer_source", "extractive")),
        }
        if with_trace:
            out["trace"] = self.trace
        return out


def new_trace_id() -> str:
    """A fresh answer trace id: ``t_`` and 24 hex digits."""
    return f"t_{uuid.uuid4().hex[:24]}"
