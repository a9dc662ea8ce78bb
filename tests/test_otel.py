"""OpenTelemetry spans of ask runs, collected with the SDK's in-memory exporter: one
``citewise.ask`` span, a child per pipeline step with the runner's times and counts, a
child per recall route; no document text, and the question only when asked for."""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from citewise.answer import otel
from citewise.answer.steps import observe
from citewise.answer.steps.runner import STEPS
from tests.conftest import one_file_kb

TEXT = """# Key rotation

To rotate keys, run `citewise rotate` every 90 days. Keys older than a year are refused.
"""
QUESTION = "How do I rotate keys?"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    yield InMemorySpanExporter()
    otel.disable()


def _enable(exporter: InMemorySpanExporter, **kw: Any) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel.enable(provider, **kw)


def _tree(finished: tuple[ReadableSpan, ...]) -> tuple[ReadableSpan, list[ReadableSpan]]:
    (root,) = [s for s in finished if s.name == "citewise.ask"]
    assert root.context is not None
    steps = [
        s for s in finished if s.parent is not None and s.parent.span_id == root.context.span_id
    ]
    return root, sorted(steps, key=lambda s: s.start_time or 0)


def _all_text(finished: tuple[ReadableSpan, ...]) -> str:
    return " ".join(str(v) for s in finished for v in (s.attributes or {}).values())


def test_a_span_per_step_with_times_and_counts(
    spans: InMemorySpanExporter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = one_file_kb(tmp_path, monkeypatch, TEXT)
    _enable(spans)
    answer = kb.ask(QUESTION)
    root, steps = _tree(spans.get_finished_spans())
    assert root.attributes is not None
    assert root.attributes["citewise.outcome"] == answer.outcome == "answered"
    assert root.attributes["citewise.degradation"] == answer.degradation
    names = [s.name.removeprefix("citewise.ask.") for s in steps]
    assert names == [n for n, _ in STEPS][: len(names)] and "recall" in names
    for a, b in itertools.pairwise(steps):  # each starts where the one before ended
        assert a.end_time is not None and b.start_time is not None
        assert abs(b.start_time - a.end_time) <= 1_000
    by_name = {s.name: s.attributes or {} for s in steps}
    assert int(by_name["citewise.ask.recall"]["citewise.hits"]) >= 1  # type: ignore[arg-type]
    assert by_name["citewise.ask.review"]["citewise.claims.kept"] == len(answer.claims)
    recall = next(s for s in steps if s.name == "citewise.ask.recall")
    assert recall.context is not None
    routes = [
        s for s in spans.get_finished_spans()
        if s.parent is not None and s.parent.span_id == recall.context.span_id
    ]  # fmt: skip
    assert "citewise.recall.lexical" in {r.name for r in routes}


def test_spans_carry_no_document_or_question_text(
    spans: InMemorySpanExporter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = one_file_kb(tmp_path, monkeypatch, TEXT)
    _enable(spans)
    kb.ask(QUESTION)
    text = _all_text(spans.get_finished_spans())
    assert "rotate" not in text and "90 days" not in text and QUESTION not in text
    spans.clear()
    _enable(spans, with_question=True)
    kb.ask(QUESTION)
    root, _ = _tree(spans.get_finished_spans())
    assert root.attributes is not None and root.attributes["citewise.question"] == QUESTION


def test_off_writes_nothing(
    spans: InMemorySpanExporter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = one_file_kb(tmp_path, monkeypatch, TEXT)
    _enable(spans)
    otel.disable()
    kb.ask(QUESTION)
    assert spans.get_finished_spans() == ()


def test_enable_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert otel.enable_from_env({}) == "off"
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9/"}
    try:
        assert otel.enable_from_env(env) == "on: http://127.0.0.1:9/"
    finally:
        otel.disable()
    # the optional extra missing: the library keeps working and says why
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    state = otel.enable_from_env(env)
    assert state.startswith("unavailable: ") and "opentelemetry.sdk.trace" in state


def test_a_failing_listener_never_fails_an_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = one_file_kb(tmp_path, monkeypatch, TEXT)
    seen: list[str] = []

    def broken(state: Any, run: Any) -> None:
        seen.append(run.answer.outcome)
        raise ValueError("listener bug")

    observe.listen(broken)
    try:
        assert kb.ask(QUESTION).outcome == "answered"
    finally:
        observe.unlisten(broken)
    assert seen == ["answered"]
    kb.ask(QUESTION)
    assert seen == ["answered"]  # unlistened


def test_spans_reach_an_otlp_http_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real HTTP server on 127.0.0.1 standing in for a collector: the spans of an ask
    arrive at ``<endpoint>/v1/traces`` as an OTLP protobuf export request."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    received: list[tuple[str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.append((self.path, body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    kb = one_file_kb(tmp_path, monkeypatch, TEXT)
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert otel.enable_from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}).startswith("on")
        kb.ask(QUESTION)
        otel.disable()  # shuts the provider down, which flushes the batch
    finally:
        otel.disable()
        server.shutdown()
    assert received and {path for path, _ in received} == {"/v1/traces"}
    names: set[str] = set()
    for _, body in received:
        export = ExportTraceServiceRequest.FromString(body)
        for rs in export.resource_spans:
            for ss in rs.scope_spans:
                names.update(span.name for span in ss.spans)
    assert {"citewise.ask", "citewise.ask.recall", "citewise.recall.lexical"} <= names
