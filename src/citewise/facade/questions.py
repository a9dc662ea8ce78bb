"""The facade's questions: search, recall, evidence, answers and conversation
turns, under the caller's filters (the library records each in the audit ledger) and
numbered as the caller sees versions."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from citewise.analysis.conditions import ConditionSet
from citewise.answer.models import Answer
from citewise.core.search import SearchFilters, SearchMode, SearchResult
from citewise.evidence.models import EvidencePack, Profile
from citewise.facade import pinning, renumber
from citewise.facade.base import Scope, ServiceBase
from citewise.facade.caller import Caller
from citewise.governance.redaction import withheld_view
from citewise.kb import KnowledgeBase


class Questions(ServiceBase):
    """Search, recall, evidence, answers and conversation turns under the caller's filters."""

    def search(
        self,
        caller: Caller,
        name: str,
        query: str,
        *,
        scope: Scope | None = None,
        top_k: int = 10,
        mode: SearchMode = "hybrid",
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
        keep: bool = False,
        revision: int | None = None,
    ) -> SearchResult:
        with self.reading(caller, name) as kb:
            result = kb.search(
                query,
                filters=self._filters(caller, scope),
                top_k=top_k,
                mode=mode,
                conditions=conditions,
                lineage=lineage,
                keep=keep,
                revision=self._pinned(caller, kb, revision),
            )
            return renumber.search_result(result, self._numbering(caller, kb))

    def recall(self, caller: Caller, name: str, recall_id: str) -> dict[str, Any]:
        """A kept recall of this caller's (another principal's is not found)."""
        with self.reading(caller, name) as kb:
            return kb.recall(recall_id, principal=caller.principal)

    def evidence(
        self,
        caller: Caller,
        name: str,
        query: str,
        *,
        scope: Scope | None = None,
        profile: Profile | None = None,
        rse: bool = True,
        revision: int | None = None,
    ) -> EvidencePack:
        with self.reading(caller, name) as kb:
            pack = kb.evidence(
                query,
                filters=self._filters(caller, scope),
                profile=profile,
                rse=rse,
                revision=self._pinned(caller, kb, revision),
            )
            return renumber.evidence_pack(pack, self._numbering(caller, kb))

    def ask(
        self,
        caller: Caller,
        name: str,
        question: str,
        *,
        scope: Scope | None = None,
        verify_web: bool = False,
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
        revision: int | None = None,
        lang: str | None = None,
    ) -> Answer:
        """``lang``: the language of citewise's own words (``en``, ``zh``; None: the
        question's), see :meth:`KnowledgeBase.ask`."""
        web = None
        if verify_web:  # configured by the server's environment (docs/regulations.md)
            from citewise.facade.web_waits import unlocked_waits
            from citewise.web.settings import WebSettings, open_verifier

            verifier = open_verifier(WebSettings.from_env(os.environ), self.home.settings.home)
            web = unlocked_waits(verifier, self.lock)  # the lock is not held while waiting
        with self.reading(caller, name) as kb:
            answer = kb.ask(
                question,
                filters=self._filters(caller, scope),
                web=web,
                conditions=conditions or None,
                lineage=lineage or None,
                revision=self._pinned(caller, kb, revision),
                lang=lang,
            )
            answer = _with_withheld(answer, kb, question, self._filters(caller, scope))
            return renumber.answer(answer, self._numbering(caller, kb))

    def withheld(
        self, caller: Caller, name: str, query: str, *, scope: Scope | None = None
    ) -> list[dict[str, Any]]:
        """The withheld view of a search or evidence query for this caller: each matching
        document it may not read as ``{title, reason, owner}``, when the base's policy says
        ``redaction: metadata`` (else empty; governance/redaction.py)."""
        with self.reading(caller, name) as kb:
            return _view(kb, query, self._filters(caller, scope))

    def _pinned(self, caller: Caller, kb: KnowledgeBase, revision: int | None) -> int | None:
        """The KB revision the caller's revision number names (None: the head)."""
        if revision is None:
            return None
        head = kb.info().revision
        return pinning.kb_revision(self._view(caller, kb.name), revision, head, kb.name)

    def conversation_turn(
        self,
        caller: Caller,
        name: str,
        cid: str | None,
        question: str | None,
        *,
        scope: Scope | None = None,
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
    ) -> tuple[dict[str, Any], Answer | None]:
        """Start a conversation (``cid`` None), then ask ``question`` as its next turn
        when given. Returns the conversation's JSON and the answer."""
        filters = self._filters(caller, scope)
        with self.reading(caller, name) as kb:
            asker = _FilteredAsker(kb, filters)
            chat = kb.conversation(cid, asker=asker, owner=caller.principal)
            answer = None
            if question is not None:
                answer = chat.ask(question, conditions=conditions, lineage=lineage)
                answer = _with_withheld(answer, kb, question, filters)
                answer = renumber.answer(answer, self._numbering(caller, kb))
            else:
                chat.save()
            return chat.to_json(), answer


def _view(kb: KnowledgeBase, query: str, filters: SearchFilters) -> list[dict[str, Any]]:
    home = kb.home.settings.home
    return [d.public() for d in withheld_view(home, kb.name, kb.context, query, filters)]


def _with_withheld(
    answer: Answer, kb: KnowledgeBase, question: str, filters: SearchFilters
) -> Answer:
    """``answer`` with the caller's withheld view (policy ``redaction: metadata``) for the
    question as answered (a conversation turn's rewrite; the ledger's access event reads
    the same text)."""
    view = _view(kb, str(answer.trace.get("question") or question), filters)
    return replace(answer, withheld=tuple(view)) if view else answer


@dataclass(frozen=True, slots=True)
class _FilteredAsker:
    """Asks a conversation's turns under the caller's filters (authorization first)."""

    kb: KnowledgeBase
    filters: SearchFilters

    def ask(
        self,
        question: str,
        *,
        conditions: ConditionSet | None = None,
        lineage: Mapping[str, str] | None = None,
        rewrite: Mapping[str, Any] | None = None,
        caller_lineage: Mapping[str, str] | None = None,
    ) -> Answer:
        return self.kb.ask(
            question,
            filters=self.filters,
            conditions=conditions,
            lineage=lineage,
            rewrite=rewrite,
            caller_lineage=caller_lineage,
        )
