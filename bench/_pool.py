"""Pure parts of the development-pool runner (issue 34): settings, leave-one-corpus-out
choice, the per-corpus table and the comparison of two runs.

Nothing here touches a knowledge base, so it is unit-tested on hand-made summaries and
rows (tests/test_bench_pool.py).

* A :class:`Setting` is a named set of environment variables the product reads (the
  defaults are the empty set). :data:`CANDIDATES` is the declared list a choice is made
  from: the defaults and the answerability threshold's alternatives (issue 34).
* :func:`choose` picks, from the candidates, the one with the best :func:`pooled_score`
  over the given corpora; :func:`leave_one_out` does so once with every development corpus
  (the *tuned* column) and once per corpus without it (the *left-out* column). Held-out
  corpora (never used for choosing anything) are left out of every choice.
* :func:`compare` lists the questions whose outcome, answer text or citations differ
  between two runs (the "answers unchanged" check).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Figures reported per corpus, each with a tuned and a left-out column.
METRICS: tuple[str, ...] = (
    "right_pct",
    "wrong_abstention_pct",
    "overreach_pct",
    "citation_exact_pct",
)


@dataclass(frozen=True, slots=True)
class Setting:
    """A named candidate: environment variables set while its questions are asked."""

    name: str
    env: Mapping[str, str] = field(default_factory=dict)


DEFAULTS = Setting("defaults")
#: The candidates a threshold choice is made from. Add a Setting per threshold value to
#: try; every figure is then reported as chosen with and without its own corpus.
CANDIDATES: tuple[Setting, ...] = (
    DEFAULTS,  # CITEWISE_ANSWERABLE_MIN 0.3, CITEWISE_ANSWERABLE_NEAR_MISS 1 (off), top docs 2
    Setting("answerable-0.25", {"CITEWISE_ANSWERABLE_MIN": "0.25"}),
    Setting("answerable-0.35", {"CITEWISE_ANSWERABLE_MIN": "0.35"}),
    # the pack's guarantee for the best unit of recall's top documents (evidence/keep_top)
    Setting("pack-top-0", {"CITEWISE_PACK_TOP_DOCS": "0"}),
    # the recall-rank constant of the answer units' one score (answer/choice.py; the
    # default is 60): steeper, and nearly flat (the ranks all but ignored)
    Setting("choice-k-8", {"CITEWISE_CHOICE_RANK_K": "8"}),
    Setting("choice-k-1000", {"CITEWISE_CHOICE_RANK_K": "1000"}),
    # the factor per near miss (sufficiency/near_miss; default 1 = off)
    Setting("near-miss-0.3", {"CITEWISE_ANSWERABLE_NEAR_MISS": "0.3"}),
    Setting("near-miss-0.5", {"CITEWISE_ANSWERABLE_NEAR_MISS": "0.5"}),
    # the weight of the answerability score's meaning term (sufficiency/meaning_fit;
    # default 0 = off): half and the full calibrated term
    Setting("meaning-0.5", {"CITEWISE_ANSWERABLE_MEANING": "0.5"}),
    Setting("meaning-1", {"CITEWISE_ANSWERABLE_MEANING": "1"}),
    # the share of a Chinese question's content words its unit must hold (sufficiency/
    # zh_terms; default 0.5): off, and stricter
    Setting("zh-coverage-0", {"CITEWISE_ZH_COVERAGE": "0"}),
    Setting("zh-coverage-0.6", {"CITEWISE_ZH_COVERAGE": "0.6"}),
    # long documents (h/long34): a paragraph's opening sentence lends relation words to
    # its later sentences (sufficiency/paragraph_topic; default 1200 characters, 0 = off),
    # and the meaning check reads a unit under its document's title line
    # (answer/meaning/titled; default on)
    Setting("paragraph-topic-0", {"CITEWISE_PARAGRAPH_LEAD_CHARS": "0"}),
    Setting("paragraph-topic-300", {"CITEWISE_PARAGRAPH_LEAD_CHARS": "300"}),
    Setting("meaning-title-off", {"CITEWISE_MEANING_TITLE": "off"}),
)

Summary = Mapping[str, Any]
#: corpus -> setting name -> summary (``bench.answers_docs.summarise``)
Results = Mapping[str, Mapping[str, Summary]]


def balanced(s: Summary) -> float:
    """One corpus's score in 0..100: the mean of right % of answerable and correct
    abstention % of unanswerable (right % alone when the corpus has no unanswerable
    question), so a setting cannot win by answering everything or nothing."""
    right = float(s["right_pct"])
    if not s.get("unanswerable"):
        return right
    return (right + 100.0 - float(s["overreach_pct"])) / 2


def pooled_score(summaries: Iterable[Summary]) -> float:
    """Macro mean of :func:`balanced` over corpora (each corpus weighs the same)."""
    scores = [balanced(s) for s in summaries]
    return sum(scores) / len(scores) if scores else 0.0


def choose(
    results: Results,
    candidates: Sequence[Setting],
    *,
    without: str | None = None,
    held_out: Iterable[str] = (),
) -> str:
    """Name of the candidate with the best pooled score over the corpora of ``results``
    other than ``without`` and the held-out ones; ties go to the earlier candidate. With
    no corpus to choose on, the first candidate that was run (the defaults, unless a run
    asked only for others: ``--settings``)."""
    skip = set(held_out) | ({without} if without else set())
    corpora = [c for c in results if c not in skip]
    ran = [c.name for c in candidates if any(c.name in results[k] for k in results)]
    best, best_score = (ran or [candidates[0].name])[0], float("-inf")
    for cand in candidates:
        runs = [results[c][cand.name] for c in corpora if cand.name in results[c]]
        if len(runs) < len(corpora) or not runs:
            continue  # a candidate not run on every corpus cannot be compared
        score = pooled_score(runs)
        if score > best_score:
            best, best_score = cand.name, score
    return best


def leave_one_out(
    results: Results, candidates: Sequence[Setting], held_out: Iterable[str] = ()
) -> dict[str, dict[str, Any]]:
    """Per corpus: the tuned choice (all development corpora), the left-out choice
    (without this corpus), each metric under both, and the gaps (tuned minus left-out)."""
    held = set(held_out)
    tuned = choose(results, candidates, held_out=held)
    out: dict[str, dict[str, Any]] = {}
    for corpus, by_setting in results.items():
        left = choose(results, candidates, without=corpus, held_out=held)
        row: dict[str, Any] = {"tuned": tuned, "left_out": left, "held_out": corpus in held}
        for m in METRICS:
            t, lo = float(by_setting[tuned][m]), float(by_setting[left][m])
            row[m] = {"tuned": t, "left_out": lo, "gap": round(t - lo, 1)}
        row["answerable"] = by_setting[left]["answerable"]
        row["unanswerable"] = by_setting[left]["unanswerable"]
        row["citations"] = by_setting[left]["citations"]
        out[corpus] = row
    return out


def macro(loco: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Unweighted mean over corpora of each metric's tuned, left-out and gap values; a
    corpus without unanswerable questions does not count towards overreach, one without
    citations not towards exactness."""
    out: dict[str, dict[str, float]] = {}
    for m in METRICS:
        rows = [
            r
            for r in loco.values()
            if not (m == "overreach_pct" and not r["unanswerable"])
            and not (m == "wrong_abstention_pct" and not r["answerable"])
            and not (m == "citation_exact_pct" and not r["citations"])
        ]
        out[m] = {
            k: round(sum(float(r[m][k]) for r in rows) / len(rows), 1) if rows else 0.0
            for k in ("tuned", "left_out", "gap")
        }
    return out


def markdown(loco: Mapping[str, Mapping[str, Any]]) -> str:
    """The per-corpus table: each metric as tuned / left-out, the right-% gap, and the
    macro average."""
    lines = [
        "| corpus | answerable / unanswerable | right (tuned / left-out) | gap "
        "| wrong abst. | overreach | citations exact | chosen (tuned / left-out) |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def pair(r: Mapping[str, Any], m: str) -> str:
        return f"{r[m]['tuned']:.1f} / {r[m]['left_out']:.1f}"

    for corpus, r in loco.items():
        name = f"{corpus} (held out)" if r.get("held_out") else corpus
        lines.append(
            f"| {name} | {r['answerable']} / {r['unanswerable']} | {pair(r, 'right_pct')} "
            f"| {r['right_pct']['gap']:.1f} | {pair(r, 'wrong_abstention_pct')} "
            f"| {pair(r, 'overreach_pct')} "
            f"| {pair(r, 'citation_exact_pct')} of {r['citations']} "
            f"| {r['tuned']} / {r['left_out']} |"
        )
    avg = macro(loco)
    lines.append(
        f"| **macro average** | | {pair(avg, 'right_pct')} | {avg['right_pct']['gap']:.1f} "
        f"| {pair(avg, 'wrong_abstention_pct')} | {pair(avg, 'overreach_pct')} "
        f"| {pair(avg, 'citation_exact_pct')} | |"
    )
    return "\n".join(lines)


def _key(row: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(row.get("setting", "")), str(row["corpus"]), str(row["id"]))


def _cited(row: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    return [(str(c["path"]), int(c["lines"][0]), int(c["lines"][1])) for c in row["citations"]]


def compare(
    rows_a: Sequence[Mapping[str, Any]], rows_b: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The questions (by setting, corpus and id) whose outcome, answer text or citation
    places differ between run A and run B, or that only one run asked; each with what
    changed and the label in both runs."""
    a = {_key(r): r for r in rows_a}
    b = {_key(r): r for r in rows_b}
    changes: list[dict[str, Any]] = []
    for key in sorted(a.keys() | b.keys()):
        ra, rb = a.get(key), b.get(key)
        what: list[str]
        if ra is None or rb is None:
            what = ["only in A" if rb is None else "only in B"]
        else:
            what = [
                name
                for name, same in (
                    ("outcome", ra["outcome"] == rb["outcome"]),
                    ("answer", ra["answer"] == rb["answer"]),
                    ("citations", _cited(ra) == _cited(rb)),
                )
                if not same
            ]
        if what:
            changes.append(
                {
                    "setting": key[0],
                    "corpus": key[1],
                    "id": key[2],
                    "changed": what,
                    "label_a": ra["label"] if ra else None,
                    "label_b": rb["label"] if rb else None,
                }
            )
    return changes
