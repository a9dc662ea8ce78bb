"""Prometheus metrics at ``GET /metrics`` (text exposition format, ``prometheus-client``).

Each app has its own registry, so two servers in one process never share counters.
Counted as they happen:

* ``citewise_asks_total{kb,outcome,degradation}`` -- every ask run this server answered on
  its home (``/ask``, the OpenAI-compatible endpoint, conversations);
* ``citewise_ask_seconds{outcome}`` and ``citewise_ask_step_seconds{step}`` -- the run's
  and each pipeline step's wall time, read from the runner's own record
  (:mod:`citewise.answer.steps.observe`), never timed again;
* ``citewise_recall_route_seconds{route,status}`` and
  ``citewise_recall_route_candidates{route}`` -- each recall route of each run;
* ``citewise_ingest_files_total{kb,status}`` and ``citewise_ingest_errors_total{kb,code}``
  -- the files of every upload through this server.

Read at scrape time (:func:`citewise.facade.telemetry.kb_states`):
``citewise_kb_documents``, ``citewise_kb_revision``, ``citewise_index_revision``,
``citewise_index_generation_info{kb,generation}``, ``citewise_dense_model_state{kb,state}``
(1 for the current state, 0 for the others) and ``citewise_build_info{version}``.

Access: like every route, a key when keys are configured, and then only a key that may use
every knowledge base (the metrics name them all).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Depends, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily
from prometheus_client.registry import Collector

from citewise import installed_version
from citewise.answer.steps import observe
from citewise.answer.telemetry import step_records
from citewise.errors import Forbidden
from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.facade.telemetry import kb_states, same_home
from citewise.server.deps import get_caller, get_service

if TYPE_CHECKING:
    from prometheus_client import Metric

    from citewise.answer.steps.record import Run
    from citewise.answer.steps.state import AskState
    from citewise.core.records import FileResult

__all__ = ["Metrics", "router"]

router = APIRouter()
#: Seconds; asks run from a few milliseconds (cached, lexical) to seconds (dense, cold).
STEP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
DENSE_STATES = ("ok", "unavailable", "disabled")


class _StateCollector(Collector):
    """Gauges read from the home at scrape time."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def collect(self) -> Iterable[Metric]:
        docs = GaugeMetricFamily(
            "citewise_kb_documents", "Documents in the current revision", labels=["kb"]
        )
        store = GaugeMetricFamily(
            "citewise_kb_revision", "The store's current revision", labels=["kb"]
        )
        index = GaugeMetricFamily(
            "citewise_index_revision", "The revision the indexes reflect", labels=["kb"]
        )
        gen = InfoMetricFamily(
            "citewise_index_generation", "The indexes' generation", labels=["kb"]
        )
        dense = GaugeMetricFamily(
            "citewise_dense_model_state", "Dense model state (1 = current)", labels=["kb", "state"]
        )
        for s in kb_states(self.service):
            docs.add_metric([s.kb], s.documents)
            store.add_metric([s.kb], s.store_revision)
            index.add_metric([s.kb], s.index_revision)
            gen.add_metric([s.kb], {"generation": s.generation})
            for state in DENSE_STATES:
                dense.add_metric([s.kb, state], 1.0 if s.dense_status == state else 0.0)
        build = InfoMetricFamily("citewise_build", "The running citewise")
        build.add_metric([], {"version": installed_version()})
        yield from (docs, store, index, gen, dense, build)


class Metrics:
    """One app's registry and the listener that counts its home's ask runs."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.registry = CollectorRegistry()
        r = self.registry
        self.asks = Counter(
            "citewise_asks", "Ask runs", ["kb", "outcome", "degradation"], registry=r
        )
        self.ask_seconds = Histogram(
            "citewise_ask_seconds",
            "Ask run wall time",
            ["outcome"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.step_seconds = Histogram(
            "citewise_ask_step_seconds",
            "Pipeline step wall time",
            ["step"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.route_seconds = Histogram(
            "citewise_recall_route_seconds",
            "Recall route wall time",
            ["route", "status"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.route_candidates = Counter(
            "citewise_recall_route_candidates",
            "Candidates a recall route found",
            ["route"],
            registry=r,
        )
        self.ingest_files = Counter(
            "citewise_ingest_files", "Uploaded files by result", ["kb", "status"], registry=r
        )
        self.ingest_errors = Counter(
            "citewise_ingest_errors",
            "Uploaded files that failed, by code",
            ["kb", "code"],
            registry=r,
        )
        r.register(_StateCollector(service))
        observe.listen(self.on_run)  # held weakly: the app holds this object

    def on_run(self, state: AskState, run: Run) -> None:
        if not same_home(self.service, state):
            return
        a = run.answer
        self.asks.labels(a.kb, a.outcome, a.degradation).inc()
        records = step_records(state, run)
        self.ask_seconds.labels(a.outcome).observe(sum(r.ms for r in records) / 1000)
        for rec in records:
            self.step_seconds.labels(rec.step).observe(rec.ms / 1000)
            for route in rec.routes:
                status = str(route.attributes.get("status", ""))
                self.route_seconds.labels(route.route, status).observe(route.ms / 1000)
                self.route_candidates.labels(route.route).inc(
                    float(route.attributes.get("candidates", 0))
                )

    def ingested(self, kb: str, files: Sequence[FileResult]) -> None:
        """Count the files of one upload by status, and the failed ones by error code."""
        for f in files:
            self.ingest_files.labels(kb, f.status).inc()
            if f.status == "failed":
                self.ingest_errors.labels(kb, f.code or "INGEST_FAILED").inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def get_metrics(request: Request) -> Metrics:
    metrics: Metrics = request.app.state.metrics
    return metrics


MetricsDep = Annotated[Metrics, Depends(get_metrics)]


@router.get("/metrics", tags=["health"])
def metrics(
    caller: Annotated[Caller, Depends(get_caller)],
    service: Annotated[Service, Depends(get_service)],
    m: MetricsDep,
) -> Response:
    """Prometheus text format (see server/metrics.py and docs/operations.md)."""
    if not caller.all_kbs:
        raise Forbidden(
            "The metrics name every knowledge base; this key may not use them all.",
            hint="Scrape with a key created with --kbs '*'.",
        )
    return Response(m.exposition(), media_type=CONTENT_TYPE_LATEST)
