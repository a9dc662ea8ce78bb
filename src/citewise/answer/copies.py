"""Two sources in one answer: identical documents answer once, disagreeing ones say so.

Identical documents: the evidence pack keeps one of two documents whose stored text is
identical (the same sha256; :mod:`citewise.evidence.keep_top`) and remembers the pair.
The answer cites the kept copy once and says where else the same text is, instead of
quoting one sentence twice as [1] [2].

Disagreeing documents: an answer that carries a conflict notice (both sides cited) has
degradation ``conflict`` whatever later check restated its verdict (a word-presence
refusal overturned by meaning keeps only its own reasons): one side is never quoted as
clean.
"""

from __future__ import annotations

from collections.abc import Iterable

from citewise.answer.models import Claim
from citewise.core.messages import say
from citewise.evidence.models import EvidencePack
from citewise.sufficiency.models import Degradation, Reason, Sufficiency
from citewise.sufficiency.verdict import degraded, with_reason

__all__ = ["copies_note", "with_conflict"]

#: Degradations a conflict outranks (an answer already refused stays refused).
_BELOW_CONFLICT: frozenset[Degradation] = frozenset(
    {"none", "partial_coverage", "source_window_unavailable", "stale_evidence"}
)


def copies_note(pack: EvidencePack, cited_paths: Iterable[str]) -> str:
    """ "(The same text is in B.)" for each cited path with copies left out of the pack;
    empty when none."""
    cited = list(dict.fromkeys(cited_paths))
    notes = []
    for path in cited:
        others = [copy for kept, copy in pack.copies if kept == path and copy not in cited]
        if others:
            notes.append(say("note.copies", "en", paths=_names(others)))  # worded later
    return " ".join(notes)


def _names(paths: list[str]) -> str:
    if len(paths) == 1:
        return paths[0]
    return ", ".join(paths[:-1]) + " and " + paths[-1]


def with_conflict(suff: Sufficiency, kept: Iterable[Claim]) -> Sufficiency:
    """``suff`` at degradation ``conflict`` with a conflict reason when a kept claim is a
    conflict notice and the verdict lost them."""
    notices = sum(1 for c in kept if c.verdict == "notice" and c.reason == "conflict notice")
    if not notices or any(r.kind == "conflict" for r in suff.reasons):
        return suff
    reason = Reason("conflict", f"{notices} unresolved")
    if suff.degradation in _BELOW_CONFLICT:
        return degraded(suff, "conflict", reason)
    return with_reason(suff, reason)
