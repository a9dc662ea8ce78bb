"""Hybrid recall over a real SQLite home: scope before ranking, honest diagnostics,
deleted content never returned, vectors reused by content, identifier lookup."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.core.search import SearchFilters
from citewise.index.embedder import Unavailable
from citewise.index.manager import KBIndex, default_loader
from citewise.index.minilm import MiniLMSettings, load_minilm
from citewise.ingest.walker import SourceFile, WalkProblem, walk
from citewise.kb import Home
from citewise.recall.search import search

PUBLIC = "---\ntitle: Ports\n---\n# Ports\n\nThe public API listens on port 8443 in production.\n"
SECRET = (
    "---\ntitle: Vault\naccess: [ops-team]\n---\n# Vault\n\n"
    "The vault rotation key lives on port 8443 behind the bastion; rotate it every 30 days.\n"
)


@pytest.fixture
def lexical_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    return Home.open(tmp_path / "home")


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_principal_never_sees_restricted_documents(lexical_home: Home, tmp_path: Path) -> None:
    kb = lexical_home.kb()
    assert kb.add([_write(tmp_path / "c", {"ports.md": PUBLIC, "vault.md": SECRET})]).ok
    for principal in (None, "someone-else"):
        result = kb.search(
            "vault rotation key port 8443", filters=SearchFilters(principal=principal)
        )
        assert all(h.path != "vault.md" for h in result.hits)
        lexical = next(d for d in result.diagnostics if d.route == "lexical")
        assert lexical.candidates == 1  # the restricted chunk is not even counted
        assert "vault" not in repr(result).lower().replace("vault rotation key", "")
    allowed = kb.search("vault rotation key", filters=SearchFilters(principal="ops-team"))
    assert allowed.hits[0].path == "vault.md"
    assert allowed.scope_mode == "pre_filter"


def test_scope_filters_apply_before_truncation(lexical_home: Home, tmp_path: Path) -> None:
    files = {f"noise/n{i}.md": f"# N{i}\n\nretry retry retry limit {i}.\n" for i in range(30)}
    files["keep/one.md"] = "# Keep\n\nThe retry limit is five.\n"
    kb = lexical_home.kb()
    kb.add([_write(tmp_path / "c", files)])
    result = kb.search("retry limit", top_k=3, filters=SearchFilters(path_prefixes=("keep/",)))
    assert [h.path for h in result.hits] == ["keep/one.md"]


def test_model_disabled_gives_lexical_results_and_says_so(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as home:
        index = KBIndex(
            home.store,
            "default",
            tmp_path / "idx",
            loader=lambda: Unavailable("dense", "model package missing", "pip ..."),
        )
        home._indexes["default"] = index
        home.kb().add([_write(tmp_path / "c", {"ports.md": PUBLIC})])
        result = search(index, "which port does the API use", mode="hybrid")
        assert result.outcome == "ok" and result.hits[0].path == "ports.md"
        vector = next(d for d in result.diagnostics if d.route == "vector")
        assert vector.status == "unavailable" and "model package missing" in vector.reason
        assert "vector" not in result.routes and "lexical" in result.routes
        assert index.vectors is None  # never faked


@pytest.mark.model
def test_fingerprint_change_rebuilds_and_unchanged_content_reuses(tmp_path: Path) -> None:
    corpus = _write(
        tmp_path / "c",
        {
            "a.md": "# A\n\nAlpha paragraph about cursors.\n\nSecond alpha paragraph.\n",
            "b.md": "# B\n\nBeta paragraph about leases.\n",
        },
    )
    with Home.open(tmp_path / "home") as home:
        index = KBIndex(home.store, "default", tmp_path / "idx", loader=default_loader)
        home._indexes["default"] = index
        home.kb().add([corpus])
        first = index.sync()
        assert index.vectors is not None and len(index.vectors) == len(index.chunks)
        (corpus / "a.md").write_text(
            "# A\n\nAlpha paragraph about cursors.\n\nSecond alpha paragraph.\n\n## More\n\nNew.\n",
            encoding="utf-8",
        )
        home.store.begin_batch("default")
        home.kb()._ingest_one(_walk(corpus / "a.md")[0])
        home.store.end_batch("default")
        changed = index.sync()
        assert changed.reused >= 1  # the unchanged paragraph's text keeps its vector
        assert changed.encoded == 1  # only the new section is encoded
        other = load_minilm(MiniLMSettings(passage_prefix="passage: "))
        assert not isinstance(other, Unavailable)
        index2 = KBIndex(home.store, "default", tmp_path / "idx", loader=lambda: other)
        rebuilt = index2.sync()
        assert rebuilt.encoded == len(index2.chunks) and rebuilt.reused == 0
        assert index2.vectors is not None and index2.vectors.fingerprint == other.fingerprint
        del first


def _walk(path: Path) -> list[SourceFile | WalkProblem]:
    return list(walk(path))


def test_chinese_query_finds_its_paragraph(lexical_home: Home, tmp_path: Path) -> None:
    doc = (
        "# 运维手册\n\n## 指标异常\n\n排查指标异常时，先确认采集端是否正常，再检查告警阈值。\n\n"
        "## 发布流程\n\n发布前需要完成代码评审和灰度验证。\n\n"
        "## 数据备份\n\n每天凌晨进行全量备份。\n"
    )
    kb = lexical_home.kb()
    kb.add([_write(tmp_path / "c", {"ops.md": doc})])
    result = kb.search("怎么排查指标异常", mode="lexical")
    assert result.outcome == "ok"
    assert "排查指标异常" in result.hits[0].excerpt
    assert result.hits[0].heading_path[-1] == "指标异常"


def test_identifier_route_finds_the_clause(lexical_home: Home, tmp_path: Path) -> None:
    reg = (
        "# Part 1002\n\n## § 1002.4 General rules.\n\n(a) Discrimination. A creditor shall not "
        "discriminate.\n\n(b) Discouragement. A creditor shall not make statements.\n\n"
        "(1) Oral statements are included.\n\n## § 1002.5 Rules concerning requests.\n\n"
        "(a) General rules. Requests for information are allowed.\n"
    )
    kb = lexical_home.kb()
    kb.add([_write(tmp_path / "c", {"reg-b.md": reg})])
    result = kb.search("What does 12 CFR 1002.4(b) require?", top_k=2)
    ident = next(d for d in result.diagnostics if d.route == "identifier")
    assert ident.status == "ok" and ident.candidates >= 1
    assert result.criterion == "identifier"
    assert "Discouragement" in result.hits[0].excerpt


def test_out_of_corpus_query_abstains(lexical_home: Home, tmp_path: Path) -> None:
    kb = lexical_home.kb()
    kb.add([_write(tmp_path / "c", {"ports.md": PUBLIC})])
    result = kb.search("zebra migration patterns in kenya")
    assert result.outcome == "insufficient_evidence" and not result.hits
    assert result.abstention is not None and result.abstention.criterion == "no_candidates"


OPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "replace", "delete"]), st.integers(0, 4), st.integers(0, 10_000)
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_deleted_or_replaced_content_never_comes_back(
    ops: list[tuple[str, int, int]],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("prop")
    corpus = root / "c"
    corpus.mkdir()
    live: dict[int, str] = {}
    dead: set[str] = set()
    with Home.open(root / "home") as home:
        kb = home.kb()
        for op, slot, token in ops:
            name = f"d{slot}.md"
            marker = f"zq{slot}n{token}x"
            if op == "delete":
                if slot in live:
                    kb.delete(name)
                    (corpus / name).unlink()
                    dead.add(live.pop(slot))
                continue
            (corpus / name).write_text(f"# D\n\nshared word {marker}\n", encoding="utf-8")
            kb.add([corpus / name])
            if slot in live and live[slot] != marker:
                dead.add(live[slot])
            live[slot] = marker
            dead.discard(marker)
            for m in dead:  # replaced or deleted text never comes back
                gone = kb.search(m, mode="lexical")
                assert all(m not in h.excerpt for h in gone.hits)
            # Every marker ever written is searched; only live ones may come back.
            for s, m in list(live.items()):
                hits = kb.search(m, mode="lexical").hits
                assert hits and hits[0].path == f"d{s}.md"
        result = kb.search("shared word", mode="lexical", top_k=50)
        assert sorted(h.path for h in result.hits) == sorted(f"d{s}.md" for s in live)
        for h in result.hits:
            assert live[int(h.path[1:-3])] in h.excerpt
