"""Conflicts met by an answer against the recorded resolutions (issue 38).

The rule, for any pair of documents that state one fact with different values
(:mod:`citewise.sufficiency.conflicts_adapter` finds them): a conflict whose pair of spans
(:func:`~citewise.core.conflict_rules.pair_id`) has a resolution in force is **settled**:
the answer no longer carries it as a conflict, the overruled side's fragments leave the
evidence (so only the governing side can be cited), and the trace names the resolution.
A conflict without one stays **open**: it degrades the answer (policy ``degrade``, the
behaviour before issue 38) or refuses it with reason ``needs_review`` (policy
``needs_review``). Pure functions of the notes, the pack and the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from citewise.core.conflict_rules import ConflictRules, Resolution, pair_id
from citewise.evidence.models import EvidenceConfig, EvidencePack, Fragment
from citewise.evidence.replay import replay_id
from citewise.sufficiency.models import ConflictNote, ConflictSide, Reason, Sufficiency
from citewise.sufficiency.verdict import refused

if TYPE_CHECKING:
    from citewise.context import StageContext
    from citewise.core.search import SearchFilters

__all__ = [
    "Settled",
    "awaiting_review",
    "note_id",
    "pack_with_conflicts",
    "settle",
    "with_conflict_sides",
]

#: The reason kind of an answer withheld until a person resolves its conflict.
NEEDS_REVIEW = "needs_review"


def _flat(text: str) -> str:
    return " ".join(text.split())


def note_id(note: ConflictNote) -> str:
    """The id of the pair of spans ``note`` reports (the queue's key)."""
    return pair_id((s.fragment.path, s.text) for s in note.sides)


@dataclass(frozen=True, slots=True)
class Settled:
    """The conflicts an answer still carries (``open``) and those a resolution settled."""

    open: list[ConflictNote]
    applied: list[tuple[ConflictNote, Resolution]]

    def trace(self) -> list[dict[str, Any]]:
        """The ``conflict_resolutions`` trace section: each resolution honoured."""
        return [
            {
                **r.to_json(),
                "subject": n.subject,
                "attribute": n.attribute,
                "overruled": sorted({s.fragment.path for s in _losing(n, r)}),
            }
            for n, r in self.applied
        ]


def settle(notes: Iterable[ConflictNote], rules: ConflictRules) -> Settled:
    """``notes`` split by whether a resolution in force settles them."""
    open_: list[ConflictNote] = []
    applied: list[tuple[ConflictNote, Resolution]] = []
    for note in notes:
        r = rules.governing(note_id(note))
        if r is None:
            open_.append(note)
        else:
            applied.append((note, r))
    return Settled(open_, applied)


def _governs(side: ConflictSide, r: Resolution) -> bool:
    return side.fragment.path == r.governs_path and _flat(side.text) == _flat(r.governs_text)


def _losing(note: ConflictNote, r: Resolution) -> list[ConflictSide]:
    return [s for s in note.sides if not _governs(s, r)]


def without_overruled(pack: EvidencePack, settled: Settled) -> EvidencePack:
    """``pack`` without the fragments that hold an overruled side's statement (same
    document, the statement inside the fragment's text), and with the governing side's
    fragment as direct evidence when the pack lacked it (a side read from a recall hit
    beyond the pack): the resolution says where the answer is."""
    losing = [(s.fragment.path, _flat(s.text)) for n, r in settled.applied for s in _losing(n, r)]

    def kept(frags: tuple[Fragment, ...]) -> tuple[Fragment, ...]:
        return tuple(
            f for f in frags if not any(f.path == p and t in _flat(f.text) for p, t in losing)
        )

    direct = kept(pack.direct)
    for note, r in settled.applied:
        for side in note.sides:
            held = any(
                f.path == side.fragment.path and _flat(side.text) in _flat(f.text) for f in direct
            )
            if _governs(side, r) and not held:
                frag = replace(side.fragment, role="direct_support", reason="conflict_resolution")
                direct = (frag, *direct)
    aug = kept(pack.augmentation)
    # the evidence changed, so does its replay id (same rule as the assembly's)
    rid = replay_id(pack.query, pack.revision, pack.config, direct + aug + pack.graph_neighbors)
    return replace(pack, direct=direct, augmentation=aug, replay_id=rid)


def with_conflict_sides(pack: EvidencePack, notes: Sequence[ConflictNote]) -> EvidencePack:
    """``pack`` with its ``conflicts`` section holding both sides of every open conflict
    (each side's fragment once, in the conflict role)."""
    seen: set[tuple[str, int, int]] = set()
    frags: list[Fragment] = []
    for note in notes:
        for side in note.sides:
            f = side.fragment
            key = (f.path, f.char_start, f.char_end)
            if key not in seen:
                seen.add(key)
                frags.append(replace(f, role="conflict", reason="conflict_side"))
    return replace(pack, conflicts=tuple(frags)) if frags else pack


def awaiting_review(
    verdict: Sufficiency, notes: Sequence[ConflictNote], rules: ConflictRules
) -> Sufficiency:
    """Under policy ``needs_review`` an open conflict refuses the answer until a person
    records which side governs; otherwise ``verdict`` unchanged."""
    if rules.mode != "needs_review" or not notes:
        return verdict
    ids = ", ".join(note_id(n) for n in notes)
    return refused(Reason(NEEDS_REVIEW, f"{len(notes)} unresolved conflict(s): {ids}"))


def awaits_review(verdict: Sufficiency) -> bool:
    """True for a refusal :func:`awaiting_review` made (no passage may overturn it)."""
    return any(r.kind == NEEDS_REVIEW for r in verdict.reasons)


def pack_with_conflicts(
    ctx: StageContext, query: str, pack: EvidencePack, filters: SearchFilters | None
) -> EvidencePack:
    """The evidence pack of ``query`` with both sides of every open conflict it meets in
    its ``conflicts`` section (the evidence command's view of what ``ask`` weighs)."""
    from citewise.analysis.question import analyse
    from citewise.recall.search import search
    from citewise.sufficiency.conflicts_adapter import detect_conflicts

    q = analyse(query)  # the other side may lie in a recall hit beyond the pack, as in ask
    hits = search(ctx.index, query, filters=filters, top_k=EvidenceConfig().top_k, question=q).hits
    notes = detect_conflicts(ctx, q, pack, filters.principal if filters else None, hits)
    return with_conflict_sides(pack, settle(notes, ctx.rules()).open)
