"""The request body of ``POST /v1/chat/completions``, read strictly where citewise needs it
and leniently elsewhere (OpenAI's other parameters are accepted and ignored).

:func:`parse_chat` is the parser boundary: bytes in, a :class:`ChatRequest` or a
``UsageError`` / pydantic ``ValidationError`` naming the problem and the fix out.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from citewise.errors import UsageError
from citewise.server.routes_query import Filters

__all__ = ["ChatMessage", "ChatRequest", "Extension", "parse_chat"]

_SHAPE = '{"model": KB_NAME, "messages": [{"role": "user", "content": QUESTION}]}'


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    #: A string, or OpenAI's list of content parts (only ``text`` parts are read).
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class Extension(BaseModel):
    """citewise's own request fields, under ``citewise``: /ask's filters and conditions."""

    model_config = ConfigDict(extra="forbid")

    filters: Filters = Field(default_factory=Filters)
    conditions: dict[str, str] = Field(default_factory=dict)


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    citewise: Extension = Field(default_factory=Extension)

    def turns(self) -> tuple[list[str], str]:
        """The user's earlier messages and the question (the last message, a user's)."""
        last = self.messages[-1]
        question = last.text().strip()
        if last.role != "user" or not question:
            raise UsageError(
                "The last message must be the user's question, with text "
                f"(got role {last.role!r}{'' if question else ', no text'}).",
                hint="End messages with {'role': 'user', 'content': QUESTION}.",
            )
        earlier = [m.text() for m in self.messages[:-1] if m.role == "user"]
        return earlier, question


def parse_chat(raw: bytes) -> ChatRequest:
    """The chat request in ``raw`` (JSON); errors say what to send instead."""
    try:
        data = json.loads(raw) if raw.strip() else None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(
            f"The request body is not JSON ({exc.__class__.__name__}).",
            hint=f"Send Content-Type: application/json with {_SHAPE}.",
        ) from exc
    if not isinstance(data, dict):
        raise UsageError("The request body must be a JSON object.", hint=f"Send {_SHAPE}.")
    chat = ChatRequest.model_validate(data)
    chat.turns()  # no user question: refused before any answering or streaming
    return chat
