"""Typed contracts of the answer stage: the one public answer, its claims and citations,
and its trace (a JSON object, typed section by section: what the answer hides)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from citewise.analysis.question import ConditionJSON, IntentJSON
from citewise.core.locator import locator_fields
from citewise.core.search import RetrievalJSON
from citewise.evidence.models import PackJSON, Role
from citewise.sufficiency.models import (
    ConflictJSON,
    ConstraintJSON,
    Degradation,
    JudgementJSON,
    Sufficiency,
    SufficiencyJSON,
    TermJSON,
)

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

#: How well a claim's citations support it; "" until the release review has scored it,
#: "notice" for a conflict notice (it reports the sources, it is not scored).
ClaimVerdict = Literal["", "supported", "weak", "unsupported", "notice"]
#: The role of a cited excerpt: its fragment's role, or the heading context it was cited
#: with ("parent_context"), or a side of a conflict ("conflict").
CitationRole = Role
#: A JSON object produced by another stage's ``to_json`` (kept as it is written).
JSONObject = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
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
    role: CitationRole
    #: Where the excerpt is in the original file (core/locator.py); None for text formats.
    locator: dict[str, Any] | None = None
    #: The second source's verdict (web/verify.py), set only when web verification ran.
    verification: dict[str, Any] | None = None
    #: Regulation, edition, clause path, effective date and status of the cited text
    #: (recall/editions.py); None when the document is no regulation edition.
    regulation: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Claim:
    """One answer sentence, its citations and how well they support it."""

    text: str
    citations: tuple[int, ...]
    support: float
    verdict: ClaimVerdict
    kept: bool
    reason: str = ""

    def to_json(self) -> ClaimJSON:
        return {
            "text": self.text,
            "citations": self.citations,
            "support": self.support,
            "verdict": self.verdict,
            "kept": self.kept,
            "reason": self.reason,
        }


class ClaimJSON(TypedDict):
    text: str
    citations: tuple[int, ...]
    support: float
    verdict: ClaimVerdict
    kept: bool
    reason: str


class RecoveryTrace(TypedDict):
    """The one extra assembly pass: whether it ran, helped, and both reviews."""

    attempted: bool
    improved: bool
    first: SufficiencyJSON
    second: SufficiencyJSON


class AttemptJSON(TypedDict):
    """One call to a route's model (``llm.models.Attempt.to_json``): no key, no prompt."""

    target: int
    model: str
    endpoint: str  # without credentials
    payload_sha256: str
    outcome: str
    detail: str
    duration_ms: float


class PayloadJSON(TypedDict):
    """The frozen payload a route's model is shown (``llm.frozen.FrozenPayload``)."""

    question: str
    conditions: dict[str, Any]
    items: list[dict[str, Any]]
    replay_id: str
    payload_sha256: str
    removed_orchestration: list[dict[str, Any]]  # what the model is shown a placeholder for


class SentenceJSON(TypedDict):
    """One sentence the model wrote and the evidence items it names."""

    text: str
    items: list[str]


class EvidenceSetTrace(TypedDict, total=False):
    """The route's evidence set: refused (it does not fit the limits) or its gate review."""

    refused: str
    review: SufficiencyJSON


class JudgeTrace(TypedDict, total=False):
    """The LLM sufficiency judge's verdict (``llm.judge.JudgeResult.to_json``)."""

    verdict: str | None  # "sufficient" | "insufficient"; None when the judge failed
    missing: list[str]
    reason: str  # llm_judge:<verdict> or llm_judge_failed:<why>
    attempt: AttemptJSON
    replayed_from_record: bool


class LLMOutputTrace(TypedDict):
    target: int
    model: str
    sentences: list[SentenceJSON]


class LLMTrace(TypedDict, total=False):
    """An LLM route's part of the trace: its limits, the frozen payload, every attempt,
    the model's sentences (so replay can rebuild the answer offline), or why it stopped."""

    route: str | None
    replayed_from_record: bool
    limits: dict[str, int]
    attempts: list[AttemptJSON]
    evidence_set: EvidenceSetTrace
    payload: PayloadJSON
    stopped: str | None
    output: LLMOutputTrace
    reason: str
    replay_id: str
    extractive_offered: bool


class ConditionsTrace(TypedDict, total=False):
    """The question's condition set ("stated") and what it did to the evidence (issue 22):
    the sections set aside for another condition, and the composer's per-condition
    outcome (:meth:`citewise.answer.conditions.ConditionOutcome.to_json`)."""

    stated: list[ConditionJSON]
    sections_excluded: list[dict[str, Any]]  # a section's path, heading and condition
    excluded: list[dict[str, Any]]
    per_condition: list[dict[str, Any]]
    missing: str | None
    missing_values: list[str]
    unanswered: dict[str, list[str]]


class RewriteTrace(TypedDict, total=False):
    """A follow-up's standalone rewrite (analysis/followup.py), as the caller passes it."""

    original: str
    standalone: str
    rule: str


class RemovedTrace(TypedDict):
    """A sentence no answer may use as such (answer/orchestration.py): where it is, the
    patterns it matched, and its text."""

    path: str
    char_start: int
    char_end: int
    markers: list[str]
    reason: str
    text: str


class MeaningTrace(TypedDict, total=False):
    """The meaning check of the quoted units (answer/meaning.py): the model's scores and
    verdict, the support reading, the next candidates read, a rescue over a word-presence
    refusal, why no check ran (``skipped``), or the model's state when it is missing."""

    scores: list[float]
    passed: bool
    floor: float
    model: str
    support: dict[str, object]
    recovery: dict[str, object]
    rescue: dict[str, object]
    titled: dict[str, object]  # the units read under their document's title line
    skipped: str
    status: str
    reason: str
    hint: str


class RelationTrace(TypedDict):
    """A relation question's asked relation, subject, statements and graph-support gate
    (answer/graph_answer.py)."""

    asked: dict[str, Any]
    subject: str | None
    statements: list[dict[str, Any]]
    gate: str | None


class WebVerificationTrace(TypedDict):
    """The opt-in web second source's run (web/verify.py): its searches, fetches and
    per-citation comparisons."""

    max_pages: int
    searches: list[dict[str, Any]]
    fetches: list[dict[str, Any]]
    comparisons: list[dict[str, Any]]


class EditionJSON(TypedDict):
    """One edition of a document family: its path, title and edition label or date."""

    path: str
    title: str
    edition: str


class SetAsideJSON(TypedDict):
    """An older edition recall found and the cited edition that supersedes it."""

    set_aside: EditionJSON
    superseded_by: EditionJSON


class AnswerTrace(TypedDict, total=False):
    """What the answer hides, in the order the pipeline writes it (the JSON keeps that
    order). Sections appear only on the paths that reach them; each is typed by the
    contract of the stage that writes it."""

    question: str
    intent: IntentJSON  # the classified intent (analysis.intent.Intent)
    conditions: ConditionsTrace
    lineage: dict[str, str]  # conversation / turn / task / parent ids, as given
    rewrite: RewriteTrace
    caller_lineage: dict[str, str]  # ids a caller sent that the server's lineage overrode
    pinned_revision: int  # the KB revision asked at, when pinned (issue 38)
    retrieval: RetrievalJSON | None  # recall.search.search_summary; None after a recovery
    terms: list[TermJSON]  # the question's weighed terms (QuestionTerm)
    respelt: dict[str, str]  # slips read as the knowledge base's words (spelling.py)
    recovery: RecoveryTrace | None
    llm_judge: JudgeTrace
    pack: PackJSON  # EvidencePack.to_json
    sufficiency: SufficiencyJSON
    conflicts: list[ConflictJSON]  # ConflictNote
    conflict_resolutions: list[dict[str, Any]]  # resolutions honoured (issue 38)
    procedure_steps_added: int
    llm_skipped: str  # why an LLM route did not write (a relation answered from the graph)
    llm: LLMTrace
    answer_source: str | None  # "extractive" | "llm:<route>/<model>" | None (none wrote)
    removed_orchestration: list[RemovedTrace]
    constraints: list[ConstraintJSON]  # the question's constraints (sufficiency/constraints.py)
    unit_scores: list[float]  # the chosen answer units' scores
    meaning: MeaningTrace
    profile_missing: list[str]  # required profile parts the answer lacks (answer/coverage.py)
    claims: list[ClaimJSON]
    relation: RelationTrace
    cited_presence: JudgementJSON
    failure_stage: FailureStage
    missing: str  # the reasons of an insufficient answer, "; "-joined
    web_verification: WebVerificationTrace
    #: The policy's verification routing (governance/verification.py, issue 38).
    verification_route: dict[str, Any]
    set_aside: list[SetAsideJSON]  # older editions recall found, superseded by a cited one


@dataclass(frozen=True, slots=True, kw_only=True)
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
    trace: AnswerTrace = field(default_factory=lambda: AnswerTrace())
    #: The words a user reads about this answer, in the language chosen for them
    #: (answer/wording.py); None until the facade words it. Not part of the replay id.
    display: Mapping[str, Any] | None = None
    #: Documents withheld from the caller that would have matched, as the caller may see
    #: them ({title, reason, owner}; policy ``redaction: metadata``, governance/redaction.py);
    #: set by the facade, never part of the replay id. Shown only when not empty.
    withheld: tuple[Mapping[str, Any], ...] = ()

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
                "reasons": list(self.sufficiency.reason_texts),
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
        if self.display is not None:
            out["display"] = dict(self.display)
        if self.withheld:
            out["withheld"] = [dict(w) for w in self.withheld]
        if self.trace.get("verification_route"):  # policy routing (issue 38)
            out["verification_route"] = dict(self.trace["verification_route"])
        if with_trace:
            out["trace"] = self.trace
        return out


def new_trace_id() -> str:
    """A fresh answer trace id: ``t_`` and 24 hex digits."""
    return f"t_{uuid.uuid4().hex[:24]}"
