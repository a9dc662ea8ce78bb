"""OpenAI-compatible chat: ``POST /v1/chat/completions``, ``GET /v1/models[/{model}]``.

A knowledge base is a model (``model`` = its name), so chat clients and the OpenAI SDKs
can ask it. The answer is the same as ``POST /kb/{kb}/ask`` gives for the same question
and key: ``message.content`` is the answer text with its ``[n]`` markers, and the
extension field ``message.citewise`` holds what a chat message has no place for::

    {"outcome", "degradation", "citations": [...as /ask...], "trace_id", "replay_id",
     "question": the question as asked, "rewrite": {"rule", "original"} (follow-ups only)}

History: the last message must be the user's question; the user's earlier messages are
read as a conversation's earlier turns (``facade/chat.py``: a follow-up such as "and on
Linux?" is asked as the standalone question). System and assistant messages are not read.
Optional ``citewise: {"filters": {...}, "conditions": {...}}`` in the request narrows as
``/ask``'s fields do; other OpenAI parameters (temperature, max_tokens...) are accepted
and have no effect: answers are extractive.

``stream: true`` sends ``chat.completion.chunk`` objects as server-sent ``data:`` lines: the
role first, then the answer text in sentence pieces, then a last chunk whose delta holds
``citewise`` (as above) with ``finish_reason: "stop"``, then ``data: [DONE]``. Nothing is
sent before the answer passed its release review, as with ``/ask?stream=true``.

Keys and access are /ask's (``Authorization: Bearer KEY``). Errors use OpenAI's shape
``{"error": {"message", "type", "param", "code"}}``, the message naming the fix.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError

from citewise.answer.models import Answer
from citewise.errors import CitewiseError, NotFoundError
from citewise.facade.caller import Caller
from citewise.facade.chat import Standalone, ask_turns
from citewise.server.deps import get_caller, get_service
from citewise.server.openai_request import ChatRequest, parse_chat

__all__ = ["openai_error", "pieces", "router"]

log = logging.getLogger(__name__)
router = APIRouter(tags=["openai"])
_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "invalid_request_error", 413: "invalid_request_error"}  # fmt: skip
#: A piece ends after a sentence end (or a citation marker) and the spaces that follow it.
_PIECE = re.compile(r".+?(?:(?<=[.!?。！？\]])\s+|\n+|$)", re.S)


def openai_error(message: str, status: int, code: str, param: str | None = None) -> JSONResponse:
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return JSONResponse(body, status_code=status)


def _from_citewise(exc: CitewiseError, model: str | None = None) -> JSONResponse:
    if isinstance(exc, NotFoundError) and model is not None and exc.code == "BASE_NOT_FOUND":
        message = (
            f"The model {model!r} does not exist or this key may not use it: a model is a "
            "knowledge base name. List them with GET /v1/models."
        )
        return openai_error(message, 404, "model_not_found", "model")
    return openai_error(str(exc), exc.http_status, exc.code.lower())


def _extension(answer: Answer, turn: Standalone) -> dict[str, Any]:
    body = answer.to_json()
    out: dict[str, Any] = {
        "outcome": body["outcome"],
        "degradation": body["degradation"],
        "citations": body["citations"],
        "trace_id": answer.trace_id,
        "replay_id": answer.replay_id,
        "question": turn.question,
    }
    if turn.rule != "none":
        out["rewrite"] = {"rule": turn.rule, "original": turn.original}
    return out


def _completion(answer: Answer, turn: Standalone, model: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": answer.answer, "citewise": _extension(answer, turn)}
    return {
        "id": f"chatcmpl-{answer.trace_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def pieces(text: str) -> list[str]:
    """``text`` in sentence pieces whose concatenation is ``text`` exactly."""
    return _PIECE.findall(text) if text else []


def _chunk(cid: str, model: str, created: int, delta: dict[str, Any], finish: str | None) -> str:
    data = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }
    return "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"


def _stream(produce: Callable[[], tuple[Answer, Standalone]], model: str) -> Iterator[str]:
    """The chunks of one completion, all with one id (the answer's ``trace_id`` is in the
    extension field: the id is chosen before the answer exists)."""
    created = int(time.time())
    cid = "chatcmpl-" + secrets.token_hex(12)
    yield _chunk(cid, model, created, {"role": "assistant", "content": ""}, None)
    try:
        answer, turn = produce()
    except CitewiseError as exc:
        error = {"message": str(exc), "type": "server_error", "code": exc.code.lower()}
        yield "data: " + json.dumps({"error": error}, ensure_ascii=False) + "\n\n"
        return
    except Exception:  # the stream has begun: report in-band, details to the log only
        log.exception("unhandled error while streaming a chat completion from %s", model)
        error = {"message": "Internal error; see the server log.", "type": "server_error"}
        yield "data: " + json.dumps({"error": error}) + "\n\n"
        return
    for piece in pieces(answer.answer):
        yield _chunk(cid, model, created, {"content": piece}, None)
    yield _chunk(cid, model, created, {"citewise": _extension(answer, turn)}, "stop")
    yield "data: [DONE]\n\n"


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(request: Request) -> JSONResponse | StreamingResponse:
    """An answer from the knowledge base ``model`` in OpenAI's chat completion format
    (see server/openai_compat.py for the ``citewise`` extension field)."""
    model: str | None = None
    try:
        raw = await request.body()
        caller = await run_in_threadpool(get_caller, request)  # reads the keys file
        chat = parse_chat(raw)
        model = chat.model
        service = get_service(request)
        # unknown or not allowed: an error before any stream (a store read: off the loop)
        await run_in_threadpool(service.kb, caller, chat.model)

        def produce() -> tuple[Answer, Standalone]:
            return _ask(service, caller, chat)

        if chat.stream:
            headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
            events = _stream(produce, chat.model)
            return StreamingResponse(events, media_type="text/event-stream", headers=headers)
        answer, turn = await run_in_threadpool(produce)
        return JSONResponse(_completion(answer, turn, chat.model))
    except CitewiseError as exc:
        return _from_citewise(exc, model)
    except ValidationError as exc:
        return openai_error(_validation_message(exc), 400, "invalid_request")


def _ask(service: Any, caller: Caller, chat: ChatRequest) -> tuple[Answer, Standalone]:
    earlier, question = chat.turns()
    return ask_turns(
        service,
        caller,
        chat.model,
        earlier,
        question,
        scope=chat.citewise.filters.scope(),
        conditions=chat.citewise.conditions,
    )


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(x) for x in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return (
        "Invalid chat request: " + "; ".join(parts) + ". Send "
        '{"model": KB_NAME, "messages": [{"role": "user", "content": QUESTION}]}.'
    )


def _created(iso: str) -> int:
    try:
        return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return 0


def _model(name: str, created_at: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": _created(created_at), "owned_by": "citewise"}


@router.get("/v1/models", response_model=None)
def list_models(request: Request) -> JSONResponse:
    """The knowledge bases this key may use, as OpenAI models."""
    try:
        caller = get_caller(request)
        kbs = get_service(request).list_kbs(caller)
    except CitewiseError as exc:
        return _from_citewise(exc)
    data = [_model(k["name"], str(k.get("created_at", ""))) for k in kbs]
    return JSONResponse({"object": "list", "data": data})


@router.get("/v1/models/{model}", response_model=None)
def get_model(model: str, request: Request) -> JSONResponse:
    """One knowledge base as an OpenAI model (404 ``model_not_found`` when unknown)."""
    try:
        caller = get_caller(request)
        info = get_service(request).kb_info(caller, model)
    except CitewiseError as exc:
        return _from_citewise(exc, model)
    return JSONResponse(_model(model, str(info.get("created_at", ""))))
