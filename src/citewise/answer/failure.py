"""Where an unanswered question failed: the ``failure_stage`` of an insufficient answer.

Decided in the order the stages run, from what the caller may see only (docs/security.md,
"hidden is the same as absent"):

- ``reranking``: the reranker scored every candidate under its threshold;
- ``parsing_source``: a source window could not be read back;
- ``indexing``: nothing was found and the index is the cause: no indexed text the caller
  may read at all (an empty or never-built index), or a content route whose index failed
  to build or load (the vector index unavailable);
- ``permission_scope``: the caller's own scope (path prefixes, tags, metadata) left out
  every match, while its readable documents outside that scope match. Documents the caller
  may not read never count: a question whose only matches are hidden reads as
  ``retrieval``, exactly as if they had never existed; only the operator's audit ledger
  says ``permission_scope`` (:func:`withheld_matches`, written by
  :func:`citewise.audit.record.record_answer`);
- ``retrieval`` when nothing was found, else ``context_assembly``.

``graph_evidence``, ``generation`` and ``citation_verification`` are set by the stages
that find them (answer/pipeline.py, llm/, answer/finish.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from citewise.analysis.question import Question
from citewise.core.access import in_scope, may_read
from citewise.core.search import SearchFilters, SearchResult
from citewise.sufficiency.models import Reason

if TYPE_CHECKING:
    from citewise.answer.models import FailureStage
    from citewise.context import StageContext
    from citewise.core.stored import StoredChunk
    from citewise.evidence.models import EvidencePack

__all__ = ["Failure", "classify", "withheld_matches"]

#: Content routes whose index can fail to build (the identifier route reads the store).
_CONTENT_ROUTES = ("lexical", "vector")
#: At most this many principals are asked for in the operator's withheld-match check.
MAX_PRINCIPALS = 8


@dataclass(frozen=True, slots=True)
class Failure:
    """The stage and, when the stage has something to say, a reason in words."""

    stage: FailureStage
    reason: Reason | None = None


def classify(
    kb: StageContext,
    question: Question,
    pack: EvidencePack,
    recall: SearchResult | None,
    filters: SearchFilters | None,
) -> Failure:
    """The failure stage of an insufficient answer (see the module docstring)."""
    if not pack.direct and recall is not None and recall.criterion == "rerank_threshold":
        return Failure("reranking")
    if any(x.kind == "source_window_unavailable" for x in pack.limitations):
        return Failure("parsing_source")
    if pack.direct:
        return Failure("context_assembly")
    own = filters or SearchFilters()
    readable = SearchFilters(principal=own.principal)
    index = kb.index
    if not index.memo(
        ("any-readable", own.principal),
        lambda: any(in_scope(c, readable) for c in index.chunks.values()),
    ):
        why = "the knowledge base holds no indexed text; add documents with `citewise add`"
        return Failure("indexing", Reason("index_empty", why))
    broken = [
        d
        for d in (recall.diagnostics if recall is not None else ())
        if d.route in _CONTENT_ROUTES and d.status == "unavailable"
    ]
    if broken and recall is not None and not recall.hits:
        why = f"the {broken[0].route} index is unavailable ({broken[0].reason})"
        return Failure("indexing", Reason("index_unavailable", why))
    scoped = own.path_prefixes or own.tags or own.metadata
    if scoped and (recall is None or not recall.hits):
        from citewise.recall.search import search

        everywhere = replace(own, path_prefixes=(), tags=(), metadata=())
        wider = search(kb.index, question.text, filters=everywhere)
        if wider.outcome == "ok" and wider.hits:  # readable documents outside the scope
            why = "nothing in the requested scope matches; documents outside it do"
            why += " (widen or drop the path, tag or metadata filters)"
            return Failure("permission_scope", Reason("outside_scope", why))
    return Failure("retrieval")


def withheld_matches(
    kb: StageContext, question: Question, filters: SearchFilters | None, denied: list[str]
) -> list[str]:
    """For the operator's audit only, never for the caller: the documents ``denied`` to
    the caller that the question would have matched (the recall as a principal who may
    read them finds them, within the caller's own scope). Sorted; empty when none."""
    if not denied:
        return []
    own = filters or SearchFilters()
    hidden = set(denied)
    index = kb.index
    names = index.memo(
        ("withheld-names", own.principal, tuple(sorted(hidden))),
        lambda: _access_names(index.chunks.values(), hidden, own.principal),
    )
    from citewise.recall.search import search

    found: set[str] = set()
    for name in sorted(names)[:MAX_PRINCIPALS]:
        scope = replace(own, principal=name)
        result = search(kb.index, question.text, filters=scope, question=question)
        found.update(h.path for h in result.hits if h.path in hidden)
    return sorted(found)


def _access_names(
    chunks: Iterable[StoredChunk], hidden: set[str], principal: str | None
) -> frozenset[str]:
    """The ``access`` names of the ``hidden`` documents ``principal`` may not read: a walk
    over every chunk, kept with the index state by the caller."""
    names: set[str] = set()
    for c in chunks:
        if c.path in hidden and not may_read(c.metadata, principal):
            access = c.metadata.get("access")
            names.update([access] if isinstance(access, str) else map(str, access or ()))
    return frozenset(names)
