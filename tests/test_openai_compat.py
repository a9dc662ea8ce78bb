"""``POST /v1/chat/completions`` and ``GET /v1/models`` over a real uvicorn server, read
with the official ``openai`` client and with plain HTTP: the same answer and citations as
``POST /kb/{kb}/ask``, streamed and not, the same keys, and OpenAI-shaped errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from citewise.errors import UsageError
from citewise.server.auth import KeyStore
from citewise.server.openai_compat import pieces
from citewise.server.openai_request import parse_chat
from tests._server import running_server

DOC = b"""---
title: Key rotation guide
---
# Key rotation

To rotate keys, run `citewise rotate` every 90 days. Keys older than a year are refused.

## Prerequisites

You need the admin role before rotating keys. The admin role is granted by the security team.
"""
INSTALL = b"""# Installing the agent

## On macOS

On macOS, install the agent with `brew install cw-agent`.

## On Linux

On Linux, install the agent with `apt install cw-agent`.
"""
QUESTION = "How do I rotate keys?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("openai") / "home"
    keys = KeyStore(home)
    admin = keys.add("admin", "admin", ["*"])
    other = keys.add("other", "other", ["legal"])
    with running_server(home) as url:
        auth = {"Authorization": f"Bearer {admin}"}
        with httpx.Client(base_url=url, timeout=60, headers=auth) as c:
            files = [
                ("files", ("ops/rotation.md", DOC, "text/markdown")),
                ("files", ("ops/install.md", INSTALL, "text/markdown")),
            ]
            r = c.post("/kb/default/documents", files=files)
            assert r.status_code == 201, r.text
            yield {"url": url, "admin": admin, "other": other, "http": c}


def _client(server: dict[str, Any], key: str | None = None) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server["url"] + "/v1", api_key=key or server["admin"], max_retries=0
    )


def _ask(server: dict[str, Any], question: str) -> dict[str, Any]:
    r = server["http"].post("/kb/default/ask", json={"question": question})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_openai_client_non_streaming_equals_ask(server: dict[str, Any]) -> None:
    plain = _ask(server, QUESTION)
    assert plain["outcome"] == "answered" and plain["citations"]
    done = _client(server).chat.completions.create(
        model="default", messages=[{"role": "user", "content": QUESTION}]
    )
    assert done.object == "chat.completion" and done.model == "default"
    choice = done.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.content == plain["answer"]
    assert "[1]" in (choice.message.content or "")
    ext = choice.message.model_extra["citewise"]  # type: ignore[index]
    assert ext["outcome"] == plain["outcome"] and ext["degradation"] == plain["degradation"]
    assert ext["citations"] == plain["citations"]
    assert "rewrite" not in ext


def test_openai_client_streaming_equals_ask(server: dict[str, Any]) -> None:
    plain = _ask(server, QUESTION)
    stream = _client(server).chat.completions.create(
        model="default", messages=[{"role": "user", "content": QUESTION}], stream=True
    )
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1  # one completion, one id
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == plain["answer"]
    assert len([c for c in chunks if c.choices[0].delta.content]) >= 1
    last = chunks[-1].choices[0]
    assert last.finish_reason == "stop"
    ext = last.delta.model_extra["citewise"]  # type: ignore[index]
    assert ext["citations"] == plain["citations"] and ext["outcome"] == "answered"
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])


def test_stream_ends_with_done_line(server: dict[str, Any]) -> None:
    body = {"model": "default", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    lines: list[str] = []
    with server["http"].stream("POST", "/v1/chat/completions", json=body) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in r.iter_lines() if line]
    assert lines[-1] == "data: [DONE]"
    assert all(line.startswith("data: ") for line in lines)
    for line in lines[:-1]:
        json.loads(line[len("data: ") :])


def test_history_rewrites_the_follow_up(server: dict[str, Any]) -> None:
    messages: Any = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "How do I install the agent on macOS?"},
        {"role": "assistant", "content": "On macOS, install the agent with brew [1]."},
        {"role": "user", "content": "And on Linux?"},
    ]
    done = _client(server).chat.completions.create(model="default", messages=messages)
    ext = done.choices[0].message.model_extra["citewise"]  # type: ignore[index]
    assert ext["rewrite"] == {"rule": "condition_switch", "original": "And on Linux?"}
    assert "linux" in ext["question"].lower() and "macos" not in ext["question"].lower()
    assert "apt install" in (done.choices[0].message.content or "")
    assert ext["citations"] == _ask(server, ext["question"])["citations"]


def test_models_lists_the_kbs_the_key_may_use(server: dict[str, Any]) -> None:
    ids = [m.id for m in _client(server).models.list()]
    assert "default" in ids
    assert _client(server).models.retrieve("default").owned_by == "citewise"
    assert [m.id for m in _client(server, server["other"]).models.list()] == []


def test_unknown_model_is_model_not_found(server: dict[str, Any]) -> None:
    with pytest.raises(openai.NotFoundError) as err:
        _client(server).chat.completions.create(
            model="nope", messages=[{"role": "user", "content": QUESTION}]
        )
    assert err.value.code == "model_not_found"
    assert "/v1/models" in err.value.message
    # a knowledge base the key may not use looks exactly like one that does not exist
    with pytest.raises(openai.NotFoundError) as hidden:
        _client(server, server["other"]).chat.completions.create(
            model="default", messages=[{"role": "user", "content": QUESTION}]
        )
    assert hidden.value.code == "model_not_found"


def test_keys_are_required_as_for_ask(server: dict[str, Any]) -> None:
    with pytest.raises(openai.AuthenticationError):
        _client(server, "cw_wrong").chat.completions.create(
            model="default", messages=[{"role": "user", "content": QUESTION}]
        )
    r = httpx.post(server["url"] + "/v1/chat/completions", json={"model": "default"})
    assert r.status_code == 401
    assert r.json()["error"]["type"] == "authentication_error"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"model": "default", "messages": []}', "messages"),
        (b'{"messages": [{"role": "user", "content": "hi"}]}', "model"),
        (b'{"model": "default", "messages": [{"role": "assistant", "content": "x"}]}', "user"),
        (b'{"model": "default", "messages": [{"role": "user", "content": "  "}]}', "user"),
    ],
)
def test_bad_requests_answer_the_openai_error_shape(
    server: dict[str, Any], body: bytes, needle: str
) -> None:
    r = server["http"].post(
        "/v1/chat/completions", content=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert needle in error["message"]
    assert "Send" in error["message"] or "End messages" in error["message"]


@given(st.text(alphabet=st.sampled_from(list("ab .!?。[]1\n\t"))) | st.text())
def test_pieces_join_back_to_the_text(text: str) -> None:
    parts = pieces(text)
    assert "".join(parts) == text
    assert all(parts)  # no empty chunk is ever streamed


def test_pieces_split_after_sentences() -> None:
    assert pieces("Rotate keys [1]. Keys expire [2].") == ["Rotate keys [1]. ", "Keys expire [2]."]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", 3]), "content": _JSON}
)


@given(
    st.binary(max_size=64)
    | _JSON.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries(
        {"model": _JSON, "messages": st.lists(_MESSAGE, max_size=3) | _JSON}
    ).map(lambda v: json.dumps(v).encode())
)
def test_parse_chat_accepts_or_names_the_problem(raw: bytes) -> None:
    """Any body is a chat request with a user question, or a usage / validation error."""
    try:
        chat = parse_chat(raw)
    except (UsageError, ValidationError) as exc:
        assert str(exc)
        return
    earlier, question = chat.turns()
    assert question.strip() and chat.messages[-1].role == "user"
    assert len(earlier) < len(chat.messages)
