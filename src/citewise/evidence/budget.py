"""Budgeting a context pack: per-fragment and total caps, role priority, middle truncation.

Pure functions over :class:`Fragment` lists. Candidates are considered in role priority
(direct support, then parent, adjacent, background) and, inside a role, by rank; each is
included whole, middle-truncated to fit, or dropped - and every decision says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from citewise.analysis.intent import Intent
from citewise.evidence.models import (
    ROLE_PRIORITY,
    TRUNCATION_MARKER,
    Action,
    Budget,
    BudgetUse,
    Decision,
    Fragment,
    Profile,
)
from citewise.evidence.tokens import estimate_tokens, middle_cut

#: Blocks that enter whole or not at all.
WHOLE_KINDS = frozenset({"code", "mermaid", "table"})


def truncate(fragment: Fragment, max_tokens: int, max_chars: int) -> Fragment | None:
    """``fragment`` cut in the middle to fit, keeping its head and tail; None if it cannot.

    The kept head is ``source[char_start:head_end]`` and the tail
    ``source[tail_start:char_end]``; the text joins them with :data:`TRUNCATION_MARKER`.
    """
    if fragment.truncated or fragment.kind in WHOLE_KINDS:
        return None
    cut = middle_cut(fragment.text, max_tokens, max_chars)
    if cut is None:
        return None
    h, t = cut
    text = fragment.text[:h] + TRUNCATION_MARKER + fragment.text[t:]
    tokens = estimate_tokens(text)
    if tokens > max_tokens or len(text) > max_chars:
        return None
    return dataclasses.replace(
        fragment,
        text=text,
        tokens=tokens,
        truncated=True,
        head_end=fragment.char_start + h,
        tail_start=fragment.char_start + t,
    )


def order_key(f: Fragment) -> tuple[int, float, str, int]:
    return (ROLE_PRIORITY[f.role], f.rank, f.path, f.char_start)


def apply_budget(
    candidates: Sequence[Fragment],
    budget: Budget,
    first: Collection[tuple[str, int, int]] = (),
) -> tuple[list[Fragment], list[Decision], BudgetUse]:
    """Fragments that fit ``budget`` (in priority order) and a decision for every candidate.

    ``first`` are fragments (``(doc_id, char_start, char_end)``) considered before every
    other, so the others are cut or dropped before them: the best unit of each top-ranked
    document (:mod:`citewise.evidence.keep_top`).
    """
    kept: list[Fragment] = []
    decisions: list[Decision] = []
    used_tokens = used_chars = 0
    per_doc: dict[str, int] = {}
    direct = 0

    def decide(action: Action, f: Fragment, reason: str) -> None:
        decisions.append(Decision(action, f.role, f.citation_id, f.path, f.tokens, reason))

    ahead = set(first)

    def ahead_first(f: Fragment) -> tuple[bool, tuple[int, float, str, int]]:
        return ((f.doc_id, f.char_start, f.char_end) not in ahead, order_key(f))

    for f in sorted(candidates, key=ahead_first):
        if len(kept) >= budget.max_fragments:
            decide("drop", f, f"max_fragments: {budget.max_fragments} already kept")
            continue
        if f.role == "direct_support" and direct >= budget.max_direct:
            decide("drop", f, f"direct_share: {budget.max_direct} direct spans already kept")
            continue
        doc_used = per_doc.get(f.doc_id, 0)
        room_tokens = min(
            budget.fragment_tokens, budget.total_tokens - used_tokens, budget.doc_tokens - doc_used
        )
        room_chars = min(budget.fragment_chars, budget.total_chars - used_chars)
        whole = f.kind in WHOLE_KINDS
        if whole and (f.tokens > budget.block_tokens or len(f.text) > budget.fragment_chars):
            decide(
                "drop",
                f,
                f"block_over_cap: {f.kind} of {f.tokens} tokens > block cap "
                f"{budget.block_tokens} (blocks enter whole or not at all)",
            )
            continue
        if f.tokens <= room_tokens and len(f.text) <= room_chars:
            kept.append(f)
            decide("include", f, f.reason or "fits")
        elif whole:
            decide("drop", f, _why_short(f, budget, used_tokens, doc_used) + "; block kept whole")
            continue
        else:
            cut = truncate(f, room_tokens, room_chars)
            if cut is None:
                decide("drop", f, _why_short(f, budget, used_tokens, doc_used))
                continue
            decisions.append(
                Decision(
                    "truncate",
                    f.role,
                    f.citation_id,
                    f.path,
                    cut.tokens,
                    f"{_why_short(f, budget, used_tokens, doc_used)}: middle cut "
                    f"{f.tokens} -> {cut.tokens} tokens",
                )
            )
            f = cut
            kept.append(f)
        used_tokens += f.tokens
        direct += f.role == "direct_support"
        used_chars += len(f.text)
        per_doc[f.doc_id] = per_doc.get(f.doc_id, 0) + f.tokens
    if ahead:  # considered first, kept in the usual order
        kept.sort(key=order_key)
    use = BudgetUse(
        fragments=len(kept),
        tokens=used_tokens,
        chars=used_chars,
        max_fragments=budget.max_fragments,
        max_tokens=budget.total_tokens,
        max_chars=budget.total_chars,
        fragment_tokens=budget.fragment_tokens,
        doc_tokens=budget.doc_tokens,
        per_doc=per_doc,
    )
    return kept, decisions, use


def _why_short(f: Fragment, budget: Budget, used: int, doc_used: int) -> str:
    if f.tokens > budget.fragment_tokens or len(f.text) > budget.fragment_chars:
        return f"fragment_cap: {f.tokens} tokens > {budget.fragment_tokens}"
    if budget.doc_tokens - doc_used < budget.total_tokens - used:
        return f"doc_share: document already holds {doc_used} of {budget.doc_tokens} tokens"
    return f"total_budget: {used} of {budget.total_tokens} tokens used"


def profile_for(intent: Intent) -> Profile:
    """The budget profile of a question: deep and causal questions get larger budgets;
    the rest use the base profile."""
    if intent.deep:
        return "deep"
    return "causal" if intent.kind == "causal" else "base"
