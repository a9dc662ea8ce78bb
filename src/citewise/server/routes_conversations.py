"""Conversations over HTTP (issue 22): start one, then ask its turns.

``POST /kb/{kb}/conversations`` starts a conversation (optionally with its first
question); ``POST /kb/{kb}/conversations/{id}/turns`` asks the next turn: the follow-up is
rewritten into a standalone question (shown in the answer's trace as ``rewrite``) with
the conversation's conditions inherited. Conversations belong to the principal that
started them.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.server.deps import get_caller, get_service
from citewise.server.routes_query import Filters

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


class TurnBody(BaseModel):
    question: str
    trace: bool = False
    filters: Filters = Field(default_factory=Filters)
    conditions: dict[str, str] = Field(default_factory=dict)
    #: Extra lineage ids (task, parent); conversation and turn are set by the server.
    lineage: dict[str, str] = Field(default_factory=dict)


class StartBody(BaseModel):
    question: str | None = None
    trace: bool = False
    filters: Filters = Field(default_factory=Filters)
    conditions: dict[str, str] = Field(default_factory=dict)
    lineage: dict[str, str] = Field(default_factory=dict)


def _reply(chat: dict[str, Any], answer: Any, trace: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"conversation": chat}
    if answer is not None:
        out["answer"] = answer.to_json(with_trace=trace)
    return out


@router.post("/kb/{kb}/conversations", tags=["questions"])
def start(kb: str, caller: CallerDep, service: ServiceDep, body: StartBody | None = None) -> Any:
    """A new conversation; with ``question``, its first turn asked too."""
    b = body or StartBody()
    chat, answer = service.conversation_turn(
        caller,
        kb,
        None,
        b.question,
        scope=b.filters.scope(),
        conditions=b.conditions,
        lineage=b.lineage,
    )
    return _reply(chat, answer, b.trace)


@router.post("/kb/{kb}/conversations/{cid}/turns", tags=["questions"])
def turn(kb: str, cid: str, body: TurnBody, caller: CallerDep, service: ServiceDep) -> Any:
    """The next turn of conversation ``cid`` (rewritten after the turns before it)."""
    chat, answer = service.conversation_turn(
        caller,
        kb,
        cid,
        body.question,
        scope=body.filters.scope(),
        conditions=body.conditions,
        lineage=body.lineage,
    )
    return _reply(chat, answer, body.trace)
