"""The rerank stage: a real ``/rerank`` server on 127.0.0.1, a tiny ONNX cross-encoder built
here with the ``onnx`` helper API, degradation that never breaks recall, and config."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from bench._tiny_cross_encoder import write_tiny_cross_encoder

from citewise.config import RerankConfig, rerank_from_env
from citewise.errors import RerankFailed, UsageError
from citewise.index.embedder import Unavailable
from citewise.kb import Home
from citewise.recall.rerank import FAILING, FAILING_STATE, health, probe, rerank_pool
from citewise.recall.rerank_http import HttpReranker, parse_scores, rerank_url
from citewise.recall.rerank_onnx import load_onnx_reranker
from citewise.recall.search import RecallSettings

#: Diversification (MMR) runs after the rerank stage; off here so the order is the reranker's.
NO_MMR = RecallSettings(mmr=False)
#: The scripted server scores a document by how often it says this word.
MARK = "zebra"


class RerankServer:
    """``POST /rerank`` in the Cohere/Jina shape, or (``mode``) TEI's, or a failure."""

    def __init__(self) -> None:
        self.mode = "cohere"
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                status, payload = server.reply(body)
                raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def reply(self, body: dict[str, Any]) -> tuple[int, Any]:
        docs = body.get("documents") or body.get("texts") or []
        scores = [d.lower().count(MARK) / 10 for d in docs]
        if self.mode == "inverted":
            scores = [1 - s for s in scores]
        if self.mode == "500":
            return 500, {"error": "model crashed"}
        if self.mode == "not_json":
            return 200, b"<html>gateway</html>"
        if self.mode == "missing":
            return 200, {"results": [{"index": 0, "relevance_score": 0.5}]}
        if self.mode == "slow":
            time.sleep(1.5)
        if self.mode == "tei":
            return 200, [{"index": i, "score": s} for i, s in enumerate(scores)]
        order = sorted(range(len(docs)), key=lambda i: -scores[i])
        return 200, {"results": [{"index": i, "relevance_score": scores[i]} for i in order]}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(autouse=True)
def no_failing_rerankers() -> Iterator[None]:
    """Each test starts with no reranker marked failing (the state is per process)."""
    FAILING_STATE._until.clear()
    yield
    FAILING_STATE._until.clear()


@pytest.fixture
def server() -> Iterator[RerankServer]:
    s = RerankServer()
    yield s
    s.close()


DOCS = {
    "alpha.md": "# Alpha\n\nThe backup window opens at midnight and the backup runs nightly.\n",
    "beta.md": "# Beta\n\nThe backup window is logged. A zebra zebra zebra guards the backup.\n",
    "gamma.md": "# Gamma\n\nThe backup window closes at dawn; a zebra checks the backup.\n",
}


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rerank: str, **env: str) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.setenv("CITEWISE_RERANK", rerank)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    root = tmp_path / "docs"
    root.mkdir(parents=True)
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    home = Home.open(tmp_path / "home")
    assert home.kb().add([root]).ok
    return home


def _route(result: Any) -> Any:
    return next(d for d in result.diagnostics if d.route == "rerank")


def test_unconfigured_rerank_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _home(tmp_path, monkeypatch, "off") as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    d = _route(result)
    assert (d.status, d.reason) == ("skipped", "no reranker configured (CITEWISE_RERANK)")
    assert "reranker" not in result.settings


def test_http_rerank_reorders_the_fused_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RerankServer
) -> None:
    with _home(tmp_path, monkeypatch, "off") as home:
        plain = [h.path for h in home.kb().search("backup window", settings=NO_MMR).hits]
    assert plain[0] != "beta.md"  # the fused order does not put the zebra document first
    monkeypatch.setenv("CITEWISE_RERANK_API_KEY", "sk-test-secret-1234")
    with _home(tmp_path / "b", monkeypatch, server.url) as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    assert [h.path for h in result.hits] == ["beta.md", "gamma.md", "alpha.md"]
    d = _route(result)
    assert d.status == "ok" and d.candidates == 3 and d.dropped == 0
    assert d.top_score == pytest.approx(0.3)
    body = server.requests[-1]
    assert body["query"] == "backup window" and body["top_n"] == 3 and len(body["documents"]) == 3
    assert server.headers[-1]["Authorization"] == "Bearer sk-test-secret-1234"
    assert result.settings["reranker"].startswith("http-reranker@http#")
    assert "sk-test-secret" not in json.dumps(result.settings) + repr(result.diagnostics)


def test_threshold_drops_candidates_and_counts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RerankServer
) -> None:
    env = {"CITEWISE_RERANK_THRESHOLD": "0.05"}
    with _home(tmp_path, monkeypatch, server.url, **env) as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    assert [h.path for h in result.hits] == ["beta.md", "gamma.md"]
    d = _route(result)
    assert (d.candidates, d.dropped, d.threshold) == (2, 1, 0.05)
    assert "dropped 1" in d.reason


def test_threshold_dropping_everything_abstains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RerankServer
) -> None:
    env = {"CITEWISE_RERANK_THRESHOLD": "0.9"}
    with _home(tmp_path, monkeypatch, server.url, **env) as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    assert result.outcome == "insufficient_evidence" and not result.hits
    assert result.abstention is not None and result.abstention.criterion == "rerank_threshold"
    assert _route(result).dropped == 3


@pytest.mark.parametrize(
    ("mode", "status", "words"),
    [
        ("500", "unavailable", "HTTP 500"),
        ("not_json", "unavailable", "not JSON"),
        ("missing", "unavailable", "scored 1 of 3"),
        ("slow", "degraded", "time budget"),
    ],
)
def test_server_failures_leave_the_fused_order(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: RerankServer,
    mode: str,
    status: str,
    words: str,
) -> None:
    with _home(tmp_path / "plain", monkeypatch, "off") as home:
        plain = [h.path for h in home.kb().search("backup window", settings=NO_MMR).hits]
    server.mode = mode
    # the slow server answers after 1.5 s; 1 s leaves the others room on a loaded machine
    # (at 300 ms a quick error reply was sometimes read as over budget)
    env = {"CITEWISE_RERANK_BUDGET_MS": "1000"}
    with _home(tmp_path / "rr", monkeypatch, server.url, **env) as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    assert [h.path for h in result.hits] == plain
    d = _route(result)
    assert d.status == status and words in d.reason and "fused order stands" in d.reason


def test_unreachable_server_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closed = RerankServer()
    url = closed.url
    closed.close()
    with _home(tmp_path, monkeypatch, url) as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    d = _route(result)
    assert d.status == "unavailable" and "unreachable" in d.reason and result.hits


def test_tei_shape_and_texts_field(server: RerankServer) -> None:
    server.mode = "tei"
    rr = HttpReranker(server.url, field="texts", model="bge-reranker")
    assert rr.score("q", ["a zebra", "none"], timeout=5) == [0.1, 0.0]
    assert server.requests[-1] == {
        "query": "q",
        "texts": ["a zebra", "none"],
        "model": "bge-reranker",
    }


def test_probe_tells_a_working_reranker_from_a_broken_one(server: RerankServer) -> None:
    class Keyword:
        name = fingerprint = "keyword"

        def score(self, query: str, documents: Any, *, timeout: float) -> list[float]:
            return [float("twelve months" in d) for d in documents]

    assert probe(Keyword()).ok
    server.mode = "inverted"  # scores everything near 1 except zebra texts: no signal
    bad = probe(HttpReranker(server.url))
    assert not bad.ok and "not above" in bad.reason
    server.mode = "500"
    assert "HTTP 500" in probe(HttpReranker(server.url)).reason


@pytest.mark.parametrize(
    "payload",
    [
        {"results": [{"index": 0, "relevance_score": "high"}]},
        {"results": [{"index": 5, "relevance_score": 0.1}]},
        {"results": [{"index": 0, "score": 0.1}, {"index": 0, "score": 0.2}]},
        {"results": "none"},
        {"unexpected": []},
        ["not an object"],
    ],
)
def test_malformed_replies_are_rejected(payload: Any) -> None:
    with pytest.raises(RerankFailed):
        parse_scores(payload, 2)


def test_rerank_url() -> None:
    assert rerank_url("http://h:8080") == "http://h:8080/rerank"
    assert rerank_url("http://h:8080/v1/rerank") == "http://h:8080/v1/rerank"


def test_over_budget_keeps_the_fused_order() -> None:
    ticks = iter([0.0, 10.0])

    class Instant:
        name = fingerprint = "instant"

        def score(self, query: str, documents: Any, *, timeout: float) -> list[float]:
            return [float(i) for i in range(len(documents))]

    fused = {"a": 3.0, "b": 2.0, "c": 1.0}
    cfg = RerankConfig(backend="http", budget_ms=100)
    out, diag = rerank_pool(Instant(), "q", fused, str, cfg, clock=lambda: next(ticks))
    assert out == fused and diag.status == "degraded" and "time budget" in diag.reason
    out, diag = rerank_pool(Instant(), "q", fused, str, RerankConfig(backend="http"))
    assert sorted(out, key=lambda c: -out[c]) == ["c", "b", "a"]
    assert sorted(out.values()) == sorted(fused.values())  # the pool's scores, handed out again


def test_unavailable_reranker_is_reported() -> None:
    fused = {"a": 1.0}
    out, diag = rerank_pool(
        Unavailable("rerank", "model.onnx is missing"), "q", fused, str, RerankConfig()
    )
    assert out == fused and diag.status == "unavailable" and "model.onnx is missing" in diag.reason


# -- the ONNX path -----------------------------------------------------------------------
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "backup", "window", MARK, "horse", "."]


def _tiny_cross_encoder(folder: Path) -> Path:
    return write_tiny_cross_encoder(folder, VOCAB, MARK)


def test_onnx_cross_encoder_scores_pairs(tmp_path: Path) -> None:
    rr = load_onnx_reranker(_tiny_cross_encoder(tmp_path / "ce"))
    assert not isinstance(rr, Unavailable)
    ids, types = rr.pair("zebra backup", "the zebra zebra window")
    assert ids[0] == VOCAB.index("[CLS]") and ids.count(VOCAB.index("[SEP]")) == 2
    assert types == [0, 0, 0, 0, 1, 1, 1, 1, 1]
    got = rr.score("zebra zebra", ["the backup", "zebra", "zebra zebra . zebra"], timeout=10)
    assert got == [0.0, 1.0, 3.0]  # the query's own zebras never count: token types work
    assert rr.fingerprint == load_onnx_reranker(tmp_path / "ce").fingerprint  # type: ignore[union-attr]


def test_onnx_rerank_in_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _tiny_cross_encoder(tmp_path / "ce")
    with _home(tmp_path, monkeypatch, f"onnx:{folder}") as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    assert [h.path for h in result.hits] == ["beta.md", "gamma.md", "alpha.md"]
    d = _route(result)
    assert d.status == "ok" and d.top_score == 3.0
    assert result.settings["reranker"].startswith("onnx:ce@onnxruntime==")


def test_missing_or_broken_onnx_model_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    got = load_onnx_reranker(empty)
    assert isinstance(got, Unavailable) and "model.onnx is missing" in got.reason
    (empty / "model.onnx").write_bytes(b"not a model")
    (empty / "vocab.txt").write_text("\n".join(VOCAB), encoding="utf-8")
    got = load_onnx_reranker(empty)
    assert isinstance(got, Unavailable)
    with _home(tmp_path, monkeypatch, f"onnx:{empty}") as home:
        result = home.kb().search("backup window", settings=NO_MMR)
    d = _route(result)
    assert d.status == "unavailable" and "fused order stands" in d.reason and result.hits


# -- configuration ------------------------------------------------------------------------
def test_config_from_env() -> None:
    assert rerank_from_env({}).backend == "off"
    cfg = rerank_from_env(
        {
            "CITEWISE_RERANK": "http://127.0.0.1:8080",
            "CITEWISE_RERANK_TOP_N": "20",
            "CITEWISE_RERANK_THRESHOLD": "-1.5",
            "CITEWISE_RERANK_BUDGET_MS": "750",
            "CITEWISE_RERANK_FIELD": "texts",
        }
    )
    assert (cfg.backend, cfg.top_n, cfg.threshold, cfg.budget_ms, cfg.field) == (
        "http",
        20,
        -1.5,
        750.0,
        "texts",
    )
    assert rerank_from_env({"CITEWISE_RERANK": "onnx:/m"}).location == "/m"


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({"CITEWISE_RERANK": "bert"}, "CITEWISE_RERANK"),
        ({"CITEWISE_RERANK": "onnx:"}, "CITEWISE_RERANK"),
        ({"CITEWISE_RERANK_TOP_N": "many"}, "CITEWISE_RERANK_TOP_N"),
        ({"CITEWISE_RERANK_BUDGET_MS": "0"}, "CITEWISE_RERANK_BUDGET_MS"),
        ({"CITEWISE_RERANK_FIELD": "docs"}, "CITEWISE_RERANK_FIELD"),
    ],
)
def test_bad_config_names_the_variable(env: dict[str, str], names: str) -> None:
    with pytest.raises(UsageError, match=names):
        rerank_from_env(env)


def test_health_reports_each_state(server: RerankServer) -> None:
    from citewise.recall.rerank import health

    assert health(None)["status"] == "off"
    assert health(Unavailable("rerank", "model.onnx is missing"))["status"] == "unavailable"
    server.mode = "inverted"
    got = health(HttpReranker(server.url))
    assert got["status"] == "failing" and "not above" in str(got["reason"])
    assert str(got["fingerprint"]).startswith("http-reranker@http#")


def test_an_answer_refused_by_the_rerank_threshold_names_the_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RerankServer
) -> None:
    env = {"CITEWISE_RERANK_THRESHOLD": "0.9"}
    with _home(tmp_path, monkeypatch, server.url, **env) as home:
        answer = home.kb().ask("When does the backup window open?")
    assert answer.outcome == "insufficient_evidence"
    assert answer.failure_stage == "reranking"
    assert "threshold" in answer.answer


@pytest.mark.parametrize(("mode", "words"), [("500", "HTTP 500"), ("slow", "time budget")])
def test_a_failing_reranker_is_skipped_with_the_reason_until_it_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RerankServer, mode: str, words: str
) -> None:
    """A real endpoint that answers 500 (or too late): the first search tries it and keeps
    the fused order; the next ones do not call it and say why in the rerank route, until
    the cooldown passes; then it is tried again (and used once it works)."""
    now = [1000.0]
    monkeypatch.setattr(FAILING_STATE, "clock", lambda: now[0])
    server.mode = mode
    env = {"CITEWISE_RERANK_BUDGET_MS": "1000"}
    with _home(tmp_path, monkeypatch, server.url, **env) as home:
        kb = home.kb()
        first = _route(kb.search("backup window", settings=NO_MMR))
        assert first.status in ("unavailable", "degraded") and words in first.reason
        calls = len(server.requests)
        skipped = _route(kb.search("backup window", settings=NO_MMR))
        assert len(server.requests) == calls  # not called again while failing
        assert skipped.status == "skipped" and skipped.reason.startswith(FAILING)
        assert words in skipped.reason and "fused order stands" in skipped.reason
        answer = kb.ask("When does the backup window open?")
        (route,) = [d for d in answer.trace["retrieval"]["diagnostics"] if d["route"] == "rerank"]
        assert route["reason"].startswith(FAILING)
        if answer.outcome == "answered":  # answered without the reranker: it says where
            assert answer.failure_stage == "reranking"
            assert answer.to_json()["failure_stage"] == "reranking"
            assert answer.trace["failure_stage"] == "reranking"
        server.mode = "cohere"
        now[0] += 61  # past the cooldown: tried again (used when within its time budget)
        before = len(server.requests)
        again = _route(kb.search("backup window", settings=NO_MMR))
        assert len(server.requests) > before and not again.reason.startswith(FAILING)


def test_a_failing_health_probe_takes_the_reranker_out_of_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RerankServer
) -> None:
    """A reranker that answers but ranks the unrelated passage first is not used after the
    health probe says ``failing``: searches skip it with the probe's reason."""
    server.mode = "inverted"
    with _home(tmp_path, monkeypatch, server.url) as home:
        kb = home.kb()
        assert _route(kb.search("backup window", settings=NO_MMR)).status == "ok"
        assert health(HttpReranker(server.url))["status"] == "failing"
        got = _route(kb.search("backup window", settings=NO_MMR))
        assert (
            got.status == "skipped" and "health probe" in got.reason and "not above" in got.reason
        )
