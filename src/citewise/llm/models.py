"""Typed contracts of the optional LLM stage: routes and their status, attempts and call
failures, the judge's result, the evidence-set limits and the model's sentences."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from citewise.core.secrets import public_url
from citewise.errors import UsageError

if TYPE_CHECKING:
    from citewise.answer.models import AttemptJSON, SentenceJSON

#: The sufficiency judge's verdict.
JudgeVerdict = Literal["sufficient", "insufficient"]
#: Why one call failed. Only the kinds in :data:`ELIGIBLE` move on to the next target.
FailureKind = Literal[
    "connection",
    "timeout",
    "rate_limited",
    "server_error",
    "contract",
    "refusal",
    "permission",
    "cancelled",
    "rejected",
    "budget",
]
#: How one call ended.
AttemptOutcome = Literal["ok"] | FailureKind
ELIGIBLE: frozenset[str] = frozenset(
    {"connection", "timeout", "rate_limited", "server_error", "contract"}
)
MAX_FALLBACKS = 3


@dataclass(frozen=True, slots=True)
class Target:
    """One model at one endpoint, with its own limits."""

    model: str
    endpoint: str  # base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1
    timeout: float = 30.0  # seconds per call
    call_budget: int = 1  # calls to this target per question
    token_budget: int = 1024  # completion tokens per call (max_tokens)
    api_key_env: str = ""  # name of the variable holding the key; never the key itself

    def to_json(self, *, public: bool = False) -> dict[str, Any]:
        """The stored form; ``public=True`` hides endpoint credentials (for display)."""
        return {
            "model": self.model,
            "endpoint": public_url(self.endpoint) if public else self.endpoint,
            "timeout": self.timeout,
            "call_budget": self.call_budget,
            "token_budget": self.token_budget,
            "api_key_env": self.api_key_env,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Target:
        t = cls(
            model=str(d["model"]),
            endpoint=str(d["endpoint"]).rstrip("/"),
            timeout=float(d.get("timeout", 30.0)),
            call_budget=int(d.get("call_budget", 1)),
            token_budget=int(d.get("token_budget", 1024)),
            api_key_env=str(d.get("api_key_env") or ""),
        )
        t.validate()
        return t

    def validate(self) -> None:
        if not self.model.strip():
            raise UsageError("A route target needs a model name.")
        if not self.endpoint.startswith(("http://", "https://")):
            raise UsageError(
                f"Endpoint {self.endpoint!r} is not an http(s) URL.",
                hint="Use the API base, e.g. http://127.0.0.1:11434/v1 for Ollama.",
            )
        if self.timeout <= 0 or self.call_budget < 1 or self.token_budget < 16:
            raise UsageError(
                "Timeout must be positive, call budget at least 1, token budget at least 16."
            )
        if self.api_key_env and not self.api_key_env.replace("_", "").isalnum():
            raise UsageError(
                f"{self.api_key_env!r} is not an environment variable name.",
                hint="Pass the NAME of the variable holding the key, never the key.",
            )

    @property
    def label(self) -> str:
        return self.model


@dataclass(frozen=True, slots=True)
class Route:
    """A primary target and at most three fallbacks, tried in order."""

    name: str
    targets: tuple[Target, ...]
    #: Offer the deterministic extractive answer when generation is unavailable.
    extractive_fallback: bool = False
    max_items: int = 3
    item_chars: int = 1200
    total_chars: int = 3000
    judge_timeout: float = 5.0

    def validate(self) -> None:
        if not self.name or not self.name.replace("-", "").replace("_", "").isalnum():
            raise UsageError(f"Route name {self.name!r}: use letters, digits, - and _.")
        if not self.targets:
            raise UsageError("A route needs a primary target.")
        if len(self.targets) > 1 + MAX_FALLBACKS:
            raise UsageError(f"A route has at most {MAX_FALLBACKS} fallbacks.")
        if self.max_items < 1 or self.item_chars < 50 or self.total_chars < self.item_chars:
            raise UsageError("Evidence set limits: at least 1 item, 50 chars, total >= item.")
        for t in self.targets:
            t.validate()

    def to_json(self, *, public: bool = False) -> dict[str, Any]:
        return {
            "targets": [t.to_json(public=public) for t in self.targets],
            "extractive_fallback": self.extractive_fallback,
            "max_items": self.max_items,
            "item_chars": self.item_chars,
            "total_chars": self.total_chars,
            "judge_timeout": self.judge_timeout,
        }

    @classmethod
    def from_json(cls, name: str, d: dict[str, Any]) -> Route:
        r = cls(
            name=name,
            targets=tuple(Target.from_json(t) for t in d.get("targets") or []),
            extractive_fallback=bool(d.get("extractive_fallback", False)),
            max_items=int(d.get("max_items", 3)),
            item_chars=int(d.get("item_chars", 1200)),
            total_chars=int(d.get("total_chars", 3000)),
            judge_timeout=float(d.get("judge_timeout", 5.0)),
        )
        r.validate()
        return r


@dataclass(frozen=True, slots=True)
class Attempt:
    """One call: which target, what it received (payload hash), outcome and duration."""

    target: int
    model: str
    endpoint: str
    payload_sha256: str
    outcome: AttemptOutcome
    detail: str
    duration_ms: float

    def to_json(self) -> AttemptJSON:
        return {
            "target": self.target,
            "model": self.model,
            "endpoint": public_url(self.endpoint),
            "payload_sha256": self.payload_sha256,
            "outcome": self.outcome,
            "detail": self.detail,
            "duration_ms": round(self.duration_ms, 1),
        }


class LLMCallError(Exception):
    """One call failed; ``kind`` decides whether the next target may be tried."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")

    @property
    def eligible(self) -> bool:
        return self.kind in ELIGIBLE


@dataclass(slots=True)
class CallLog:
    """Attempts made for one question (generation and judge)."""

    attempts: list[Attempt] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class JudgeResult:
    verdict: JudgeVerdict | None  # None when the judge failed
    missing: tuple[str, ...]
    reason: str  # llm_judge:<verdict> or llm_judge_failed:<why>
    attempt: Attempt

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "missing": list(self.missing),
            "reason": self.reason,
            "attempt": self.attempt.to_json(),
        }


#: A route's life: never activated, active, or edited since its last activation.
RouteState = Literal["draft", "active", "changed"]


@dataclass(frozen=True, slots=True)
class LLMRouteStatus:
    name: str
    state: RouteState
    route: Route
    activated_at: str | None
    check: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ModelSentence:
    text: str
    items: tuple[str, ...]

    def to_json(self) -> SentenceJSON:
        return {"text": self.text, "items": list(self.items)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ModelSentence:
        return cls(str(d.get("text", "")), tuple(str(i) for i in d.get("items") or ()))


@dataclass(frozen=True, slots=True)
class SetLimits:
    """The evidence-set bounds of a route (recorded in the trace so replay can reuse them)."""

    max_items: int = 3
    item_chars: int = 1200
    total_chars: int = 3000

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> SetLimits:
        d = d or {}
        base = cls()
        return cls(
            int(d.get("max_items", base.max_items)),
            int(d.get("item_chars", base.item_chars)),
            int(d.get("total_chars", base.total_chars)),
        )
