"""The answer-probe suite (tests/probes): every case passes, and every answer's citations
are exact (excerpt == source text at its offsets in its revision, hash matches)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.eval.probes import load_cases, run_suite
from tests.conftest import run_cli

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


@pytest.mark.parametrize("dense", [pytest.param("on", marks=pytest.mark.model), "off"])
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


@pytest.mark.subprocess
def test_cli_runs_a_suite_and_fails_on_a_failing_case(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "corpus").mkdir(parents=True)
    (suite / "corpus" / "a.md").write_text(
        "# Widgets\n\nA widget is a small blue part that holds the frame together.\n", "utf-8"
    )
    (suite / "cases.yaml").write_text(
        "- id: ok\n  kind: definition\n  question: What is a widget?\n"
        "  expect: {outcome: answered, must_include: [small blue part], cited_docs: [a.md]}\n"
        "- id: wrong\n  kind: definition\n  question: What is a widget?\n"
        "  expect: {outcome: answered, must_include: [large red part]}\n",
        "utf-8",
    )
    proc = run_cli("eval", "probes", str(suite), home=tmp_path / "home")
    assert proc.returncode == 1, proc.stderr
    assert "PASS ok" in proc.stdout and "FAIL wrong" in proc.stdout
    assert "1 passed, 1 failed" in proc.stdout
    bad = run_cli("eval", "probes", str(tmp_path / "missing"), home=tmp_path / "home")
    assert bad.returncode == 2 and "not a probe suite" in bad.stderr
