"""``GET /metrics`` over a real server after an upload and asks, parsed with
prometheus_client's own text parser: asks by outcome and degradation, the per-step
histograms (the runner's step times), ingest counts and errors, index and model state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from citewise.answer.steps.runner import STEPS
from citewise.server.auth import KeyStore
from tests._server import running_server

DOC = b"# Key rotation\n\nTo rotate keys, run `citewise rotate` every 90 days.\n"


def scrape(c: httpx.Client) -> dict[str, list[Any]]:
    r = c.get("/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out: dict[str, list[Any]] = {}
    for family in text_string_to_metric_families(r.text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append(sample)
    return out


def value(samples: dict[str, list[Any]], name: str, **labels: str) -> float:
    found = [s.value for s in samples.get(name, []) if labels.items() <= s.labels.items()]
    assert found, (name, labels, samples.get(name))
    return float(sum(found))


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("metrics") / "home"
    store = KeyStore(home)
    admin, narrow = store.add("ops", "ops", ["*"]), store.add("reader", "reader", ["default"])
    with running_server(home) as url:
        c = httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {admin}"})
        files = [
            ("files", ("ops/rotation.md", DOC, "text/markdown")),
            ("files", ("bad.bin", b"\x00\x01\x02binary", "application/octet-stream")),
        ]
        r = c.post("/kb/default/documents", files=files)
        assert r.status_code == 207, r.text
        before = scrape(c)
        assert c.post("/kb/default/ask", json={"question": "How do I rotate keys?"}).is_success
        assert c.post("/kb/default/ask", json={"question": "What is the capital of Peru?"})
        yield {"c": c, "url": url, "narrow": narrow, "before": before, "after": scrape(c)}
        c.close()


def test_asks_are_counted_by_outcome_and_degradation(env: dict[str, Any]) -> None:
    after = env["after"]
    assert value(after, "citewise_asks_total", kb="default") == 2
    assert value(after, "citewise_asks_total", outcome="answered") == 1
    outcomes = {s.labels["outcome"] for s in after["citewise_asks_total"]}
    assert len(outcomes) == 2  # the off-topic question is not answered
    assert all("degradation" in s.labels for s in after["citewise_asks_total"])
    assert "citewise_asks_total" not in env["before"]


def test_step_histograms_hold_each_step_of_each_run(env: dict[str, Any]) -> None:
    after = env["after"]
    steps = {s.labels["step"] for s in after["citewise_ask_step_seconds_count"]}
    assert "analyse" in steps and "recall" in steps
    assert steps <= {name for name, _ in STEPS}
    assert value(after, "citewise_ask_step_seconds_count", step="analyse") == 2
    assert value(after, "citewise_ask_seconds_count") == 2
    # the run's time is the sum of its steps' (the same record, never timed twice)
    total = value(after, "citewise_ask_seconds_sum")
    assert total == pytest.approx(value(after, "citewise_ask_step_seconds_sum"), rel=1e-6)
    routes = {s.labels["route"] for s in after["citewise_recall_route_seconds_count"]}
    assert "lexical" in routes


def test_ingest_counts_and_errors(env: dict[str, Any]) -> None:
    before = env["before"]
    assert value(before, "citewise_ingest_files_total", kb="default", status="failed") == 1
    ok = [s for s in before["citewise_ingest_files_total"] if s.labels["status"] != "failed"]
    assert sum(s.value for s in ok) == 1
    assert value(before, "citewise_ingest_errors_total", kb="default") == 1


def test_index_generation_and_model_state(env: dict[str, Any]) -> None:
    after = env["after"]
    assert value(after, "citewise_kb_documents", kb="default") == 1
    revision = value(after, "citewise_kb_revision", kb="default")
    assert revision >= 1
    assert value(after, "citewise_index_revision", kb="default") == revision
    (gen,) = [s for s in after["citewise_index_generation_info"] if s.labels["kb"] == "default"]
    assert gen.labels["generation"]
    states = {s.labels["state"]: s.value for s in after["citewise_dense_model_state"]}
    assert states == {"ok": 0, "unavailable": 0, "disabled": 1}  # the test server: dense off
    assert "version" in after["citewise_build_info"][0].labels


def test_metrics_need_a_key_for_every_kb(env: dict[str, Any]) -> None:
    assert httpx.get(env["url"] + "/metrics").status_code == 401
    narrow = {"Authorization": f"Bearer {env['narrow']}"}
    r = httpx.get(env["url"] + "/metrics", headers=narrow)
    assert r.status_code == 403 and "--kbs" in r.json()["error"]["message"]
