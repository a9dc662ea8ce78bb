"""Chat-style questions: a list of the user's turns answered as a conversation's next turn.

Chat clients (the OpenAI-compatible endpoint, ``server/openai_compat.py``) send the whole
history with every request and keep no conversation id. :func:`standalone` replays the
user's earlier turns through the conversation follow-up rewrite
(:func:`citewise.analysis.followup.rewrite`): each turn is read after the standalone form
of the one before it, so "and on Linux?" after "How do I install it on macOS?" is asked as
the Linux question, with the conditions earlier turns stated carried over. Assistant turns
are not read: the rewrite needs only the questions. Nothing is stored (unlike
:class:`~citewise.conversation.Conversation`, which keeps turns on disk).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citewise.analysis.conditions import conditions_in
from citewise.analysis.followup import rewrite
from citewise.answer.models import Answer
from citewise.facade.base import Scope
from citewise.facade.caller import Caller
from citewise.facade.questions import Questions

__all__ = ["Standalone", "ask_turns", "standalone"]


@dataclass(frozen=True, slots=True)
class Standalone:
    """The last turn as asked: its text, the rewrite rule used (``none`` when it stood
    alone) and the conditions inherited from earlier turns as ``kind: value`` pairs."""

    original: str
    question: str
    rule: str
    inherited: dict[str, str]


def standalone(earlier: Sequence[str], question: str) -> Standalone:
    """``question`` after the user's ``earlier`` turns (oldest first), as one question."""
    turns = [t for t in earlier if t.strip()]
    if not turns:
        return Standalone(question, question, "none", {})
    previous, in_force = turns[0], conditions_in(turns[0])
    rule = "none"
    for turn in [*turns[1:], question]:
        r = rewrite(previous, in_force, turn)
        previous, in_force, rule = r.standalone, r.conditions, r.rule
    inherited = {str(c.kind): c.value for c in in_force.conditions if c.source == "inherited"}
    return Standalone(question, previous, rule, inherited)


def ask_turns(
    service: Questions,
    caller: Caller,
    kb: str,
    earlier: Sequence[str],
    question: str,
    *,
    scope: Scope | None = None,
    conditions: dict[str, str] | None = None,
) -> tuple[Answer, Standalone]:
    """Answer ``question`` after ``earlier`` turns (the caller's own ``conditions`` win
    over inherited ones), with the same access checks and numbering as ``ask``."""
    turn = standalone(earlier, question)
    given = turn.inherited | dict(conditions or {})
    answer = service.ask(caller, kb, turn.question, scope=scope, conditions=given or None)
    return answer, turn
