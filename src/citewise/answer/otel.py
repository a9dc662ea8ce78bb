"""OpenTelemetry spans for ask runs: one ``citewise.ask`` span with a child per step.

Off unless enabled. :func:`enable_from_env` turns it on when ``OTEL_EXPORTER_OTLP_ENDPOINT``
is set (the OTLP/HTTP exporter reads that variable and its companions, such as
``OTEL_EXPORTER_OTLP_HEADERS``, itself) and the optional ``otel`` extra
(``opentelemetry-sdk``, ``opentelemetry-exporter-otlp-proto-http``) is installed;
:func:`enable` takes any tracer provider (tests pass one with an in-memory exporter).
Without the packages the library runs as before and says why tracing stayed off.

Spans are written after the run from the runner's own step times
(:mod:`citewise.answer.steps.observe`, :mod:`citewise.answer.telemetry`): each step's span
starts where the steps before it ended, and recall's span holds a child per route with
the route's own time. Attributes are counts and labels, never document text; the question
text is added (``citewise.question``) only with ``CITEWISE_OTEL_QUESTION=on`` or
``with_question=True``.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from citewise.answer.steps import observe
from citewise.answer.telemetry import Attrs, run_attributes, step_records

if TYPE_CHECKING:
    from citewise.answer.steps.record import Run
    from citewise.answer.steps.state import AskState

__all__ = ["SpanWriter", "disable", "enable", "enable_from_env"]

log = logging.getLogger(__name__)
ENDPOINT_VAR = "OTEL_EXPORTER_OTLP_ENDPOINT"
QUESTION_VAR = "CITEWISE_OTEL_QUESTION"
_MS = 1_000_000  # nanoseconds per millisecond
_active: list[SpanWriter] = []


def _prefixed(attrs: Attrs) -> dict[str, Any]:
    return {f"citewise.{k}": v for k, v in attrs.items()}


class SpanWriter:
    """Writes the spans of each finished run to ``tracer`` (an OpenTelemetry ``Tracer``)."""

    def __init__(self, tracer: Any, *, with_question: bool = False) -> None:
        self.tracer = tracer
        self.with_question = with_question
        #: A provider this module made (from the environment), shut down on disable.
        self.owned: Any = None

    def __call__(self, state: AskState, run: Run) -> None:
        from opentelemetry import trace

        records = step_records(state, run)
        end = time.time_ns()
        start = end - int(sum(r.ms for r in records) * _MS)
        attrs = _prefixed(run_attributes(state, run))
        if self.with_question:
            attrs["citewise.question"] = state.question.text
        root = self.tracer.start_span("citewise.ask", start_time=start, attributes=attrs)
        parent = trace.set_span_in_context(root)
        for r in records:
            s0 = start + int(r.start_ms * _MS)
            span = self.tracer.start_span(
                f"citewise.ask.{r.step}",
                context=parent,
                start_time=s0,
                attributes={
                    "citewise.step": r.step,
                    "citewise.ms": r.ms,
                    **_prefixed(r.attributes),
                },
            )
            inner = trace.set_span_in_context(span)
            for route in r.routes:
                attributes = {"citewise.route": route.route, **_prefixed(route.attributes)}
                child = self.tracer.start_span(
                    f"citewise.recall.{route.route}",
                    context=inner,
                    start_time=s0,
                    attributes=attributes,
                )
                child.end(end_time=s0 + int(route.ms * _MS))
            span.end(end_time=s0 + int(r.ms * _MS))
        root.end(end_time=end)

    def on_run(self, state: AskState, run: Run) -> None:
        self(state, run)


def enable(tracer_provider: Any = None, *, with_question: bool = False) -> SpanWriter:
    """Write a span tree for every ask run from now on (``tracer_provider``: an
    OpenTelemetry ``TracerProvider``; None = the global one). Replaces an earlier writer."""
    from opentelemetry import trace

    from citewise import __version__

    disable()
    provider = tracer_provider or trace.get_tracer_provider()
    writer = SpanWriter(provider.get_tracer("citewise", __version__), with_question=with_question)
    _active.append(writer)  # held here: the listener list holds bound methods weakly
    observe.listen(writer.on_run)
    return writer


def disable() -> None:
    """Stop writing spans (no error when none were written)."""
    while _active:
        writer = _active.pop()
        observe.unlisten(writer.on_run)
        if writer.owned is not None:
            writer.owned.shutdown()  # flushes the spans still batched


def traces_url(env: Mapping[str, str]) -> str:
    """Where spans are posted: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` as given, else
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` with ``/v1/traces`` appended (the OTLP/HTTP rule)."""
    exact = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    return exact or env.get(ENDPOINT_VAR, "").strip().rstrip("/") + "/v1/traces"


def enable_from_env(environ: Mapping[str, str] | None = None) -> str:
    """Turn tracing on when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set; returns the state in
    words (``off``, ``on: <endpoint>`` or ``unavailable: <why>``) for logs and health."""
    env = os.environ if environ is None else environ
    endpoint = env.get(ENDPOINT_VAR, "").strip()
    if not endpoint:
        return "off"
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        why = f"{ENDPOINT_VAR} is set but {exc.name or 'opentelemetry-sdk'} is not installed"
        log.warning("tracing unavailable: %s; pip install 'citewise[otel]'", why)
        return f"unavailable: {why}"
    name = env.get("OTEL_SERVICE_NAME", "citewise")
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    exporter = OTLPSpanExporter(endpoint=traces_url(env))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    on = env.get(QUESTION_VAR, "").strip().lower() in ("1", "on", "true", "yes")
    enable(provider, with_question=on).owned = provider
    return f"on: {endpoint}"
