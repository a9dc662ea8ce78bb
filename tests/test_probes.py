"""The answer-probe suite (tests/probes): every case passes, and every answer's citations
are exact (excerpt == source text at its offsets in its revision, hash matches)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.eval.probes import load_cases, run_suite

SUITE = Path(__file__).parent / "probes"


def test_suite_has_enough_cases_of_every_kind() -> None:
    cases = load_cases(SUITE)
    assert len(cases) >= 40
    kinds = {c["kind"] for c in cases}
    for kind in (
        "definition",
        "how_to",
        "causal",
        "compare",
        "conflict",
        "qualifier",
        "stale",
        "repeated",
        "out_of_corpus",
        "near_miss",
        "greeting",
        "chinese",
        "injection",
    ):
        assert kind in kinds, kind


@pytest.mark.parametrize("dense", ["on", "off"])
def test_every_probe_passes(dense: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", dense)
    report = run_suite(SUITE)
    failures = [
        f"{r.id}: {'; '.join(r.problems)} | {r.answer[:160]}"
        for r in report.results
        if not r.passed
    ]
    assert not failures, "\n".join(failures)
    assert report.passed == len(load_cases(SUITE))
