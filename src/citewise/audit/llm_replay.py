"""Replay of answers that went through an LLM route, without calling any model.

:class:`RecordedLLM` stands in for the route in ``ask``: the judge's verdict is the one the
bundle recorded, the frozen payload is rebuilt from the fresh pack by the same code the
live route uses (``llm/written.py``), and the model's recorded sentences go through the
same citation and release-review code. It holds no client, so it cannot reach a model.

What can be checked depends on what the answer recorded:

- the payload hash (stage ``llm_payload``) when the bundle holds ``llm.payload``;
- the answer when the model's sentences were recorded (``llm.output``), or when the route
  handed the question to the extractive composer. An answer saved before the output was
  recorded, or a model failure (which cannot be reproduced offline), leaves the answer
  stage unchecked and replay reports ``partial``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from citewise.llm.frozen import EvidenceDoesNotFit
from citewise.llm.models import ModelSentence, SetLimits
from citewise.llm.written import build_payload, write_answer

if TYPE_CHECKING:
    from citewise.analysis.question import Question
    from citewise.answer.models import Answer, AnswerTrace, JudgeTrace
    from citewise.context import StageContext
    from citewise.core.search import SearchFilters
    from citewise.sufficiency.gates import GateInput
    from citewise.sufficiency.models import ConflictNote, Sufficiency


def uses_llm(bundle: dict[str, Any]) -> bool:
    """Did the bundle's answer go through an LLM route (writer or judge)?"""
    source = str((bundle.get("answer") or {}).get("answer_source") or "")
    return bool(bundle.get("llm") or bundle.get("llm_judge")) or source.startswith("llm:")


def _judge_from_reasons(bundle: dict[str, Any]) -> dict[str, Any] | None:
    """An older bundle without ``llm_judge``: the verdict is still in the reasons."""
    recovery = bundle.get("recovery") or {}
    for s in (bundle.get("sufficiency"), recovery.get("first")):
        for r in (s or {}).get("reasons") or ():
            gate, _, value = str(r).partition(":")
            if gate == "llm_judge":
                return {"verdict": value, "reason": str(r)}
            if gate == "llm_judge_failed":
                return {"verdict": None, "reason": str(r)}
    return None


class RecordedLLM:
    """The LLM route of a bundle, replayed from its record (``LLMWriter`` for ``ask``)."""

    def __init__(self, bundle: dict[str, Any]) -> None:
        self.record: dict[str, Any] = dict(bundle.get("llm") or {})
        answer = bundle.get("answer") or {}
        self.source = str(answer.get("answer_source") or "")
        self.outcome = str(answer.get("outcome") or "")
        self.judged = bundle.get("llm_judge") or _judge_from_reasons(bundle)
        self.rebuilt: dict[str, Any] | None = None  # the fresh payload (or its refusal)
        self.wrote = False

    @property
    def written(self) -> bool:
        return self.source.startswith("llm:")

    @property
    def output(self) -> list[ModelSentence] | None:
        out = self.record.get("output")
        if not isinstance(out, dict) or not isinstance(out.get("sentences"), list):
            return None
        return [ModelSentence.from_json(s) for s in out["sentences"] if isinstance(s, dict)]

    def expected_payload(self) -> dict[str, Any] | None:
        """The recorded payload (hash and items), its refusal, or None if not recorded."""
        refused = (self.record.get("evidence_set") or {}).get("refused")
        if refused:
            return {"refused": str(refused)}
        p = self.record.get("payload")
        if not isinstance(p, dict):
            return None
        items = [str(i.get("citation_id")) for i in p.get("items") or ()]
        return {"payload_sha256": p.get("payload_sha256"), "items": items}

    def unchecked_answer(self) -> str | None:
        """Why the answer stage cannot be checked offline, or None when it can."""
        if self.written:
            if self.output is None:
                return (
                    "the model's output was not recorded with this answer (it was saved "
                    "before citewise recorded model output), so the answer stage was not "
                    "checked"
                )
            return None
        if self.source == "extractive" or self.outcome != "generation_unavailable":
            return None
        if str(self.record.get("reason", "")).startswith("generation_failed"):
            return (
                f"no model produced an answer at the time ({self.record.get('reason')}); a "
                "model failure cannot be replayed without calling the model, so the answer "
                "stage was not checked"
            )
        return "the generation_unavailable answer is not rebuilt offline"

    # -- LLMWriter ---------------------------------------------------------------------
    def judge(
        self,
        kb: StageContext,
        question: Question,
        g: GateInput,
        intent: str,
        filters: SearchFilters | None,
    ) -> JudgeTrace | None:
        if not self.judged:
            return None
        return cast("JudgeTrace", dict(self.judged) | {"replayed_from_record": True})

    def answer(
        self,
        kb: StageContext,
        *,
        question: Question,
        g: GateInput,
        suff: Sufficiency,
        stale: tuple[str, ...],
        conflicts: list[ConflictNote],
        filters: SearchFilters | None,
        trace: AnswerTrace,
    ) -> Answer | None:
        limits = SetLimits.from_json(self.record.get("limits"))
        try:
            payload, _ = build_payload(kb, question, g, suff, stale, filters, limits)
        except EvidenceDoesNotFit as exc:
            self.rebuilt = {"refused": str(exc)}
            return None
        self.rebuilt = {
            "payload_sha256": payload.sha256(),
            "items": [i.fragment.citation_id for i in payload.items],
        }
        output = self.output
        if not self.written or output is None:
            return None
        self.wrote = True
        trace["llm"] = {
            "route": self.record.get("route"),
            "replayed_from_record": True,
            "payload": payload.to_json(),
        }
        return write_answer(
            kb,
            payload,
            output,
            source=self.source,
            g=g,
            suff=suff,
            conflicts=conflicts,
            trace=trace,
        )
