"""``citewise eval retrieval --beir``: a tiny BEIR-layout set end to end, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytest.importorskip("pytrec_eval")

DOCS = {
    "d1": ("Zebrafish fin regeneration", "Zebrafish regrow amputated fins within two weeks."),
    "d2": ("Tardigrade desiccation", "Tardigrades survive complete desiccation for decades."),
    "d3": ("Axolotl limb", "The axolotl regenerates whole limbs including bone and nerves."),
    "d4": ("Lichen symbiosis", "A lichen is a partnership of a fungus and an alga."),
    "d5": ("Octopus cognition", "Octopuses solve puzzles and open screw-top jars."),
    "d6": ("Mantis shrimp vision", "Mantis shrimp have sixteen photoreceptor types."),
    "d7": ("Naked mole-rat aging", "Naked mole-rats rarely develop cancer and age slowly."),
    "d8": ("Bdelloid rotifers", "Bdelloid rotifers acquire foreign genes horizontally."),
    "d9": ("Planarian stem cells", "Planarian neoblasts rebuild an entire worm from a fragment."),
    "d/10": ("Slime mould mazes", "Physarum slime mould finds the shortest path through a maze."),
}
QUERIES = {
    "q1": ("zebrafish fin regeneration", "d1"),
    "q2": ("tardigrade desiccation survival", "d2"),
    "q3": ("mantis shrimp photoreceptor types", "d6"),
    "q4": ("physarum slime mould maze shortest path", "d/10"),
}


def _beir(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for did, (title, text) in DOCS.items():
            fh.write(json.dumps({"_id": did, "title": title, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for qid, (text, _) in QUERIES.items():
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t1" for q, (_, d) in QUERIES.items()]
    (root / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n", "utf-8")
    return root


def _eval(tmp_path: Path, *extra: str) -> dict[str, object]:
    beir = tmp_path / "beir" if (tmp_path / "beir").exists() else _beir(tmp_path / "beir")
    proc = run_cli(
        "eval",
        "retrieval",
        "--beir",
        str(beir),
        "--cache",
        str(tmp_path / "cache"),
        "--json",
        *extra,
        home=tmp_path / "home",
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout)
    return out


@pytest.mark.subprocess
def test_lexical_eval_scores_trivial_queries_perfectly(tmp_path: Path) -> None:
    out = _eval(tmp_path, "--mode", "lexical")
    for key in ("ndcg@10", "recall@100", "mrr@10", "qps", "latency_ms", "mode", "n_queries"):
        assert key in out
    assert out["mode"] == "lexical"
    assert out["n_queries"] == 4
    assert out["ndcg@10"] == pytest.approx(1.0)
    assert out["recall@100"] == pytest.approx(1.0)
    assert out["mrr@10"] == pytest.approx(1.0)
    lat = out["latency_ms"]
    assert isinstance(lat, dict) and 0 < lat["p50"] <= lat["p95"]
    assert isinstance(out["qps"], float | int) and out["qps"] > 0
    # The KB is cached: a second run reuses it (nothing re-ingested, same figures).
    again = _eval(tmp_path, "--mode", "lexical")
    assert again["ndcg@10"] == out["ndcg@10"]
    assert len(list((tmp_path / "cache").iterdir())) == 1


@pytest.mark.model
def test_hybrid_eval_reuses_vectors(tmp_path: Path) -> None:
    from citewise.index.embedder import Unavailable
    from citewise.index.manager import default_loader

    if isinstance(default_loader(), Unavailable):
        pytest.skip("dense encoder not installed")
    out = _eval(tmp_path, "--mode", "hybrid")
    assert out["mode"] == "hybrid"
    assert out["ndcg@10"] == pytest.approx(1.0)
    prepared = out["prepared"]
    assert isinstance(prepared, dict) and prepared["encoded_now"] > 0
    again = _eval(tmp_path, "--mode", "hybrid")
    prepared = again["prepared"]
    assert isinstance(prepared, dict) and prepared["encoded_now"] == 0  # vectors were cached
    assert again["ndcg@10"] == out["ndcg@10"]


@pytest.mark.subprocess
def test_missing_dir_is_a_clear_error(tmp_path: Path) -> None:
    proc = run_cli(
        "eval", "retrieval", "--beir", str(tmp_path / "nope"), "--json", home=tmp_path / "h"
    )
    assert proc.returncode != 0
    assert "no such BEIR directory" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.subprocess
def test_missing_split_names_the_available_ones(tmp_path: Path) -> None:
    beir = _beir(tmp_path / "beir")
    proc = run_cli(
        "eval", "retrieval", "--beir", str(beir), "--split", "dev", "--json", home=tmp_path / "h"
    )
    assert proc.returncode != 0
    assert "qrels/dev.tsv" in proc.stderr and "test" in proc.stderr
