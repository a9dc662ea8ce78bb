"""Typed contracts of the sufficiency stage: reasons, the review's result, the question's
weighed terms and the presence judgement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

from citewise.analysis.tokenize import tokenize
from citewise.evidence.models import Fragment

Status = Literal["sufficient", "borderline", "insufficient"]
Degradation = Literal[
    "none",
    "partial_coverage",
    "conflict",
    "stale_evidence",
    "insufficient_evidence",
    "source_window_unavailable",
]
TermKind = Literal["identifier", "name", "word"]
#: The presence judgement of :func:`citewise.sufficiency.presence.judge`.
Verdict = Literal["ok", "partial", "absent"]


@dataclass(frozen=True, slots=True)
class Reason:
    """One machine-readable reason: a gate (``kind``), what it found (``detail``, None when
    the gate says nothing more) and the question's own words it names (``words``).

    Emitted (JSON, traces, ledger, text) as today's ``kind:detail`` string: ``str(r)``.
    """

    kind: str
    detail: str | None = None
    words: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.kind if self.detail is None else f"{self.kind}:{self.detail}"

    @classmethod
    def parse(cls, text: str) -> Reason:
        """The reason a ``kind:detail`` string (a recorded judge's, a bundle's) names."""
        kind, sep, detail = text.partition(":")
        return cls(kind, detail if sep else None)


@dataclass(frozen=True, slots=True)
class Sufficiency:
    status: Status
    degradation: Degradation
    reasons: tuple[Reason, ...]
    recoverable: bool = False

    @property
    def reason_texts(self) -> tuple[str, ...]:
        """The reasons as emitted: ``kind:detail`` strings."""
        return tuple(str(r) for r in self.reasons)

    def to_json(self) -> SufficiencyJSON:
        """The trace form (the fields in order; reasons as ``kind:detail`` strings)."""
        return {
            "status": self.status,
            "degradation": self.degradation,
            "reasons": self.reason_texts,
            "recoverable": self.recoverable,
        }


class SufficiencyJSON(TypedDict):
    status: Status
    degradation: Degradation
    reasons: tuple[str, ...]  # ``kind:detail`` strings (a list once read back)
    recoverable: bool


@dataclass(frozen=True, slots=True)
class QuestionTerm:
    key: str  # the index token (a stem, a literal, a CJK bigram)
    surface: str  # the question's own word for it
    kind: TermKind
    df: int  # chunks of the knowledge base that hold it
    required: bool
    #: A common English word no chunk holds ("abroad", "material"): its absence makes an
    #: answer partial, never insufficient (it may be the attribute asked about).
    soft: bool = False
    #: Held by so many chunks that it is the knowledge base's common vocabulary.
    kb_common: bool = False
    #: The question's own index token when it was read as a slip of ``key`` ("frensh"
    #: for "french", :mod:`citewise.sufficiency.spelling`); empty otherwise.
    asked: str = ""


@dataclass(frozen=True, slots=True)
class TermProfile:
    """A question's terms, weighed against one knowledge base."""

    terms: tuple[QuestionTerm, ...]
    #: Labelled numbers ("model 5") that cited text must name in the same form.
    labels: tuple[str, ...] = ()
    #: Chunks of the knowledge base the terms' counts (``df``) are out of (0: unknown).
    chunks: int = 0

    @property
    def required(self) -> tuple[QuestionTerm, ...]:
        return tuple(t for t in self.terms if t.required)

    @property
    def needed(self) -> tuple[str, ...]:
        """Index tokens of the distinctive terms a complete answer holds (the required,
        not soft, names and words; identifiers by their tokens)."""
        out: list[str] = []
        for t in self.terms:
            if t.required and not t.soft:
                out += tokenize(t.key) if t.kind == "identifier" else [t.key]
        return tuple(dict.fromkeys(out))

    @property
    def respelt(self) -> frozenset[str]:
        """The question's index tokens read as slips of a knowledge-base word."""
        return frozenset(t.asked for t in self.terms if t.asked)

    @property
    def checks(self) -> bool:
        """Whether :func:`citewise.sufficiency.presence.judge` has anything to check."""
        return bool(self.labels) or any(t.required for t in self.terms)


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    missing: tuple[str, ...]  # surface words
    reason: Reason | None  # None when ok

    def to_json(self) -> JudgementJSON:
        """The trace form (``reason`` as its ``kind:detail`` string, empty when ok)."""
        return {
            "verdict": self.verdict,
            "missing": self.missing,
            "reason": "" if self.reason is None else str(self.reason),
        }


class JudgementJSON(TypedDict):
    verdict: Verdict
    missing: tuple[str, ...]
    reason: str  # ``kind:detail``, empty when ok


@dataclass(frozen=True, slots=True)
class ConflictSide:
    """One source's side of a conflict: its exact excerpt and the value it states."""

    fragment: Fragment
    start: int
    end: int
    text: str
    value: str


@dataclass(frozen=True, slots=True)
class ConflictNote:
    """A conflict that matters for the question: the notice sentence and its sides."""

    subject: str
    attribute: str
    sentence: str
    sides: tuple[ConflictSide, ...]
    reason: str


class TermJSON(TypedDict):
    """The trace form of a :class:`QuestionTerm` (``asdict``): the ``terms`` section."""

    key: str
    surface: str
    kind: TermKind
    df: int
    required: bool
    soft: bool
    kb_common: bool
    asked: str


class ConflictSideJSON(TypedDict):
    """One side of a conflict (``asdict`` of :class:`ConflictSide`; the fragment as its
    dataclass fields)."""

    fragment: dict[str, object]
    start: int
    end: int
    text: str
    value: str


class ConflictJSON(TypedDict):
    """The trace form of a :class:`ConflictNote` (``asdict``): the ``conflicts`` section."""

    subject: str
    attribute: str
    sentence: str
    sides: list[ConflictSideJSON]
    reason: str


class ConstraintJSON(TypedDict):
    """The trace form of a question's constraint
    (:class:`citewise.sufficiency.constraints.Constraint`, ``asdict``)."""

    kind: str
    surface: str
    key: str
