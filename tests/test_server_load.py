"""bench/load.py, briefly: concurrent /search and /ask during uploads, zero errors."""

from __future__ import annotations

import pytest

# CLI subprocesses in these tests run without the dense route (for speed)
pytestmark = pytest.mark.usefixtures("dense_off")


def test_load_bench_has_no_errors() -> None:
    from bench.load import run

    result = run(seconds=2.0, clients=8)
    assert result["errors"] == 0, result["error_samples"]
    assert result["search"]["requests"] > 0 and result["ask"]["requests"] > 0
    assert result["upload"]["requests"] >= 1
    assert result["search"]["p95_ms"] >= result["search"]["p50_ms"] > 0
