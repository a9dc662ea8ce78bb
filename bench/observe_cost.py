"""What watching an ask costs: the /metrics listener and the OTel span writer per run.

Builds a dense-off knowledge base from this repository's own docs/*.md (no shared data
needed), asks each question once to warm up, then asks them ``--rounds`` times with no
listener, with the Prometheus listener, and with both it and the OTel writer (SDK
in-memory exporter), interleaved so load drift hits every arm alike. Reports the median
ask time per arm and, measured directly, the listeners' own time per run (microseconds),
which is what the listeners add whatever the load.

    .venv/bin/python -m bench.observe_cost [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

QUESTIONS = (
    "How are API keys stored?",
    "What does the release review check?",
    "Which store backends are supported?",
    "How is the dense encoder quantized?",
    "What happens when a document is deleted?",
    "How does folder sync choose what to write?",
    "What is the readers-writer lock for?",
    "How are conversation follow-ups rewritten?",
)
DOCS = Path(__file__).resolve().parents[1] / "docs"


def _timed(fn: Any) -> Any:
    def wrapper(state: Any, run: Any) -> None:
        t0 = time.perf_counter()
        fn(state, run)
        wrapper.spent.append((time.perf_counter() - t0) * 1e6)  # type: ignore[attr-defined]

    wrapper.spent = []  # type: ignore[attr-defined]
    return wrapper


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    except ImportError:
        print("opentelemetry-sdk is not installed (pip install 'citewise[otel]'); skipping.")
        return 0
    os.environ["CITEWISE_DENSE"] = "off"
    from citewise.answer.otel import SpanWriter
    from citewise.answer.steps import observe
    from citewise.facade.service import Service
    from citewise.kb import Home
    from citewise.server.metrics import Metrics

    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, Home.open(Path(tmp) / "home") as home:
        kb = home.kb()
        kb.add(sorted(DOCS.glob("*.md")))
        metrics = Metrics(Service(home))
        observe.unlisten(metrics.on_run)  # listened to below, timed
        provider = TracerProvider()
        exporter = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        writer = SpanWriter(provider.get_tracer("bench"))
        prom, otel = _timed(metrics.on_run), _timed(writer.on_run)
        arms: dict[str, list[Any]] = {"none": [], "metrics": [prom], "metrics+otel": [prom, otel]}
        times: dict[str, list[float]] = {a: [] for a in arms}
        for q in QUESTIONS:
            kb.ask(q)
        for _ in range(args.rounds):
            for arm, listeners in arms.items():
                for fn in listeners:
                    observe.listen(fn)
                for q in QUESTIONS:
                    t0 = time.perf_counter()
                    kb.ask(q)
                    times[arm].append((time.perf_counter() - t0) * 1000)
                for fn in listeners:
                    observe.unlisten(fn)
    result = {
        "benchmark": "observe_cost",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "asks_per_arm": len(QUESTIONS) * args.rounds,
        "median_ask_ms": {a: round(statistics.median(v), 2) for a, v in times.items()},
        "listener_us_per_run": {
            "metrics": round(statistics.median(prom.spent), 1),
            "otel": round(statistics.median(otel.spent), 1),
        },
        "spans_per_run": len(exporter.get_finished_spans()) // max(1, len(otel.spent)),
        "loadavg_start_end": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
