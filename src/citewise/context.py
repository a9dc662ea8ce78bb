"""What a pipeline stage may know of the knowledge base it runs on: the stage context.

The facade (:mod:`citewise.kb`) sits on top and drives the stages; the stages sit below it
and never import it. Each stage that needs more than its arguments takes a
:class:`StageContext`: the knowledge base's name, its store, its derived search index and
the home's settings. The reader's principal is per request, not per knowledge base: it
travels in :class:`~citewise.core.search.SearchFilters` (authorization is applied by
recall, before ranking), so the context does not repeat it.

The index is opened on first use (``open_index``, the home's shared per-KB index), so an
operation that never searches never builds one. See docs/architecture.md for the layers
and the dependency rule that ``tests/test_import_graph.py`` enforces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from citewise.core.conflict_rules import ConflictRules

if TYPE_CHECKING:
    from citewise.config import Settings
    from citewise.index.manager import KBIndex
    from citewise.store.protocol import Store

__all__ = ["ContextSource", "StageContext"]


@dataclass(frozen=True, slots=True)
class StageContext:
    """One knowledge base as the stages see it (built by ``KnowledgeBase.context``)."""

    #: The knowledge base's name (every store read is scoped by it).
    name: str
    store: Store
    settings: Settings
    #: Returns the KB's derived index (lexical, dense, graph, scope caches); the facade
    #: passes its shared, lazily created one.
    open_index: Callable[[], KBIndex]
    #: The revision the stages run at when pinned (``store`` and the index are then that
    #: revision's view, issue 38); None: the head.
    revision: int | None = None
    #: Reads the policy for conflicts and the recorded resolutions (issue 38), fresh per
    #: ask; None: no resolutions and unresolved conflicts degrade (the default policy).
    conflict_rules: Callable[[], ConflictRules] | None = None
    #: The withheld view per the KB's policy (issue 38, governance/redaction.py): for this
    #: context, a query and the caller's filters, ``(path, reason)`` of each restricted
    #: document withheld from the caller that the query would have matched. None: off.
    #: (``filters``: the caller's ``SearchFilters`` or None; typed loosely so the context
    #: names no search type, tests/import_graph.py.)
    redaction: Callable[[StageContext, str, Any], list[tuple[str, str]]] | None = None

    def redacted(self, query: str, filters: Any) -> list[tuple[str, str]]:
        """``(path, reason)`` of the documents withheld from the caller (see ``redaction``)."""
        return [] if self.redaction is None else self.redaction(self, query, filters)

    @property
    def index(self) -> KBIndex:
        return self.open_index()

    def rules(self) -> ConflictRules:
        """The conflict rules an ask applies now (see ``conflict_rules``)."""
        return ConflictRules() if self.conflict_rules is None else self.conflict_rules()


class ContextSource(Protocol):
    """What hands out stage contexts: the facade's ``Home``, for the operations that
    span a home (export and replay of an answer bundle)."""

    settings: Settings
    store: Store

    def context(
        self, kb: str, settings: Settings | None = None, revision: int | None = None
    ) -> StageContext:
        """``kb``'s context; with ``settings``, on a fresh index under those settings; with
        ``revision``, pinned to that revision."""
        ...
