"""Lexical levers not yet measured, on SciFact **train** only (issue 17, lexical >= 0.69).

Run: ``.venv/bin/python -m bench.lexical_variants [--json]``

Every family re-scores the product's lexical index (``LexicalIndex`` with its shipped
k1 / b / title weight and tokenizer) and reports nDCG@10 over the 809 train claims against
the index as shipped. Test is not read: a family is worth a test run only if its
train-best beats the shipped index on train by more than noise.

* **proximity** (term dependence in the spirit of Metzler & Croft 2005, "A Markov random
  field model for term dependencies", SIGIR): for each pair of adjacent query terms, an
  ordered-bigram count and an unordered-window count (window w) in the abstract, weighted
  by the pair's smaller idf, added to BM25 with weights w_o / w_u over the top 100;
* **abbreviations** from the corpus itself (Schwartz & Hearst 2003, "A simple algorithm
  for identifying abbreviation definitions in biomedical text", PSB): a short form that
  the corpus defines as "long form (SF)" at least twice adds its long form's terms to the
  query with weight g;
* **BM25 variants** (Lv & Zhai 2011, "Lower-bounding term frequency normalization",
  CIKM: BM25+ and BM25L with delta; a log-tf saturation) over k1 x b, and dropping query
  terms found in more than a share of the abstracts.

Skips (exit 0) when the shared data is absent. Writes ``bench/out/lexical_variants.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench._beir import data_root, evaluate, load_corpus, load_qrels, load_queries
from citewise.analysis.tokenize import tokenize, word_tokens
from citewise.index.lexical import DEFAULT_B, DEFAULT_K1, LexicalIndex

OUT = Path(__file__).resolve().parent / "out" / "lexical_variants.json"
Scores = npt.NDArray[np.float64]


class Lab:
    """The SciFact corpus as the product's lexical index sees it, with postings in numpy."""

    def __init__(self, root: Path) -> None:
        self.corpus = load_corpus(root)
        self.queries = load_queries(root)
        self.train = load_qrels(root, "train")
        self.ids = [d.doc_id for d in self.corpus]
        self.index = LexicalIndex.build([(d.doc_id, d.text, d.title) for d in self.corpus])
        post: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
        self.length = np.zeros(len(self.corpus))
        for i, d in enumerate(self.corpus):
            toks, weights, length = self.index.bag_of(d.text, d.title)
            self.length[i] = length
            tf: dict[str, float] = defaultdict(float)
            for t, w in zip(toks, weights, strict=True):
                tf[t] += w
            for t, x in tf.items():
                post[t][0].append(i)
                post[t][1].append(x)
        self.post = {t: (np.array(a), np.array(b)) for t, (a, b) in post.items()}
        self.words = [word_tokens(d.title + " . " + d.text) for d in self.corpus]
        self.qtok = {q: tokenize(self.queries[q]) for q in self.train}

    def idf(self, term: str) -> float:
        n = len(self.post[term][0]) if term in self.post else 0
        return math.log(1 + (len(self.corpus) - n + 0.5) / (n + 0.5))

    def bm25(
        self,
        tokens: list[str],
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        variant: str = "bm25",
        delta: float = 0.0,
        drop: float = 0.0,
    ) -> Scores:
        n, avg = len(self.corpus), float(self.length.mean())
        s = np.zeros(n)
        for t, qtf in Counter(tokens).items():
            if t not in self.post:
                continue
            d, tf = self.post[t]
            if drop and len(d) / n > drop:
                continue
            norm = 1 - b + b * self.length[d] / avg
            if variant == "bm25l":
                ctd = tf / norm
                c = (k1 + 1) * (ctd + delta) / (k1 + ctd + delta)
            elif variant == "logtf":
                c = np.log1p(tf) / (np.log1p(tf) + k1 * norm)
            else:  # Lucene BM25 (the product's), plus BM25+'s delta
                c = tf / (tf + k1 * norm) + delta
            s[d] += qtf * self.idf(t) * c
        return s

    def ndcg(self, score: Callable[[str], Scores]) -> float:
        run = {}
        for q in self.train:
            s = score(q)
            top = np.argsort(-s)[:100]
            run[q] = {self.ids[i]: float(s[i]) for i in top if s[i] > 0}
        return round(evaluate(self.train, run)["ndcg@10"], 4)


def proximity(lab: Lab, q: str, doc: int, window: int) -> tuple[float, float]:
    """Ordered-bigram and unordered-window evidence of adjacent query-term pairs."""
    terms = list(dict.fromkeys(word_tokens(lab.queries[q])))
    where: dict[str, list[int]] = defaultdict(list)
    for i, word in enumerate(lab.words[doc]):
        where[word].append(i)
    ordered = unordered = 0.0
    for a, b in itertools.pairwise(terms):
        pa, pb = where.get(a), where.get(b)
        if not pa or not pb:
            continue
        after = set(pb)
        n_o = sum(1 for i in pa if i + 1 in after)
        n_u = sum(1 for i in pa for j in pb if 0 < abs(i - j) <= window)
        w = min(lab.idf(a), lab.idf(b))
        ordered += w * math.log1p(n_o)
        unordered += w * math.log1p(n_u)
    return ordered, unordered


def proximity_family(lab: Lab) -> list[dict[str, Any]]:
    base = {q: lab.bm25(lab.qtok[q]) for q in lab.train}
    top = {q: np.argsort(-s)[:100] for q, s in base.items()}
    feats = {
        (q, w): {int(d): proximity(lab, q, int(d), w) for d in top[q]}
        for q in lab.train
        for w in (4, 8)
    }
    rows = []
    for w in (4, 8):
        for wo, wu in ((0.05, 0), (0.1, 0), (0.2, 0), (0, 0.05), (0, 0.1), (0.05, 0.05)):

            def score(q: str, w: int = w, wo: float = wo, wu: float = wu) -> Scores:
                s = base[q].copy()
                for d, (o, u) in feats[(q, w)].items():
                    s[d] += wo * o + wu * u
                return s

            rows.append({"window": w, "w_o": wo, "w_u": wu, "train": lab.ndcg(score)})
    return rows


_PAREN = re.compile(r"\(([^()]{1,12})\)")
_SHORT = re.compile(r"^[A-Za-z0-9][\w\-]*$")
_WORD = re.compile(r"[\w\-]+")


def long_form(short: str, before: str) -> str | None:
    """Schwartz & Hearst: the shortest word run ending before the parenthesis whose letters
    hold the short form's characters in order, the first at a word start."""
    words = before.split()[-min(len(short) + 5, len(short) * 2) :]
    cand = " ".join(words)
    s, low = short.lower(), cand.lower()
    si, li = len(s) - 1, len(low) - 1
    while si >= 0:
        if not s[si].isalnum():
            si -= 1
            continue
        while li >= 0 and (low[li] != s[si] or (si == 0 and li > 0 and low[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        si, li = si - 1, li - 1
    found = cand[low.rfind(" ", 0, li + 1) + 1 :]
    return found.lower().strip(" ,;:") if len(found.split()) >= 2 else None


def abbreviation_family(lab: Lab) -> list[dict[str, Any]]:
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for d in lab.corpus:
        text = d.title + ". " + d.text
        for m in _PAREN.finditer(text):
            short = m.group(1).strip()
            if 2 <= len(short) <= 10 and _SHORT.match(short) and not short.islower():
                found = long_form(short, text[: m.start()])
                if found:
                    seen[short][found] += 1
    expand = {s: c.most_common(1)[0][0] for s, c in seen.items() if sum(c.values()) >= 2}
    extra = {
        q: [
            t
            for w in set(_WORD.findall(lab.queries[q]))
            if w in expand
            for t in tokenize(expand[w])
        ]
        for q in lab.train
    }
    base = {q: lab.bm25(lab.qtok[q]) for q in lab.train}
    rows: list[dict[str, Any]] = [
        {"short_forms": len(expand), "claims_expanded": sum(1 for v in extra.values() if v)}
    ]
    for g in (0.1, 0.2, 0.3, 0.5):

        def expanded(q: str, g: float = g) -> Scores:
            return base[q] + g * lab.bm25(extra[q]) if extra[q] else base[q]

        rows.append({"g": g, "train": lab.ndcg(expanded)})
    return rows


def bm25_family(lab: Lab) -> list[dict[str, Any]]:
    rows = []
    for k1 in (1.2, 1.5, 1.8):
        for b in (0.75, 0.85, 1.0):
            for variant, delta in (
                ("bm25", 0.25),
                ("bm25", 0.5),
                ("bm25l", 0.25),
                ("bm25l", 0.5),
                ("logtf", 0.0),
            ):

                def varied(
                    q: str, k1: float = k1, b: float = b, v: str = variant, dl: float = delta
                ) -> Scores:
                    return lab.bm25(lab.qtok[q], k1, b, v, dl)

                row = {"k1": k1, "b": b, "variant": variant, "delta": delta}
                rows.append({**row, "train": lab.ndcg(varied)})
    for drop in (0.2, 0.3, 0.5):

        def dropped(q: str, d: float = drop) -> Scores:
            return lab.bm25(lab.qtok[q], drop=d)

        rows.append({"drop_df_share": drop, "train": lab.ndcg(dropped)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    root = data_root() / "beir-scifact"
    if not root.is_dir():
        print(f"SciFact not found under {root}; skipping.")
        return 0
    lab = Lab(root)
    shipped = lab.ndcg(lambda q: lab.bm25(lab.qtok[q]))
    out: dict[str, Any] = {"train_claims": len(lab.train), "shipped_index_train": shipped}
    for name, family in (
        ("proximity", proximity_family),
        ("abbreviations", abbreviation_family),
        ("bm25", bm25_family),
    ):
        rows = family(lab)
        best = max((r for r in rows if "train" in r), key=lambda r: r["train"])
        out[name] = {"rows": rows, "best": best, "gain": round(best["train"] - shipped, 4)}
        print(f"{name}: train-best {best} (shipped {shipped})", flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n", "utf-8")
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
