"""Retrieval evaluation on a BEIR-layout dataset, through the product's own search path.

The corpus becomes a knowledge base: every document is written as ``<_id>.md``
(``# title`` then the text) into a cache home and ingested with the same steps as
:meth:`citewise.kb.KnowledgeBase.add` (store + lexical index, then the index sync that
encodes the vectors). The home is keyed by the corpus file's path, size and mtime, so a
second run reuses the store and the encoded vectors instead of re-encoding.

Queries run one at a time through :meth:`KnowledgeBase.search`; chunk hits map back to
BEIR document ids by their file stem and a document takes the rank of its best chunk.
Metrics are trec_eval's (via ``pytrec_eval``, PyPI ``pytrec-eval-terrier``): nDCG@10
(``ndcg_cut.10``), Recall@100 (``recall.100``) and MRR@10 (``recip_rank`` on the run cut
at 10); a query with no hits (abstention) scores 0.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, unquote

from citewise.config import Settings
from citewise.core.search import SearchMode
from citewise.errors import CitewiseError, UsageError
from citewise.index.manager import LOADERS
from citewise.kb import Home, KnowledgeBase
from citewise.recall.search import RecallSettings
from citewise.store.factory import DB_NAME, open_store

Run = dict[str, dict[str, float]]  # query id -> doc id -> score
Qrels = dict[str, dict[str, int]]  # query id -> doc id -> relevance
KB_NAME = "beir"
MARKER = "ingested.json"
PYTREC_HINT = "pip install pytrec-eval-terrier"


@dataclass(frozen=True, slots=True)
class BeirSet:
    """A BEIR directory's queries and judgments of one split (the corpus is read lazily)."""

    root: Path
    name: str
    split: str
    corpus_path: Path
    queries: dict[str, str]
    qrels: Qrels


@dataclass(frozen=True, slots=True)
class Prepared:
    """How the evaluation KB was obtained; times are 0 for the parts that were cached."""

    home_dir: Path
    encoder: str
    documents: int
    ingest_seconds: float  # store + lexical index (KnowledgeBase.add with dense off)
    sync_seconds: float  # the index sync that encodes the vectors
    encode_seconds: float  # of which inside the encoder
    encoded: int  # chunks encoded now (0 when the vectors were cached)
    chunks: int
    dense: str  # ok | unavailable | disabled (+ reason)

    @property
    def outside_encoder_share(self) -> float | None:
        total = self.ingest_seconds + self.sync_seconds
        return None if total <= 0 else (total - self.encode_seconds) / total


@dataclass(frozen=True, slots=True)
class RetrievalReport:
    mode: str
    encoder: str
    split: str
    n_queries: int
    metrics: dict[str, float]
    qps: float
    latency_ms: dict[str, float]
    abstained: int
    top_k: int
    settings: dict[str, Any] = field(default_factory=dict)
    prepared: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            **{k: round(v, 4) for k, v in self.metrics.items()},
            "qps": round(self.qps, 2),
            "latency_ms": {k: round(v, 2) for k, v in self.latency_ms.items()},
            "mode": self.mode,
            "n_queries": self.n_queries,
            "encoder": self.encoder,
            "split": self.split,
            "top_k": self.top_k,
            "abstained": self.abstained,
            "settings": self.settings,
            "prepared": self.prepared,
        }


# -- dataset -------------------------------------------------------------------------


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with _open(path) as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise UsageError(f"{path}:{n}: not valid JSON ({exc}).") from exc
            if not isinstance(row, dict) or "_id" not in row:
                raise UsageError(f"{path}:{n}: expected an object with an '_id'.")
            yield row


def corpus_file(root: Path) -> Path | None:
    for name in ("corpus.jsonl.gz", "corpus.jsonl"):
        if (root / name).is_file():
            return root / name
    return None


def load_beir(root: Path, split: str = "test") -> BeirSet:
    """Queries and qrels of ``split`` from a BEIR directory, or a UsageError saying what is
    missing."""
    root = Path(root).expanduser()
    layout = "corpus.jsonl[.gz], queries.jsonl and qrels/<split>.tsv"
    if not root.is_dir():
        raise UsageError(
            f"{root}: no such BEIR directory.", hint=f"Pass a folder holding {layout}."
        )
    corpus = corpus_file(root)
    if corpus is None:
        raise UsageError(f"{root}: no corpus.jsonl or corpus.jsonl.gz.", hint=f"Expected {layout}.")
    if not (root / "queries.jsonl").is_file():
        raise UsageError(f"{root}: no queries.jsonl.", hint=f"Expected {layout}.")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        have = sorted(p.stem for p in (root / "qrels").glob("*.tsv"))
        raise UsageError(
            f"{root}: no qrels/{split}.tsv.",
            hint=f"Available splits: {', '.join(have) or 'none'}.",
        )
    qrels: Qrels = {}
    with qrels_path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            try:
                score = int(parts[2])
            except ValueError:
                if n == 1:  # the header line
                    continue
                raise UsageError(
                    f"{qrels_path}:{n}: score {parts[2]!r} is not an integer."
                ) from None
            if score > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = score
    queries = {str(q["_id"]): str(q.get("text") or "") for q in _jsonl(root / "queries.jsonl")}
    missing = [q for q in qrels if q not in queries]
    if missing:
        raise UsageError(
            f"{qrels_path}: {len(missing)} judged queries are not in queries.jsonl "
            f"(first: {missing[0]})."
        )
    if not qrels:
        raise UsageError(f"{qrels_path}: no relevant judgments (score > 0).")
    return BeirSet(root, root.name, split, corpus, queries, qrels)


def doc_filename(doc_id: str) -> str:
    """A safe, reversible file name for a BEIR id (``doc_id_of`` inverts it)."""
    return quote(doc_id, safe="") + ".md"


def doc_id_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return unquote(name[:-3] if name.endswith(".md") else name)


def cache_home(data: BeirSet, cache: Path | None = None) -> Path:
    """``<cache>/<name>-<hash>`` keyed by the corpus file's path, size and mtime."""
    st = data.corpus_path.stat()
    key = f"{data.corpus_path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    if cache is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        cache = Path(base) / "citewise" / "eval"
    return Path(cache).expanduser() / f"{data.name}-{digest}"


def _write_docs(data: BeirSet, docs: Path) -> int:
    """Write the corpus as Markdown files (once; a marker records completion)."""
    done = docs / ".complete"
    if done.exists():
        return int(done.read_text("utf-8") or 0)
    docs.mkdir(parents=True, exist_ok=True)
    n = 0
    for row in _jsonl(data.corpus_path):
        title = " ".join(str(row.get("title") or "").split())
        text = str(row.get("text") or "").strip()
        body = f"# {title}\n\n{text}\n" if title else f"{text}\n"
        target = docs / doc_filename(str(row["_id"]))
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(body, "utf-8")
        tmp.replace(target)
        n += 1
    done.write_text(str(n), "utf-8")
    return n


def _home(home_dir: Path, encoder: str, dense: bool) -> Home:
    settings = dataclasses.replace(
        Settings.resolve(home_dir), dense=dense, encoder=encoder, home=home_dir.resolve()
    )
    return Home(settings, open_store(home_dir / DB_NAME))


def prepare_kb(
    data: BeirSet,
    *,
    cache: Path | None = None,
    encoder: str = "minilm",
    dense: bool = True,
    progress: StageProgress | None = None,
) -> tuple[Home, KnowledgeBase, Prepared]:
    """The evaluation KB for ``data``'s corpus, built on first use and reused after.

    Ingest runs as ``KnowledgeBase.add`` does (store + lexical index, then the index sync
    that encodes); the two steps are timed apart so the encoder's share is known.
    """
    if encoder not in LOADERS and encoder != "auto":
        raise UsageError(
            f"Unknown encoder {encoder!r}.", hint=f"Choose one of: auto, {', '.join(LOADERS)}."
        )
    home_dir = cache_home(data, cache)
    home_dir.mkdir(parents=True, exist_ok=True)
    n_docs = _write_docs(data, home_dir / "docs")
    stamp = f"{data.corpus_path.resolve()}|{n_docs}"
    marker = home_dir / MARKER
    ingest_s = 0.0
    fresh = not marker.exists() or json.loads(marker.read_text("utf-8")).get("stamp") != stamp
    if fresh:
        with _home(home_dir, encoder, dense=False) as h:
            if KB_NAME not in {k.name for k in h.list_kbs()}:
                h.create_kb(KB_NAME, f"BEIR {data.name}")
            t0 = time.perf_counter()
            report = h.kb(KB_NAME).add(
                [home_dir / "docs"],
                progress=None if progress is None else (lambda _r, d, t: progress("ingest", d, t)),
            )
            ingest_s = time.perf_counter() - t0
            failed = [f for f in report.files if f.status == "failed"]
            if failed:
                raise UsageError(
                    f"{len(failed)} corpus documents failed to ingest "
                    f"(first: {failed[0].path}: {failed[0].message})."
                )
        marker.write_text(json.dumps({"stamp": stamp, "documents": n_docs}), "utf-8")
    home = _home(home_dir, encoder, dense=dense)
    try:
        kb = home.kb(KB_NAME)
        index = home.index(KB_NAME)
        index.progress = progress  # ("embed", done, total) while encoding
        index.unit_texts = None  # retrieval only: no answer units to encode ahead
        sync = index.sync()
    except CitewiseError:
        home.close()
        raise
    dense_state = index.dense.status + (f": {index.dense.reason}" if index.dense.reason else "")
    build = home_dir / f"build-{encoder}.json"
    if sync.encoded and sync.encoded == len(index.chunks):  # a full build: keep its timings
        record = {
            "documents": n_docs,
            "chunks": len(index.chunks),
            "ingest_seconds": ingest_s,
            "sync_seconds": sync.seconds,
            "encode_seconds": sync.encode_seconds,
            "encoded": sync.encoded,
        }
        build.write_text(json.dumps(record), "utf-8")
    prepared = Prepared(
        home_dir=home_dir,
        encoder=encoder,
        documents=n_docs,
        ingest_seconds=ingest_s,
        sync_seconds=sync.seconds if sync.encoded else 0.0,
        encode_seconds=sync.encode_seconds,
        encoded=sync.encoded,
        chunks=len(index.chunks),
        dense=dense_state,
    )
    return home, kb, prepared


# -- running and scoring ---------------------------------------------------------------


#: (stage, done, total) for long steps: "ingest", "embed", "queries".
StageProgress = Callable[[str, int, int], None]


def _percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * p / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class QueryRun:
    run: Run
    latencies_ms: list[float]
    abstained: int
    seconds: float


def run_queries(
    kb: KnowledgeBase,
    queries: Mapping[str, str],
    qids: Sequence[str],
    *,
    mode: SearchMode = "hybrid",
    settings: RecallSettings | None = None,
    top_k: int = 100,
    chunks: int | None = None,
    on_result: Callable[[str, Any], None] | None = None,
) -> QueryRun:
    """Search one query at a time; documents are ranked by their best chunk.

    Up to ``chunks`` (default ``3 * top_k``) chunks are requested so that ``top_k``
    distinct documents remain when a document has several chunks; document scores are
    rank-based so that trec_eval's tie-breaking (by doc id) cannot reorder them.
    """
    run: Run = {}
    lat: list[float] = []
    abstained = 0
    t_all = time.perf_counter()
    for q in qids:
        text = queries[q]
        if not text.strip():
            run[q] = {}
            continue
        t0 = time.perf_counter()
        res = kb.search(text, top_k=chunks or 3 * top_k, mode=mode, settings=settings)
        lat.append((time.perf_counter() - t0) * 1000.0)
        if on_result is not None:
            on_result(q, res)
        if res.outcome != "ok":
            abstained += 1
        docs: dict[str, float] = {}
        for hit in res.hits:
            did = doc_id_of(hit.path)
            if did not in docs:
                docs[did] = float(top_k - len(docs))
                if len(docs) == top_k:
                    break
        run[q] = docs
    return QueryRun(run, lat, abstained, time.perf_counter() - t_all)


def evaluate_run(qrels: Qrels, run: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean ``ndcg@10``, ``recall@100``, ``mrr@10`` over the judged queries (trec_eval)."""
    try:
        import pytrec_eval
    except ImportError as exc:
        raise UsageError(
            "Retrieval metrics need trec_eval's Python binding.", hint=PYTREC_HINT
        ) from exc
    full = {q: {d: float(s) for d, s in run.get(q, {}).items()} for q in qrels}
    top10 = {q: dict(sorted(d.items(), key=lambda kv: -kv[1])[:10]) for q, d in full.items()}
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"}).evaluate(full)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    n = len(qrels)
    return {
        "ndcg@10": sum(per_q.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels) / n,
        "recall@100": sum(per_q.get(q, {}).get("recall_100", 0.0) for q in qrels) / n,
        "mrr@10": sum(rr.get(q, {}).get("recip_rank", 0.0) for q in qrels) / n,
    }


def evaluate_beir(
    root: Path,
    *,
    split: str = "test",
    mode: SearchMode = "hybrid",
    top_k: int = 100,
    encoder: str = "minilm",
    cache: Path | None = None,
    settings: RecallSettings | None = None,
    progress: StageProgress | None = None,
) -> RetrievalReport:
    """Build or reuse the KB of ``root``'s corpus and score ``split`` in ``mode``.

    ``progress`` gets (stage, done, total) for "ingest", "embed" and "queries"."""
    if top_k < 100:
        raise UsageError(f"--top-k must be at least 100 for Recall@100, not {top_k}.")
    evaluate_run({"q": {"d": 1}}, {})  # fail early, before any ingest, if pytrec_eval is absent
    data = load_beir(root, split)
    s = settings or RecallSettings(mmr=False)
    home, kb, prepared = prepare_kb(
        data, cache=cache, encoder=encoder, dense=mode != "lexical", progress=progress
    )
    try:
        if mode != "lexical" and not prepared.dense.startswith("ok"):
            raise UsageError(
                f"The {mode} mode needs the dense route, which is {prepared.dense}.",
                hint="Use --mode lexical, or install the encoder.",
            )
        qids = sorted(data.qrels)
        done = [0]

        def counted(_q: str, _res: Any) -> None:
            done[0] += 1
            if progress is not None:
                progress("queries", done[0], len(qids))

        got = run_queries(
            kb, data.queries, qids, mode=mode, settings=s, top_k=top_k, on_result=counted
        )
    finally:
        home.close()
    metrics = evaluate_run(data.qrels, got.run)
    searched = len(got.latencies_ms)
    return RetrievalReport(
        mode=mode,
        encoder=encoder if mode != "lexical" else "none",
        split=split,
        n_queries=len(qids),
        metrics=metrics,
        qps=searched / max(sum(got.latencies_ms) / 1000.0, 1e-9),
        latency_ms={
            "p50": _percentile(got.latencies_ms, 50),
            "p95": _percentile(got.latencies_ms, 95),
        },
        abstained=got.abstained,
        top_k=top_k,
        settings=dataclasses.asdict(s),
        prepared={
            "home": str(prepared.home_dir),
            "documents": prepared.documents,
            "chunks": prepared.chunks,
            "encoded_now": prepared.encoded,
            "dense": prepared.dense,
        },
    )


__all__ = [
    "BeirSet",
    "Prepared",
    "QueryRun",
    "RetrievalReport",
    "cache_home",
    "doc_filename",
    "doc_id_of",
    "evaluate_beir",
    "evaluate_run",
    "load_beir",
    "prepare_kb",
    "run_queries",
]
