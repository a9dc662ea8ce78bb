"""The behaviour-identity harness (bench/behaviour_snapshot.py): ``compare`` reports every
differing field, key order included, and exits 1; values that change on every run (fresh
ids, clocks, step timings) are blanked so two runs of one tree compare equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.behaviour_snapshot import _scrub, compare, differences


def _snap(path: Path, parts: dict[str, object]) -> Path:
    path.write_text(json.dumps({"dense": "off", "parts": parts}), "utf-8")
    return path


def test_every_differing_field_is_named_with_its_path() -> None:
    a = {"q1": {"outcome": "answered", "citations": [{"line_start": 3}], "trace": {"x": 1}}}
    b = {"q1": {"outcome": "answered", "citations": [{"line_start": 4}], "trace": {"y": 1}}}
    found = {path: (x, y) for path, x, y in differences(a, b)}
    assert found == {
        "/q1/citations[0]/line_start": (3, 4),
        "/q1/trace/x": (1, "<absent>"),
        "/q1/trace/y": ("<absent>", 1),
    }


def test_key_order_list_length_and_type_count_as_differences() -> None:
    assert [p for p, _, _ in differences({"a": 1, "b": 2}, {"b": 2, "a": 1})] == [" (key order)"]
    assert [(p, x, y) for p, x, y in differences([1], [1, 2])] == [(" (length)", 1, 2)]
    assert [p for p, _, _ in differences({"n": 1}, {"n": 1.0})] == ["/n"]
    assert list(differences({"a": [1, {"b": "c"}]}, {"a": [1, {"b": "c"}]})) == []


def test_fresh_ids_and_timings_are_blanked_but_scores_are_not() -> None:
    raw = {
        "trace_id": "t_0123456789abcdef01234567",
        "lineage": {"conversation": "c-0123456789abcdef", "turn": 2},
        "diagnostics": [{"route": "lexical", "ms": 3.2, "top_score": 7.5}],
        "attempt": {"duration_ms": 120},
        "unit_scores": [0.5],
    }
    got = _scrub(raw)
    assert got["trace_id"] == "<volatile>"
    assert got["lineage"] == {"conversation": "<fresh id>", "turn": 2}
    assert got["diagnostics"] == [{"route": "lexical", "ms": "<volatile>", "top_score": 7.5}]
    assert got["attempt"] == {"duration_ms": "<volatile>"}
    assert got["unit_scores"] == [0.5]


def test_compare_exits_1_on_a_difference_and_0_on_equal_snapshots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _snap(tmp_path / "a.json", {"probes": {"p1": {"answer": "A widget is blue."}}})
    same = _snap(tmp_path / "b.json", {"probes": {"p1": {"answer": "A widget is blue."}}})
    other = _snap(tmp_path / "c.json", {"probes": {"p1": {"answer": "A widget is red."}}})
    assert compare(base, same) == 0
    assert "0 differing field(s)" in capsys.readouterr().out
    assert compare(base, other) == 1
    out = capsys.readouterr().out
    assert "/parts/probes/p1/answer" in out and "A widget is red." in out
