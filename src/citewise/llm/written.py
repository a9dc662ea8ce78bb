"""From the frozen set to the released answer, shared by the live LLM route and replay.

:func:`build_payload` picks the minimal evidence set and freezes it (the model's only
input); :func:`write_answer` turns the model's sentences into a cited, reviewed answer.
Both are deterministic: given the same pack and the same sentences, replay rebuilds the
same payload hash and the same answer without calling any model.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from citewise.answer.citations import cite_claims
from citewise.answer.clean import clean_sentence
from citewise.answer.compose import Candidate, compose, fragment_spans
from citewise.answer.models import Answer, Claim
from citewise.answer.procedure import merge_procedures
from citewise.answer.review import release_review
from citewise.answer.support import support_score
from citewise.evidence.nodes import NodeReader, spans_by_version
from citewise.llm.frozen import FrozenPayload, _candidates, freeze, minimal_set
from citewise.recall.models import SearchFilters
from citewise.sufficiency.gates import GateInput
from citewise.sufficiency.models import Sufficiency

if TYPE_CHECKING:
    from citewise.evidence.models import Fragment
    from citewise.kb import KnowledgeBase
    from citewise.sufficiency.conflicts_adapter import ConflictNote


@dataclass(frozen=True, slots=True)
class ModelSentence:
    text: str
    items: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
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


def build_payload(
    kb: KnowledgeBase,
    question: str,
    g: GateInput,
    suff: Sufficiency,
    stale: tuple[str, ...],
    filters: SearchFilters | None,
    limits: SetLimits,
) -> tuple[FrozenPayload, Sufficiency]:
    """The frozen payload and its set's gate review; raises ``EvidenceDoesNotFit``."""
    frags = _candidates(g.pack, stale)
    if g.intent.kind == "how_to":
        # a procedure is sent whole, as one item, so the item limit never cuts steps off
        reader = NodeReader(kb.store, kb.name)
        near = spans_by_version((f.path, f.version_id, f.char_start, f.char_end) for f in frags)
        frags = merge_procedures(frags, lambda path, vid: reader.near(path, vid, near[(path, vid)]))
    lead = compose(question, g.intent.kind, frags)
    required = tuple(dict.fromkeys(c.fragment.citation_id for c in lead))
    chosen, set_review = minimal_set(
        g,
        suff,
        required=required,
        pool=frags,
        max_items=limits.max_items,
        item_chars=limits.item_chars,
        total_chars=limits.total_chars,
    )
    return freeze(question, g.pack, chosen, g.intent.kind, filters), set_review


def _best_span(frag: Fragment, sentence: str) -> Any:
    spans = [
        s for s in fragment_spans(frag) if s.kind != "heading" and clean_sentence(s.text).strip()
    ]
    if not spans:
        return None
    return max(spans, key=lambda s: (support_score(sentence, [s.text]).score, -s.start))


def write_answer(
    kb: KnowledgeBase,
    payload: FrozenPayload,
    sentences: list[ModelSentence],
    *,
    source: str,
    g: GateInput,
    suff: Sufficiency,
    conflicts: list[ConflictNote],
    trace: dict[str, Any],
) -> Answer:
    """The model's sentences, each cited at the item span that best supports it, through
    the release review; ``insufficient_evidence`` when no sentence survives. Item ids
    outside ``payload`` are ignored (the live path has already refused them)."""
    from citewise.answer.pipeline import finish

    known = payload.by_id()
    cands: list[Candidate] = []
    groups: list[int] = []
    for n, s in enumerate(sentences):
        for item_id in s.items:
            if item_id not in known:
                continue
            frag = known[item_id].fragment
            span = _best_span(frag, s.text)
            if span is not None:
                cands.append(Candidate(frag, span, s.text, 0.0, (n, span.start)))
                groups.append(n)
    citations, per_cand = cite_claims(kb, cands, conflicts)
    claims: list[Claim] = []
    for n, s in enumerate(sentences):
        nums = tuple(
            dict.fromkeys(
                c.citations[0]
                for c, grp in zip(per_cand[: len(cands)], groups, strict=True)
                if grp == n
            )
        )
        claims.append(Claim(s.text, nums, 0.0, "", True))
    claims += per_cand[len(cands) :]  # conflict notices
    claims = release_review(claims, citations)
    kept = [c for c in claims if c.kept]
    trace["claims"] = [asdict(c) for c in claims]
    trace["answer_source"] = source
    failed = not any(c.verdict != "notice" for c in kept)
    return finish(
        kb,
        g.intent.kind,
        g.pack,
        suff,
        claims,
        citations,
        trace,
        failed_why="no generated sentence passed review" if failed else None,
        profile=g.profile,
    )


class LLMWriter(Protocol):
    """What ``ask`` needs of an LLM route: the judge's recorded verdict (trace JSON with
    ``verdict`` and ``reason``, or None when no judge ran) and the written answer (None:
    give the extractive answer). The live route calls a model; replay reads the bundle."""

    def judge(
        self,
        kb: KnowledgeBase,
        question: str,
        g: GateInput,
        intent: str,
        filters: SearchFilters | None,
    ) -> dict[str, Any] | None: ...

    def answer(
        self,
        kb: KnowledgeBase,
        *,
        question: str,
        g: GateInput,
        suff: Sufficiency,
        stale: tuple[str, ...],
        conflicts: list[ConflictNote],
        filters: SearchFilters | None,
        trace: dict[str, Any],
    ) -> Answer | None: ...
