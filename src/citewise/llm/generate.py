"""Generation over the frozen set, with bounded fallback, and the answer it yields.

Every target of the route receives the same frozen payload (nothing is re-retrieved).
Only eligible failures (connection, timeout, HTTP 429/5xx, output breaking the answer
contract) move on to the next target; a refusal, a permission problem or a cancellation
stops. Each attempt is recorded with its outcome, duration and the payload's hash.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from citewise.analysis.question import Question
from citewise.answer.models import Answer, AnswerTrace, JudgeTrace, LLMTrace, new_trace_id
from citewise.core.messages import say
from citewise.core.search import SearchFilters
from citewise.core.secrets import public_url, redact, redact_obj, resolve_key, url_secrets
from citewise.llm.client import ChatClient, OpenAICompatibleClient, parse_json_object
from citewise.llm.frozen import (
    EvidenceDoesNotFit,
    FrozenPayload,
    _candidates,
    freeze,
    unescape,
)
from citewise.llm.judge import run_judge
from citewise.llm.models import (
    Attempt,
    AttemptOutcome,
    JudgeResult,
    LLMCallError,
    ModelSentence,
    Route,
    SetLimits,
)
from citewise.llm.routes import RouteStore
from citewise.llm.written import build_payload, write_answer
from citewise.sufficiency.gates import GateInput
from citewise.sufficiency.models import Sufficiency

if TYPE_CHECKING:
    from citewise.context import StageContext
    from citewise.sufficiency.models import ConflictNote

log = logging.getLogger("citewise.llm")
MAX_SENTENCES = 12


@dataclass(slots=True)
class LLMContext:
    """An active route, its client and the keys it may use (kept out of every output)."""

    route: Route
    client: ChatClient
    secrets: list[str] = field(default_factory=list)
    calls: dict[int, int] = field(default_factory=dict)

    def spend(self, target: int) -> bool:
        used = self.calls.get(target, 0)
        if used >= self.route.targets[target].call_budget:
            return False
        self.calls[target] = used + 1
        return True

    def clean(self, obj: Any) -> Any:
        return redact_obj(obj, self.secrets)

    # -- the LLMWriter protocol that ``ask`` uses (answer/writer.py) ------------------
    def judge(
        self,
        kb: StageContext,
        question: Question,
        g: GateInput,
        intent: str,
        filters: SearchFilters | None,
    ) -> JudgeTrace | None:
        verdict = judge_borderline(kb, self, question, g, intent, filters)
        return None if verdict is None else cast("JudgeTrace", dict(self.clean(verdict.to_json())))

    def answer(self, kb: StageContext, **kw: Any) -> Answer | None:
        return llm_answer(kb, self, **kw)


def open_route(home: Path, name: str, client: ChatClient | None = None) -> LLMContext:
    """The active configuration of route ``name``; a never-activated route is refused."""
    route = RouteStore(home).active(name)
    keys: dict[str, str] = {}
    for t in route.targets:
        if t.api_key_env:
            key = resolve_key(t.api_key_env, home)
            if key:
                keys[t.api_key_env] = key
    secrets = list(keys.values()) + [s for t in route.targets for s in url_secrets(t.endpoint)]
    return LLMContext(route, client or OpenAICompatibleClient(keys), secrets)


@dataclass(slots=True)
class Generation:
    sentences: list[ModelSentence] | None  # None: no target produced a valid answer
    attempts: list[Attempt]
    target: int | None = None
    stopped: str = ""  # the failure kind that stopped fallback, or "exhausted"


def validate(text: str, payload: FrozenPayload) -> list[ModelSentence]:
    """The answer contract: ``{"sentences": [{"text": str, "items": [known ids]}]}``."""
    obj = parse_json_object(text)
    raw = obj.get("sentences")
    if not isinstance(raw, list):
        raise LLMCallError("contract", "no sentences list")
    known = payload.by_id()
    out: list[ModelSentence] = []
    for s in raw[:MAX_SENTENCES]:
        if not isinstance(s, dict):
            raise LLMCallError("contract", "a sentence is not an object")
        body, items = s.get("text"), s.get("items")
        if not isinstance(body, str) or not body.strip():
            raise LLMCallError("contract", "a sentence has no text")
        if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
            raise LLMCallError("contract", "a sentence cites no item")
        unknown = [i for i in items if i not in known]
        if unknown:
            raise LLMCallError("contract", f"citations to unknown ids: {', '.join(unknown[:3])}")
        out.append(ModelSentence(unescape(body.strip()), tuple(dict.fromkeys(items))))
    return out


def generate(payload: FrozenPayload, ctx: LLMContext) -> Generation:
    messages = payload.messages()
    digest = payload.sha256()
    gen = Generation(None, [])
    for i, target in enumerate(ctx.route.targets):
        started = time.perf_counter()
        stop = False
        outcome: AttemptOutcome
        if not ctx.spend(i):
            gen.attempts.append(
                Attempt(i, target.model, target.endpoint, digest, "budget", "call budget spent", 0)
            )
            continue
        try:
            reply = ctx.client.complete(target, messages, timeout=target.timeout)
            sentences = [  # masked again after unescaping: no key reaches an answer
                ModelSentence(redact(s.text, ctx.secrets), s.items)
                for s in validate(redact(reply, ctx.secrets), payload)
            ]
            outcome, detail = "ok", f"{len(sentences)} sentences"
        except LLMCallError as exc:
            sentences, outcome, detail = None, exc.kind, redact(exc.detail, ctx.secrets)
            stop = not exc.eligible
        ms = (time.perf_counter() - started) * 1000
        gen.attempts.append(Attempt(i, target.model, target.endpoint, digest, outcome, detail, ms))
        log.info(
            "llm attempt %d %s %s: %s (%.0f ms)",
            i,
            target.model,
            public_url(target.endpoint),
            outcome,
            ms,
        )
        if sentences is not None:
            gen.sentences, gen.target = sentences, i
            return gen
        if stop:
            gen.stopped = outcome
            return gen
    gen.stopped = "exhausted"
    return gen


def judge_borderline(
    kb: StageContext,
    ctx: LLMContext,
    question: Question,
    g: GateInput,
    intent: str,
    filters: SearchFilters | None,
) -> JudgeResult | None:
    """Run the judge on the pack's leading items; None when nothing can be sent."""
    r = ctx.route
    items = [f for f in _candidates(g.pack, ()) if len(f.text) <= r.item_chars][: r.max_items]
    while items and sum(len(f.text) for f in items) > r.total_chars:
        items.pop()
    if not items:  # the judge is one call per question, outside the generation budget
        return None
    result = run_judge(freeze(question, g.pack, items, intent, filters), r, ctx.client)
    log.info("llm judge %s (%.0f ms)", result.reason, result.attempt.duration_ms)
    return result


def llm_answer(
    kb: StageContext,
    ctx: LLMContext,
    *,
    question: Question,
    g: GateInput,
    suff: Sufficiency,
    stale: tuple[str, ...],
    conflicts: list[ConflictNote],
    filters: SearchFilters | None,
    trace: AnswerTrace,
) -> Answer | None:
    """The generated answer, or ``generation_unavailable``; None means: give the user the
    extractive answer (only when the route offers it); ``trace`` records which, and the
    model's sentences (``llm.output``) so that replay can rebuild the answer offline."""
    r = ctx.route
    pack = g.pack
    limits = SetLimits(r.max_items, r.item_chars, r.total_chars)
    info: LLMTrace = {"route": r.name, "limits": limits.to_json(), "attempts": []}
    trace["llm"] = info
    try:
        payload, set_review = build_payload(kb, question, g, suff, stale, filters, limits)
    except EvidenceDoesNotFit as exc:
        info["evidence_set"] = {"refused": str(exc)}
        return _unavailable(kb, ctx, pack, suff, g, trace, f"evidence_set_does_not_fit:{exc}")
    info["evidence_set"] = {"review": set_review.to_json()}
    info["payload"] = payload.to_json()
    gen = generate(payload, ctx)
    info["attempts"] = [a.to_json() for a in gen.attempts]
    if gen.sentences is None or gen.target is None:
        info["stopped"] = gen.stopped
        offer = gen.stopped == "exhausted"
        return _unavailable(
            kb, ctx, pack, suff, g, trace, f"generation_failed:{gen.stopped}", offer
        )
    target = r.targets[gen.target]
    info["output"] = {
        "target": gen.target,
        "model": target.model,
        "sentences": [s.to_json() for s in gen.sentences],
    }
    trace["llm"] = ctx.clean(info)
    return write_answer(
        kb,
        payload,
        gen.sentences,
        source=f"llm:{r.name}/{target.model}",
        g=g,
        suff=suff,
        conflicts=conflicts,
        trace=trace,
    )


def _unavailable(
    kb: StageContext,
    ctx: LLMContext,
    pack: Any,
    suff: Sufficiency,
    g: GateInput,
    trace: AnswerTrace,
    reason: str,
    offer: bool = True,
) -> Answer | None:
    trace["llm"] = ctx.clean(trace["llm"] | {"reason": reason, "replay_id": pack.replay_id})
    if offer and ctx.route.extractive_fallback:
        trace["answer_source"] = "extractive"
        trace["llm"]["extractive_offered"] = True
        return None
    trace["failure_stage"] = "generation"
    trace["answer_source"] = None
    return Answer(
        outcome="generation_unavailable",
        answer=say(
            "refusal.generation_unavailable",
            "en",
            reason=reason.split(":", 1)[0].replace("_", " "),
            replay_id=pack.replay_id,
        ),
        citations=(),
        degradation=suff.degradation,
        sufficiency=suff,
        replay_id=pack.replay_id,
        trace_id=new_trace_id(),
        intent=g.intent.kind,
        kb=kb.name,
        revision=pack.revision,
        failure_stage="generation",
        trace=trace,
    )
