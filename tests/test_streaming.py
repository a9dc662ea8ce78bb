"""``POST /kb/{kb}/ask?stream=true`` over a real uvicorn server, read with a real HTTP
client as server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.answer.models import Answer
from citewise.errors import DocumentNotFound
from citewise.server.streaming import event, stream_answer
from tests._server import running_server

DOC = b"""---
title: Key rotation guide
---
# Key rotation

To rotate keys, run `citewise rotate` every 90 days. Keys older than a year are refused.

## Prerequisites

You need the admin role before rotating keys. The admin role is granted by the security team.
"""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    home = tmp_path_factory.mktemp("stream") / "home"
    with running_server(home) as url, httpx.Client(base_url=url, timeout=60) as c:
        files = [("files", ("ops/rotation.md", DOC, "text/markdown"))]
        r = c.post("/kb/default/documents", files=files)
        assert r.status_code == 201, r.text
        yield c


def read_events(client: httpx.Client, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """Parse the ``text/event-stream`` response line by line, as a browser would."""
    events: list[tuple[str, Any]] = []
    with client.stream("POST", "/kb/default/ask?stream=true", json=body) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        name, data = "message", ""
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data += line[len("data: ") :]
            elif line == "" and data:
                events.append((name, json.loads(data)))
                name, data = "message", ""
    return events


def _same_answer(streamed: dict[str, Any], plain: dict[str, Any]) -> None:
    """Equal but for ``trace_id``, which names each answering run (ids differ per call)."""
    a = {k: v for k, v in streamed.items() if k not in ("trace_id", "trace")}
    b = {k: v for k, v in plain.items() if k not in ("trace_id", "trace")}
    assert a == b


def test_stream_sends_status_sentences_then_the_same_answer(client: httpx.Client) -> None:
    body = {"question": "How do I rotate keys?"}
    events = read_events(client, body)
    names = [n for n, _ in events]
    assert names[0] == "status" and names[-1] == "answer"
    assert set(names[1:-1]) == {"sentence"}, names
    final = events[-1][1]
    assert final["outcome"] == "answered"
    sentences = [d for n, d in events if n == "sentence"]
    assert [s["index"] for s in sentences] == list(range(len(sentences)))
    numbers = {c["number"]: c for c in final["citations"]}
    for s in sentences:
        assert s["citations"], s  # every released sentence carries its citations
        for c in s["citations"]:
            assert numbers[c["number"]] == c  # the same citation objects as the answer's
        assert s["text"] in final["answer"]
    where = [final["answer"].index(s["text"]) for s in sentences]
    assert where == sorted(where)  # streamed in answer order
    cited = {c["number"] for s in sentences for c in s["citations"]}
    assert cited == set(numbers)  # nothing cited in the answer is missing from the stream

    plain = client.post("/kb/default/ask", json=body)
    assert plain.status_code == 200
    _same_answer(final, plain.json())
    assert final["replay_id"] == plain.json()["replay_id"]


def test_stream_with_trace_carries_the_trace(client: httpx.Client) -> None:
    events = read_events(client, {"question": "Who grants the admin role?", "trace": True})
    final = events[-1][1]
    assert events[-1][0] == "answer" and "trace" in final
    plain = client.post("/kb/default/ask", json={"question": "Who grants the admin role?"})
    _same_answer(final, plain.json())


def test_a_refusal_streams_no_sentence(client: httpx.Client) -> None:
    body = {"question": "How do I configure Kafka partitions for the billing cluster?"}
    events = read_events(client, body)
    assert [n for n, _ in events] == ["status", "answer"]
    assert events[-1][1]["outcome"] == "insufficient_evidence"
    _same_answer(events[-1][1], client.post("/kb/default/ask", json=body).json())


def test_errors_before_the_stream_are_plain_http_errors(client: httpx.Client) -> None:
    r = client.post("/kb/nope/ask?stream=true", json={"question": "rotate keys?"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "BASE_NOT_FOUND"
    r = client.post("/kb/default/ask?stream=true", json={"question": "   "})
    assert r.status_code == 400 and r.json()["error"]["code"] == "BAD_REQUEST"
    assert "question" in r.json()["error"]["message"]
    r = client.post("/kb/default/ask?stream=maybe", json={"question": "rotate keys?"})
    assert r.status_code == 400 and "stream" in r.json()["error"]["message"]


def test_a_failure_while_answering_ends_the_stream_with_an_error_event() -> None:
    def failing() -> Answer:
        raise DocumentNotFound("The document is gone.", hint="Re-run the question.")

    out = list(stream_answer(failing, kb="default", question="q", with_trace=False))
    assert out[0].startswith("event: status\n")
    assert out[-1].startswith("event: error\n")
    data = json.loads(out[-1].split("data: ", 1)[1])
    assert data["error"]["code"] == DocumentNotFound.code
    assert "Re-run" in data["error"]["message"]


def test_event_data_is_one_line_even_when_text_has_newlines() -> None:
    text = event("sentence", {"text": "line one\nline two\r\n\n<b>x</b>"})
    lines = text.split("\n")
    assert lines[0] == "event: sentence" and lines[1].startswith("data: ")
    assert lines[2:] == ["", ""]
    assert json.loads(lines[1][6:])["text"] == "line one\nline two\r\n\n<b>x</b>"


def test_the_stream_parameter_is_in_the_openapi_schema(tmp_path: Path) -> None:
    """The OpenAPI schema names the stream parameter, so clients can find it."""
    home = tmp_path / "home"
    with running_server(home) as url:
        spec = httpx.get(url + "/openapi.json", timeout=30).json()
    params = spec["paths"]["/kb/{kb}/ask"]["post"].get("parameters", [])
    assert any(p["name"] == "stream" for p in params)
