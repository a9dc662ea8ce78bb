"""One OpenAI-compatible chat-completions client (``POST {endpoint}/chat/completions``).

It covers local servers (Ollama's ``/v1``, vLLM, llama.cpp's server) and hosted endpoints.
Every failure becomes an :class:`LLMCallError` whose kind decides fallback; messages carry
the status and a short reason, never request headers or the key.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import httpx

from citewise.core.secrets import redact, url_secrets
from citewise.llm.models import LLMCallError, Target


class ChatClient(Protocol):
    def complete(self, target: Target, messages: list[dict[str, str]], *, timeout: float) -> str:
        """The assistant message's text, or raise :class:`LLMCallError`."""
        ...


class OpenAICompatibleClient:
    """httpx client for the chat-completions protocol; ``keys`` maps env names to keys."""

    def __init__(self, keys: dict[str, str] | None = None) -> None:
        self._keys = dict(keys or {})

    def complete(self, target: Target, messages: list[dict[str, str]], *, timeout: float) -> str:
        """The reply's text with every key and endpoint credential masked."""
        headers = {"Content-Type": "application/json"}
        key = self._keys.get(target.api_key_env) if target.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body: dict[str, Any] = {
            "model": target.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": target.token_budget,
            "stream": False,
        }
        url = f"{target.endpoint.rstrip('/')}/chat/completions"
        secrets = [k for k in self._keys.values() if k] + url_secrets(target.endpoint)
        try:
            resp = httpx.post(url, json=body, headers=headers, timeout=timeout)
        except httpx.TimeoutException:
            raise LLMCallError("timeout", f"no answer within {timeout:g}s") from None
        except httpx.TransportError as exc:
            raise LLMCallError("connection", redact(type(exc).__name__, secrets)) from None
        status = resp.status_code
        if status == 429:
            raise LLMCallError("rate_limited", "HTTP 429")
        if status >= 500:
            raise LLMCallError("server_error", f"HTTP {status}")
        if status in (401, 403):
            raise LLMCallError("permission", f"HTTP {status} (check the key's variable)")
        if status >= 400:
            raise LLMCallError("rejected", f"HTTP {status}")
        try:
            data = resp.json()
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise LLMCallError("contract", "response is not a chat completion") from None
        if message.get("refusal") or choice.get("finish_reason") == "content_filter":
            raise LLMCallError("refusal", "the model declined (policy)")
        content = message.get("content")
        if not isinstance(content, str):
            raise LLMCallError("contract", "no text content")
        # A model (or a proxy) may echo the request's headers: never let a key through.
        return redact(content, secrets)


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a reply (a ```json fence around it is tolerated)."""
    s = text.strip()
    if s.startswith("```"):
        s = s.strip("`")
        s = s[4:] if s.lower().startswith("json") else s
    try:
        obj = json.loads(s)
    except ValueError:
        raise LLMCallError("contract", "output is not JSON") from None
    if not isinstance(obj, dict):
        raise LLMCallError("contract", "output is not a JSON object")
    return obj
