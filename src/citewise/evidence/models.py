"""Typed contracts of the evidence stage: fragments, budgets, decisions and the context pack.

A :class:`Fragment` is an exact slice of one document version's decoded text:
``text == doc_text[char_start:char_end]`` unless ``truncated``, in which case
``text == doc_text[char_start:head_end] + TRUNCATION_MARKER + doc_text[tail_start:char_end]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from citewise.analysis.intent import IntentKind
from citewise.analysis.question import Question
from citewise.core.locator import locator_fields

Role = Literal[
    "direct_support",
    "parent_context",
    "adjacent_context",
    "background",
    "graph_neighbor_support",
    "conflict",
]
Profile = Literal["base", "causal", "deep"]
Action = Literal["include", "truncate", "drop"]
#: Whether the pack holds direct evidence.
PackOutcome = Literal["ok", "insufficient_evidence"]
#: What a pack could not do: find direct evidence, or read a source's window.
LimitationKind = Literal["insufficient_evidence", "source_window_unavailable"]

#: Lower is kept first; when the budget is short, the highest number is dropped first.
ROLE_PRIORITY: dict[str, int] = {
    "direct_support": 0,
    "conflict": 1,
    "graph_neighbor_support": 2,  # a few, budgeted: a neighbor's own words, not a title
    "parent_context": 3,
    "adjacent_context": 4,
    "background": 5,
}

#: Inserted between the kept head and tail of a middle-truncated fragment.
TRUNCATION_MARKER = "\n[…]\n"


@dataclass(frozen=True, slots=True)
class Budget:
    """Hard caps of one context pack.

    The issue states the caps in characters; they are enforced in *estimated tokens*
    (:func:`citewise.evidence.tokens.estimate_tokens`) at ``chars_per_token`` characters
    per token, and in characters, so CJK text (about one token per character) gets the
    same token budget as English rather than four times as many tokens.
    """

    max_fragments: int = 14
    fragment_chars: int = 1400
    total_chars: int = 5600
    chars_per_token: int = 4
    #: Code, table and Mermaid blocks enter whole or not at all, under this share of the
    #: per-fragment cap.
    block_share: float = 0.6
    #: No single document may take more than this share of the total.
    doc_share: float = 0.6
    #: Direct support may fill at most this share of ``max_fragments`` (context needs room).
    direct_share: float = 0.5

    @property
    def fragment_tokens(self) -> int:
        return self.fragment_chars // self.chars_per_token

    @property
    def total_tokens(self) -> int:
        return self.total_chars // self.chars_per_token

    @property
    def block_tokens(self) -> int:
        return int(self.fragment_tokens * self.block_share)

    @property
    def max_direct(self) -> int:
        return max(1, int(self.max_fragments * self.direct_share))

    @property
    def doc_tokens(self) -> int:
        return int(self.total_tokens * self.doc_share)


#: Starting budgets per answer profile (from the issue; see docs/benchmarks.md).
BUDGETS: dict[str, Budget] = {
    "base": Budget(14, 1400, 5600),
    "causal": Budget(20, 1500, 7600),
    "deep": Budget(24, 1600, 9000),
}


@dataclass(frozen=True, slots=True)
class RSEParams:
    """Relevant segment extraction; defaults follow dsRAG's published defaults except
    ``reference_chars`` (our chunk length normaliser, ~160 words)."""

    max_segment_chunks: int = 15
    max_total_chunks: int = 30
    min_segment_value: float = 0.5
    irrelevant_penalty: float = 0.18
    decay_rate: float = 30.0
    reference_chars: int = 900


@dataclass(frozen=True, slots=True)
class EvidenceConfig:
    top_k: int = 20  # hits asked of recall
    per_doc_cap: int = 4  # recall's per-document cap while RSE is on (adjacent hits matter)
    adjacent_window: int = 5  # paragraphs before and after a direct span
    max_spans_per_segment: int = 3
    min_span_coverage: float = 0.3  # share of key terms a sentence must hold
    rse: RSEParams = field(default_factory=RSEParams)


@dataclass(frozen=True, slots=True)
class Fragment:
    role: Role
    doc_id: str
    path: str
    revision: int
    version_id: int
    node_ids: tuple[str, ...]
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    heading_path: tuple[str, ...]
    text: str
    tokens: int
    truncated: bool
    citation_id: str
    head_end: int | None = None
    tail_start: int | None = None
    #: Why it was selected (e.g. ``sentence_match``, ``section_lead``, ``table_header``).
    reason: str = ""
    #: Order of preference inside its role (lower first).
    rank: float = 0.0
    kind: str = ""  # node kind of the (first) unit: code, table, mermaid, paragraph...
    #: graph_neighbor_support only: how the neighbor connects to the anchor.
    relation: str = ""
    direction: str = ""
    path_to_anchor: tuple[str, ...] = ()
    #: Where the text is in the original file (core/locator.py); None for text formats.
    locator: dict[str, Any] | None = None
    #: Regulation, edition, clause path, effective date and status (recall/editions.py);
    #: None when the document is no regulation edition.
    regulation: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "doc_id": self.doc_id,
            "path": self.path,
            "revision": self.revision,
            "version_id": self.version_id,
            "node_ids": list(self.node_ids),
            "line_start": self.line_start,
            "line_end": self.line_end,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "heading_path": list(self.heading_path),
            "text": self.text,
            "tokens": self.tokens,
            "truncated": self.truncated,
            "head_end": self.head_end,
            "tail_start": self.tail_start,
            "citation_id": self.citation_id,
            "reason": self.reason,
            **locator_fields(self.locator),
            **({"regulation": self.regulation} if self.regulation is not None else {}),
            **(
                {
                    "relation": self.relation,
                    "direction": self.direction,
                    "path_to_anchor": list(self.path_to_anchor),
                }
                if self.role == "graph_neighbor_support"
                else {}
            ),
        }


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    role: Role
    citation_id: str
    path: str
    tokens: int
    reason: str


@dataclass(frozen=True, slots=True)
class Limitation:
    kind: LimitationKind
    reason: str
    doc_id: str = ""
    path: str = ""


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of adjacent chunks chosen by RSE (``end`` exclusive, chunk ordinals)."""

    doc_id: str
    version_id: int
    start: int
    end: int
    value: float


@dataclass(frozen=True, slots=True)
class BudgetUse:
    fragments: int
    tokens: int
    chars: int
    max_fragments: int
    max_tokens: int
    max_chars: int
    fragment_tokens: int
    doc_tokens: int
    per_doc: dict[str, int]


@dataclass(frozen=True, slots=True)
class EvidencePack:
    query: str
    normalized_query: str
    intent: IntentKind
    profile: Profile
    kb: str
    revision: int
    rse: bool
    outcome: PackOutcome
    direct: tuple[Fragment, ...]
    augmentation: tuple[Fragment, ...]
    graph_neighbors: tuple[Fragment, ...]
    conflicts: tuple[Fragment, ...]
    limitations: tuple[Limitation, ...]
    segments: tuple[Segment, ...]
    decisions: tuple[Decision, ...]
    budget: Budget
    budget_use: BudgetUse
    replay_id: str
    config: dict[str, Any] = field(default_factory=dict)
    #: (kept path, path of a document with identical text left out of the pack).
    copies: tuple[tuple[str, str], ...] = ()
    #: ``query`` as analysed for the pack (:func:`~citewise.evidence.assemble.assemble`
    #: sets it; never written to the trace): the answer's later checks read it instead of
    #: analysing the text again. None for a pack built outside ``assemble``.
    question: Question | None = field(default=None, compare=False, repr=False)

    @property
    def fragments(self) -> tuple[Fragment, ...]:
        return self.direct + self.augmentation + self.graph_neighbors + self.conflicts

    def citation_map(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for f in self.fragments:
            out.setdefault(
                f.citation_id,
                {
                    "role": f.role,
                    "doc_id": f.doc_id,
                    "path": f.path,
                    "revision": f.revision,
                    "line_start": f.line_start,
                    "line_end": f.line_end,
                    "char_start": f.char_start,
                    "char_end": f.char_end,
                },
            )
        return out

    def to_json(self) -> dict[str, Any]:
        b = self.budget
        return {
            "query": {
                "text": self.query,
                "normalized": self.normalized_query,
                "intent": self.intent,
                "profile": self.profile,
            },
            "kb": self.kb,
            "revision": self.revision,
            "outcome": self.outcome,
            "rse": self.rse,
            "replay_id": self.replay_id,
            "direct_evidence": [f.to_json() for f in self.direct],
            "document_augmentation": [f.to_json() for f in self.augmentation],
            "graph_neighbor_evidence": [f.to_json() for f in self.graph_neighbors],
            "conflicts_and_limitations": {
                "conflicts": [f.to_json() for f in self.conflicts],
                "limitations": [
                    {"kind": x.kind, "reason": x.reason, "doc_id": x.doc_id, "path": x.path}
                    for x in self.limitations
                ],
            },
            "citation_map": self.citation_map(),
            "segments": [
                {
                    "doc_id": s.doc_id,
                    "version_id": s.version_id,
                    "start": s.start,
                    "end": s.end,
                    "value": round(s.value, 4),
                }
                for s in self.segments
            ],
            "budget": {
                "max_fragments": b.max_fragments,
                "fragment_chars": b.fragment_chars,
                "total_chars": b.total_chars,
                "fragment_tokens": b.fragment_tokens,
                "total_tokens": b.total_tokens,
                "block_tokens": b.block_tokens,
                "doc_tokens": b.doc_tokens,
                "used": {
                    "fragments": self.budget_use.fragments,
                    "tokens": self.budget_use.tokens,
                    "chars": self.budget_use.chars,
                    "per_doc": dict(self.budget_use.per_doc),
                },
            },
            "decisions": [
                {
                    "action": d.action,
                    "role": d.role,
                    "citation_id": d.citation_id,
                    "path": d.path,
                    "tokens": d.tokens,
                    "reason": d.reason,
                }
                for d in self.decisions
            ],
            "config": self.config,
        }


class PackQueryJSON(TypedDict):
    text: str
    normalized: str
    intent: str
    profile: str


class PackJSON(TypedDict):
    """The trace form of an :class:`EvidencePack` (:meth:`EvidencePack.to_json`): an
    answer's ``pack`` section and an exported bundle's ``evidence_pack``."""

    query: PackQueryJSON
    kb: str
    revision: int
    outcome: str
    rse: bool
    replay_id: str
    direct_evidence: list[dict[str, Any]]  # Fragment.to_json
    document_augmentation: list[dict[str, Any]]
    graph_neighbor_evidence: list[dict[str, Any]]
    conflicts_and_limitations: dict[str, list[dict[str, Any]]]
    citation_map: dict[str, Any]
    segments: list[dict[str, Any]]
    budget: dict[str, Any]
    decisions: list[dict[str, Any]]
    config: dict[str, Any]
