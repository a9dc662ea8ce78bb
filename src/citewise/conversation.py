"""Conversations: turns kept on disk, each follow-up asked as a standalone question.

``kb.conversation()`` starts one (or continues one by id), and ``Conversation.ask`` asks
a turn: the follow-up is rewritten (:func:`citewise.analysis.followup.rewrite`) after the
previous turn, asked with the inherited condition set, and the rewrite and the lineage
ids (conversation, turn, parent answer) go into the answer's trace and ledger entry.
Turns are stored as one JSON file per conversation under ``<home>/conversations/<kb>/``,
so the HTTP server (``POST /kb/{kb}/conversations/{id}/turns``) and ``citewise chat``
continue the same conversation.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from citewise.analysis.conditions import Condition, ConditionSet, from_pairs
from citewise.analysis.followup import rewrite
from citewise.answer.models import Answer
from citewise.errors import UsageError

__all__ = ["Conversation", "Turn"]

_ID = re.compile(r"c-[0-9a-f]{16}")


class _Asker(Protocol):
    def ask(
        self,
        question: str,
        *,
        conditions: ConditionSet | None = None,
        lineage: Mapping[str, str] | None = None,
        rewrite: Mapping[str, Any] | None = None,
        caller_lineage: Mapping[str, str] | None = None,
    ) -> Answer: ...


@dataclass(frozen=True, slots=True)
class Turn:
    """One asked turn: what was typed, what was asked, under which conditions."""

    number: int
    question: str
    standalone: str
    rule: str
    conditions: list[dict[str, Any]]
    answer_id: str
    outcome: str


@dataclass
class Conversation:
    """A conversation on one knowledge base (see the module docstring)."""

    id: str
    kb: str
    path: Path
    asker: _Asker = field(repr=False)
    turns: list[Turn] = field(default_factory=list)
    #: The principal that started it; only that principal may continue or read it.
    owner: str | None = None

    @classmethod
    def open(
        cls,
        asker: _Asker,
        kb: str,
        home: Path,
        cid: str | None = None,
        *,
        owner: str | None = None,
    ) -> Conversation:
        """A new conversation (``cid`` None) or the stored one ``cid`` of ``owner``."""
        folder = home / "conversations" / kb
        if cid is None:
            cid = "c-" + secrets.token_hex(8)
            return cls(cid, kb, folder / f"{cid}.json", asker, owner=owner)
        path = folder / f"{cid}.json"
        raw = json.loads(path.read_text("utf-8")) if _ID.fullmatch(cid) and path.is_file() else {}
        if not raw or raw.get("owner") != owner:  # another principal's: not found either
            raise UsageError(
                f"No conversation {cid[:40]!r} in knowledge base {kb!r}.",
                hint="Start one with POST /kb/{kb}/conversations (or kb.conversation()).",
            )
        turns = [Turn(**t) for t in raw["turns"]]
        return cls(cid, kb, path, asker, turns, owner)

    def _parent(self) -> str | None:
        return self.turns[-1].answer_id if self.turns else None

    def ask(
        self,
        question: str,
        *,
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
    ) -> Answer:
        """Ask the next turn; ``conditions`` override those the conversation carries."""
        if not question.strip():
            raise UsageError("The question is empty.", hint="Pass the question to answer.")
        given = from_pairs(conditions) if conditions else ConditionSet()
        if self.turns:
            last = self.turns[-1]
            prev = ConditionSet(tuple(Condition(**c) for c in last.conditions))
            r = rewrite(last.standalone, prev, question)
            standalone, rule, in_force = r.standalone, r.rule, given.over(r.conditions)
        else:
            standalone, rule, in_force = question, "none", given
        number = len(self.turns) + 1
        ids, overridden = turn_lineage(self.id, number, self._parent(), lineage)
        note = {"original": question, "standalone": standalone, "rule": rule}
        answer = self.asker.ask(
            standalone,
            conditions=in_force,
            lineage=ids,
            rewrite=note if self.turns else None,
            caller_lineage=overridden or None,
        )
        stated = [dict(c) for c in (answer.trace.get("conditions") or {}).get("stated", [])]
        turn = Turn(number, question, standalone, rule, stated, answer.trace_id, answer.outcome)
        self.turns.append(turn)
        self.save()
        return answer

    def to_json(self) -> dict[str, Any]:
        turns = [asdict(t) for t in self.turns]
        return {"id": self.id, "kb": self.kb, "owner": self.owner, "turns": turns}

    def save(self) -> None:
        """Write the conversation (atomically: the whole file or the old one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1), "utf-8")
        os.replace(tmp, self.path)  # whole or not at all


def turn_lineage(
    cid: str, number: int, parent: str | None, given: Mapping[str, str] | None
) -> tuple[dict[str, str], dict[str, str]]:
    """A turn's lineage ids and the caller's ids they overrode. The server sets the
    conversation, the turn number and (after the first turn) the parent answer; those win
    over what a caller sends, whose differing ids are returned apart (recorded in the
    answer's trace and ledger event as ``caller_lineage``, never as the turn's own ids).
    Other keys the caller sends (task, session, a first turn's parent) are kept."""
    server = {"conversation": cid, "turn": str(number)}
    if parent:
        server["parent"] = parent
    caller = dict(given or {})
    overridden = {k: v for k, v in caller.items() if k in server and v != server[k]}
    return caller | server, overridden
