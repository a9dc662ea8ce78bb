"""The development pool's pure parts (bench/_pool.py): leave-one-corpus-out choice, the
table's figures and the comparison of two runs, on hand-made summaries and rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench._pool import (
    CANDIDATES,
    DEFAULTS,
    Setting,
    balanced,
    choose,
    compare,
    leave_one_out,
    macro,
    markdown,
)


def summ(
    right: float, overreach: float = 0.0, unans: int = 5, wrong: float = 0.0
) -> dict[str, Any]:
    return {
        "right_pct": right,
        "overreach_pct": overreach,
        "wrong_abstention_pct": wrong,
        "citation_exact_pct": 100.0,
        "answerable": 20,
        "unanswerable": unans,
        "citations": 30,
    }


LOOSE = Setting("loose", {"CITEWISE_X": "1"})
CANDS = (DEFAULTS, LOOSE)


def test_the_declared_candidates_are_the_defaults_and_threshold_alternatives() -> None:
    from citewise.answer.choice import RANK_K_ENV
    from citewise.answer.meaning.titled import TITLE_ENV
    from citewise.evidence.keep_top import TOP_DOCS_ENV
    from citewise.sufficiency.answerability import ENV
    from citewise.sufficiency.paragraph_topic import LEAD_ENV
    from citewise.sufficiency.zh_terms import COVERAGE_ENV

    assert CANDIDATES[0] == DEFAULTS and DEFAULTS.env == {}
    assert len({c.name for c in CANDIDATES}) == len(CANDIDATES)
    for c in CANDIDATES[1:]:  # each alternative sets a threshold the product reads
        known = {*ENV, TOP_DOCS_ENV, RANK_K_ENV, COVERAGE_ENV, LEAD_ENV, TITLE_ENV}
        assert c.env and set(c.env) <= known, c


def test_balanced_weighs_right_and_abstention_and_needs_no_unanswerable() -> None:
    assert balanced(summ(80, overreach=20)) == 80.0
    assert balanced(summ(60, unans=0)) == 60.0
    # answering everything does not win: full right but full overreach scores 50
    assert balanced(summ(100, overreach=100)) == 50.0


def test_left_out_choice_ignores_the_corpus_it_is_reported_on() -> None:
    # "loose" wins only because of corpus c; without c the defaults win
    results = {
        "a": {"defaults": summ(80), "loose": summ(78)},
        "b": {"defaults": summ(70), "loose": summ(69)},
        "c": {"defaults": summ(20), "loose": summ(60)},
    }
    assert choose(results, CANDS) == "loose"
    assert choose(results, CANDS, without="c") == "defaults"
    loco = leave_one_out(results, CANDS)
    assert (loco["c"]["tuned"], loco["c"]["left_out"]) == ("loose", "defaults")
    assert loco["c"]["right_pct"] == {"tuned": 60.0, "left_out": 20.0, "gap": 40.0}
    assert loco["a"]["right_pct"]["gap"] == 0.0  # without a, loose still wins


def test_held_out_corpora_never_choose() -> None:
    results = {
        "a": {"defaults": summ(80), "loose": summ(79)},
        "h": {"defaults": summ(0), "loose": summ(100)},
    }
    assert choose(results, CANDS, held_out=["h"]) == "defaults"
    loco = leave_one_out(results, CANDS, held_out=["h"])
    assert loco["h"]["held_out"] and loco["h"]["tuned"] == loco["h"]["left_out"] == "defaults"


def test_a_candidate_missing_on_a_corpus_is_not_chosen() -> None:
    results = {"a": {"defaults": summ(50), "loose": summ(90)}, "b": {"defaults": summ(50)}}
    assert choose(results, CANDS) == "defaults"


def test_a_run_of_other_settings_only_reports_them() -> None:
    """``--settings loose``: the defaults were not run, so the table reports "loose" (it
    used to fail with a KeyError after the first corpus, losing the run)."""
    results = {"a": {"loose": summ(70)}, "h": {"loose": summ(50)}}
    assert choose(results, CANDS) == "loose"
    loco = leave_one_out(results, CANDS, held_out=["h"])
    assert loco["h"]["tuned"] == loco["a"]["left_out"] == "loose"


def test_macro_skips_corpora_without_unanswerable_for_overreach() -> None:
    results = {"a": {"defaults": summ(80, overreach=20)}, "b": {"defaults": summ(60, unans=0)}}
    avg = macro(leave_one_out(results, (DEFAULTS,)))
    assert avg["right_pct"]["left_out"] == 70.0
    assert avg["overreach_pct"]["left_out"] == 20.0
    table = markdown(leave_one_out(results, (DEFAULTS,)))
    assert "| a | 20 / 5 | 80.0 / 80.0 | 0.0 |" in table and "macro average" in table


def row(
    i: str, outcome: str = "answered", answer: str = "x", lines: tuple[int, int] = (1, 2)
) -> dict[str, Any]:
    return {
        "setting": "defaults",
        "corpus": "a",
        "id": i,
        "outcome": outcome,
        "answer": answer,
        "label": "right" if outcome == "answered" else "wrong_abstention",
        "citations": [{"path": "f.md", "lines": list(lines), "exact": True}],
    }


def test_compare_lists_outcome_text_and_citation_changes_only() -> None:
    a = [row("1"), row("2"), row("3"), row("4"), row("5")]
    b = [
        row("1"),
        row("2", outcome="insufficient_evidence"),
        row("3", answer="y"),
        row("4", lines=(3, 3)),
        row("6"),
    ]
    changes = {c["id"]: c["changed"] for c in compare(a, b)}
    assert changes == {
        "2": ["outcome"],
        "3": ["answer"],
        "4": ["citations"],
        "5": ["only in A"],
        "6": ["only in B"],
    }
    assert compare(a, a) == []


def test_expected_paragraph_lines_are_where_the_writer_puts_them(tmp_path: Path) -> None:
    # The pool locates a SQuAD/CMRC gold paragraph by file name and line; both must be
    # the ones bench.answers_squad.write_articles writes.
    from bench.answers_pool import _article_file
    from bench.answers_squad import Article, write_articles

    arts = [Article("A b/c", ("p0", "p1", "p2")), Article("中文", ("段落",))]
    write_articles(arts, tmp_path, set())
    for a, art in enumerate(arts):
        lines = (tmp_path / _article_file(a, art.title)).read_text("utf-8").splitlines()
        for p, text in enumerate(art.paragraphs):
            assert lines[3 + 2 * p - 1] == text


def test_compare_names_a_missing_result_file(tmp_path: Path, capsys: Any) -> None:
    from bench.answers_pool import main

    with pytest.raises(SystemExit):
        main(["--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    assert "no such result file" in capsys.readouterr().err


def test_compare_exit_code_says_whether_answers_changed(tmp_path: Path) -> None:
    from bench.answers_pool import main

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"rows": [row("1")]}))
    b.write_text(json.dumps({"rows": [row("1")]}))
    assert main(["--compare", str(a), str(b)]) == 0
    b.write_text(json.dumps({"rows": [row("1", answer="other")]}))
    assert main(["--compare", str(a), str(b)]) == 1


def test_merge_combines_runs_over_different_corpora(tmp_path: Path, monkeypatch: Any) -> None:
    import bench.answers_pool as pool

    monkeypatch.setattr(pool, "RESULTS", tmp_path)

    def graded(corpus: str, i: str, label: str) -> dict[str, Any]:
        r = row(i)
        r.update(corpus=corpus, label=label, answerable=label != "overreach", ms=1.0)
        return r

    def run(path: Path, dense: str, rows: list[dict[str, Any]]) -> Path:
        meta = {"dense": dense, "loadavg_start_end": [1.0, 1.0], "n": 10, "builds": {}}
        path.write_text(json.dumps({"meta": meta, "rows": rows}))
        return path

    a = run(
        tmp_path / "a.json",
        "on",
        [graded("papers", "1", "right"), graded("papers", "2", "overreach")],
    )
    b = run(tmp_path / "b.json", "on", [graded("starlette", "1", "wrong_abstention")])
    out = tmp_path / "m.json"
    assert pool.main(["--merge", str(a), str(b), "--out", str(out)]) == 0
    loco = json.loads(out.read_text())["loco"]
    assert list(loco) == ["starlette", "papers"]  # the pool's order
    assert loco["papers"]["right_pct"]["left_out"] == 100.0
    assert loco["papers"]["overreach_pct"]["left_out"] == 100.0
    assert loco["starlette"]["wrong_abstention_pct"]["left_out"] == 100.0
    c = run(tmp_path / "c.json", "off", [graded("typer", "1", "right")])
    with pytest.raises(SystemExit):
        pool.main(["--merge", str(a), str(c), "--out", str(out)])
