"""RGB-style Chinese checks over CMRC 2018 dev (issue 34): noise robustness and negative
rejection, on a sample no setting was ever chosen on.

Seed :data:`SEED` = 71 was first read on 2026-12-07 for this benchmark (``--seed`` picks
another sample: 97 was first read on 2026-12-07 by branch h/over34); nothing in the
product was tuned on either (the Chinese rules were chosen on laws-zh and the pool's CMRC
sample, seed 34). Two disjoint samples of CMRC dev questions (all answerable):

* **noise** (``--n``, default 60): a knowledge base of the gold context plus
  :data:`NOISE` noise contexts; the right outcome is an answer that holds a gold answer
  text (``gold %``), citing the gold context (``cited gold %``);
* **negative** (``--n``): the same kind of noise contexts only, the gold context absent;
  the right outcome is any outcome but ``answered`` (``abstain %``); answers that still
  hold a gold text are counted apart (the fact may be stated elsewhere).

Noise contexts are the contexts of *other* articles that share the most character
bigrams with the question (hard noise, as retrieval would return) and hold no gold answer
text. One small home per question and set (dense on unless ``--dense off``). Rows go to
``bench/results/rgb_zh_<label>.jsonl``; the summary is printed and written as JSON to
``bench/out/rgb_zh_<label>.json``.

    .venv/bin/python -m bench.rgb_zh [--n 60] [--seed 71] [--dense on|off] [--label after]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import json
import platform
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._beir import data_root
from bench._grading import percentile

#: The sample seed, first read for this benchmark on 2026-12-07 (see the module).
SEED = 71
#: Noise contexts per question (RGB's 4 noise beside the gold document).
NOISE = 4
RESULTS = Path(__file__).resolve().parent / "results"
OUT = Path(__file__).resolve().parent / "out"
DATA = "cmrc2018-zh/cmrc2018_dev.squad.json"


@dataclass(frozen=True, slots=True)
class Context:
    article: int
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Item:
    qid: str
    question: str
    golds: tuple[str, ...]
    gold: int  # index into the contexts


def load(path: Path) -> tuple[list[Context], list[Item]]:
    """CMRC dev: every context, every question with its gold context and answers."""
    data = json.loads(path.read_text("utf-8"))["data"]
    contexts: list[Context] = []
    items: list[Item] = []
    for a, art in enumerate(data):
        for para in art["paragraphs"]:
            contexts.append(Context(a, str(art.get("title") or a), str(para["context"])))
            for qa in para["qas"]:
                golds = tuple(dict.fromkeys(str(x["text"]) for x in qa["answers"] if x["text"]))
                if golds:
                    items.append(Item(str(qa["id"]), str(qa["question"]), golds, len(contexts) - 1))
    return contexts, items


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


def _squash(text: str) -> str:
    return "".join(text.split())


def noise_for(item: Item, contexts: list[Context], k: int = NOISE) -> list[int]:
    """The ``k`` contexts of other articles sharing most bigrams with the question and
    holding no gold text (ties by index)."""
    q = _bigrams(item.question)
    article = contexts[item.gold].article
    golds = [_squash(g) for g in item.golds]
    scored = []
    for i, c in enumerate(contexts):
        if c.article == article or any(g in _squash(c.text) for g in golds):
            continue
        scored.append((-len(q & _bigrams(c.text)), i))
    return [i for _, i in sorted(scored)[:k]]


def write_kb(folder: Path, ids: list[int], contexts: list[Context]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n, i in enumerate(ids):
        c = contexts[i]
        (folder / f"{n:02d}-{i}.md").write_text(f"# {c.title}\n\n{c.text}\n", "utf-8")


def ask_one(tmp: Path, item: Item, ids: list[int], contexts: list[Context]) -> dict[str, Any]:
    """Build a home over contexts ``ids`` and ask the item's question."""
    from citewise.kb import Home

    folder, home = tmp / "docs", tmp / "home"
    write_kb(folder, ids, contexts)
    with Home.open(home) as h:
        kb = h.kb()
        kb.add([folder])
        t0 = time.perf_counter()
        ans = kb.ask(item.question)
        ms = (time.perf_counter() - t0) * 1000
    hay = _squash(ans.answer)
    gold_file = f"00-{item.gold}.md"
    return {
        "id": item.qid,
        "question": item.question,
        "outcome": ans.outcome,
        "answer": ans.answer[:300],
        "gold_in_answer": any(_squash(g) in hay for g in item.golds),
        "cited_gold": any(c.path == gold_file for c in ans.citations),
        "ms": round(ms, 1),
    }


def run(n: int, label: str, seed: int = SEED) -> dict[str, Any]:
    path = data_root() / DATA
    contexts, items = load(path)
    rng = random.Random(seed)
    picked = rng.sample(range(len(items)), 2 * n)
    noise_items = [items[i] for i in picked[:n]]
    negative_items = [items[i] for i in picked[n:]]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="rgb_zh_") as tmp:
        for k, item in enumerate(noise_items):
            ids = [item.gold, *noise_for(item, contexts)]
            row = ask_one(Path(tmp) / f"n{k}", item, ids, contexts)
            rows.append({"set": "noise", **row})
        for k, item in enumerate(negative_items):
            ids = noise_for(item, contexts, NOISE + 1)
            row = ask_one(Path(tmp) / f"g{k}", item, ids, contexts)
            rows.append({"set": "negative", **row})
    return summarise(rows, label, seed)


def summarise(rows: list[dict[str, Any]], label: str, seed: int = SEED) -> dict[str, Any]:
    noise = [r for r in rows if r["set"] == "noise"]
    neg = [r for r in rows if r["set"] == "negative"]
    gold = sum(r["outcome"] == "answered" and r["gold_in_answer"] for r in noise)
    cited = sum(r["outcome"] == "answered" and r["cited_gold"] for r in noise)
    abstained = sum(r["outcome"] != "answered" for r in neg)
    still = sum(r["outcome"] == "answered" and r["gold_in_answer"] for r in neg)
    ms = [r["ms"] for r in rows]
    RESULTS.mkdir(exist_ok=True)
    with (RESULTS / f"rgb_zh_{label}.jsonl").open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return {
        "label": label,
        "seed": seed,
        "noise": {
            "n": len(noise),
            "gold": gold,
            "gold_pct": round(100 * gold / max(1, len(noise)), 1),
            "cited_gold": cited,
            "abstained": sum(r["outcome"] != "answered" for r in noise),
        },
        "negative": {
            "n": len(neg),
            "abstained": abstained,
            "abstain_pct": round(100 * abstained / max(1, len(neg)), 1),
            "answered_with_gold_text": still,
        },
        "ask_ms_p50": percentile(ms, 50),
        "ask_ms_p95": percentile(ms, 95),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=60, help="questions per set")
    ap.add_argument("--dense", choices=("on", "off"), default="on")
    ap.add_argument("--label", default="run", help="names the results files")
    ap.add_argument("--seed", type=int, default=SEED, help=f"the sample's seed ({SEED})")
    args = ap.parse_args(argv)
    if not (data_root() / DATA).exists():
        print(f"rgb_zh: {DATA} not found under {data_root()}; skipped")
        return 0
    os.environ["CITEWISE_DENSE"] = args.dense
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0
    t0 = time.perf_counter()
    summary = run(args.n, args.label, args.seed)
    summary.update(
        {
            "dense": args.dense,
            "seconds": round(time.perf_counter() - t0, 1),
            "load": [load0, os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0],
            "machine": platform.machine(),
            "python": sys.version.split()[0],
        }
    )
    OUT.mkdir(exist_ok=True)
    (OUT / f"rgb_zh_{args.label}.json").write_text(json.dumps(summary, indent=2), "utf-8")
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
