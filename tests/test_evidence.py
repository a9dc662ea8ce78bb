"""Acceptance tests of the evidence stage on a real SQLite home (dense route off)."""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citewise.errors import CorruptContent
from citewise.evidence import Budget, EvidencePack, assemble
from citewise.evidence.models import ROLE_PRIORITY, TRUNCATION_MARKER, Fragment
from citewise.kb import Home, KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures" / "evidence"


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES, corpus)
    home = Home.open(tmp_path / "home")
    base = home.kb()
    assert base.add([corpus]).ok
    return base


def source(kb: KnowledgeBase, f: Fragment) -> str:
    return kb.store.get_document_text(kb.name, f.doc_id, f.version_id)


def check_exact(kb: KnowledgeBase, pack: EvidencePack) -> None:
    for f in pack.fragments:
        src = source(kb, f)
        if f.truncated:
            assert f.head_end is not None and f.tail_start is not None
            head, tail = src[f.char_start : f.head_end], src[f.tail_start : f.char_end]
            assert f.text == head + TRUNCATION_MARKER + tail
        else:
            assert f.text == src[f.char_start : f.char_end]
        if ":" in f.citation_id:  # a span id resolves to the same range
            r = kb.resolve(f.citation_id)
            assert (r.char_start, r.char_end) == (f.char_start, f.char_end)
            assert (r.line_start, r.line_end) == (f.line_start, f.line_end)


def nodes_by_text(kb: KnowledgeBase, path: str, needle: str) -> list[int]:
    return [i for i, n in enumerate(kb.nodes(path)) if needle in n.text and n.kind == "paragraph"]


def test_hit_in_middle_of_section(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "zebracorn ledger signing keys")
    check_exact(kb, pack)
    assert pack.direct and pack.direct[0].path == "guide.md"
    d = pack.direct[0]
    assert d.text == "The zebracorn ledger rotates its signing keys every ninety days."
    assert d.citation_id.endswith(f":{d.char_start}-{d.char_end}")
    roles = {f.role for f in pack.augmentation}
    assert "parent_context" in roles and "adjacent_context" in roles
    parent = next(f for f in pack.augmentation if f.role == "parent_context")
    assert parent.text.startswith("## Key management")
    # neighbours: inside the section, at most 5 paragraphs either side of the target
    paras = [n for n in kb.nodes("guide.md") if n.heading_path[-1:] == ("Key management",)]
    paras = [n for n in paras if n.kind == "paragraph"]
    target = next(i for i, n in enumerate(paras) if "zebracorn" in n.text)
    allowed = {n.id for n in paras[max(0, target - 5) : target + 6]}
    adjacent = [f for f in pack.augmentation if f.role == "adjacent_context"]
    assert adjacent
    for f in adjacent:
        assert f.heading_path[-1] == "Key management"
        assert set(f.node_ids) <= allowed
    assert paras[-1].id not in {i for f in pack.fragments for i in f.node_ids}


def test_repeated_snippet_resolves_to_the_hit(kb: KnowledgeBase) -> None:
    snippet = "The retry limit is five attempts."
    text = kb.store.get_document_text(kb.name, kb.document("guide.md").doc_id, 1)
    first = text.index(snippet)
    second = text.index(snippet, first + 1)
    result = kb.search("quokka upload retry limit five attempts", top_k=10, mode="lexical")
    quokka = [h for h in result.hits if "Quokka uploads send" in h.excerpt]
    assert quokka
    only = dataclasses.replace(result, hits=tuple(quokka[:1]))
    pack = assemble(
        kb.context, "quokka upload retry limit five attempts", search_result=only, rse=False
    )
    check_exact(kb, pack)
    spans = [f for f in pack.direct if snippet in f.text]
    assert spans
    for f in spans:
        offset = f.char_start + f.text.index(snippet)
        assert offset == second != first
        assert kb.resolve(f.citation_id).line_start == text.count("\n", 0, second) + 1


def test_overlapping_windows_merge(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "quasar replicas nebula snapshots")
    check_exact(kb, pack)
    assert len([f for f in pack.direct if f.path == "guide.md"]) >= 2
    frags = [f for f in pack.fragments if f.path == "guide.md"]
    ranges = sorted((f.char_start, f.char_end) for f in frags)
    for (_, e1), (s2, _) in itertools.pairwise(ranges):
        assert e1 <= s2, "fragments of one document never overlap"
    context_ids = [i for f in frags if f.role != "direct_support" for i in f.node_ids]
    assert len(context_ids) == len(set(context_ids))
    # merged: some adjacent fragment spans several paragraphs
    assert any(len(f.node_ids) > 1 for f in frags if f.role == "adjacent_context")


def test_code_and_mermaid_never_partial(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "flamingo compaction stage")
    check_exact(kb, pack)
    blocks = [n for n in kb.nodes("blocks.md") if n.kind in ("code", "mermaid")]
    for f in pack.fragments:
        for b in blocks:
            if f.char_start < b.char_end and b.char_start < f.char_end:
                assert f.char_start <= b.char_start and b.char_end <= f.char_end
                assert not f.truncated
    big = next(b for b in blocks if b.kind == "code")
    assert any(
        d.action == "drop" and d.citation_id.startswith(big.id) and "block_over_cap" in d.reason
        for d in pack.decisions
    )
    mermaid = next(b for b in blocks if b.kind == "mermaid")
    assert any(mermaid.id in f.node_ids for f in pack.fragments)


def test_oversized_parent_is_middle_truncated(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "pelican threshold megabytes")
    check_exact(kb, pack)
    assert "pelican" in pack.direct[0].text
    parent = next(f for f in pack.augmentation if f.role == "parent_context")
    assert parent.truncated and parent.text.startswith("## Very long section")
    assert TRUNCATION_MARKER in parent.text
    assert parent.tokens <= pack.budget.fragment_tokens
    assert any(
        d.action == "truncate" and d.citation_id == parent.citation_id for d in pack.decisions
    )


def test_drops_follow_role_priority(kb: KnowledgeBase) -> None:
    tight = Budget(max_fragments=4, fragment_chars=1400, total_chars=5600)
    pack = assemble(kb.context, "quasar replicas nebula snapshots zebracorn", budget=tight)
    check_exact(kb, pack)
    assert len(pack.fragments) == 4
    worst_kept = max(ROLE_PRIORITY[f.role] for f in pack.fragments)
    dropped = [d for d in pack.decisions if d.action == "drop" and "max_fragments" in d.reason]
    assert len(dropped) >= 3
    assert all(ROLE_PRIORITY[d.role] >= worst_kept for d in dropped)
    assert {d.role for d in dropped} >= {"adjacent_context"}
    assert pack.direct, "direct support is dropped last"
    included = {d.citation_id for d in pack.decisions if d.action in ("include", "truncate")}
    assert included == {f.citation_id for f in pack.fragments}


def test_no_document_takes_the_whole_budget(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "zebracorn ledger signing keys rotation")
    for tokens in pack.budget_use.per_doc.values():
        assert tokens <= pack.budget.doc_tokens < pack.budget.total_tokens


def test_unreadable_source_degrades(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "zebracorn ledger signing keys"
    result = kb.search(query)

    def broken(*args: object) -> str:
        raise CorruptContent("Stored text does not match its sha256.")

    monkeypatch.setattr(kb.store, "get_document_text", broken)
    pack = assemble(kb.context, query, search_result=result)
    assert pack.direct
    d = pack.direct[0]
    assert d.text == result.hits[0].excerpt and d.citation_id == result.hits[0].chunk_id
    assert d.reason == "source_window_unavailable"
    lims = [x for x in pack.limitations if x.kind == "source_window_unavailable"]
    assert lims and "CORRUPT_CONTENT" in lims[0].reason and lims[0].path == "guide.md"
    assert not pack.augmentation


def test_chinese_sentences_and_intent(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "为什么游标会过期")
    check_exact(kb, pack)
    assert pack.intent == "causal" and pack.profile == "causal"
    # the sentence holding both words of the subject (游标, 过期) is in the direct evidence
    assert any("游标超过十四天未使用就会过期！" in f.text for f in pack.direct)


def _replay_in_subprocess(home: Path, query: str) -> str:
    code = (
        "import sys; from citewise.kb import Home; from citewise.evidence import assemble; "
        f"h = Home.open({str(home)!r}); print(assemble(h.kb().context, sys.argv[1]).replay_id)"
    )
    env = {"CITEWISE_DENSE": "off", "PATH": "", "PYTHONHASHSEED": "123"}
    out = subprocess.run(
        [sys.executable, "-c", code, query], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.subprocess
def test_replay_id_stable_and_sensitive(kb: KnowledgeBase, tmp_path: Path) -> None:
    query = "quasar replicas nebula snapshots"
    a = assemble(kb.context, query)
    b = assemble(kb.context, "  Quasar replicas   nebula snapshots ")
    assert a.replay_id == b.replay_id
    assert _replay_in_subprocess(tmp_path / "home", query) == a.replay_id
    assert assemble(kb.context, query, budget=Budget(5, 1400, 5600)).replay_id != a.replay_id
    assert assemble(kb.context, query, rse=False).replay_id != a.replay_id
    changed = tmp_path / "corpus" / "guide.md"
    changed.write_text(
        changed.read_text().replace("kept for a week", "kept for a month"), encoding="utf-8"
    )
    assert kb.add([tmp_path / "corpus"]).ok
    assert assemble(kb.context, query).replay_id != a.replay_id


def test_insufficient_evidence(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, "xylophone marmalade")
    assert pack.outcome == "insufficient_evidence" and not pack.fragments
    assert pack.limitations[0].kind == "insufficient_evidence"


def test_json_shape(kb: KnowledgeBase) -> None:
    data = assemble(kb.context, "zebracorn ledger").to_json()
    assert set(data) >= {
        "query",
        "direct_evidence",
        "document_augmentation",
        "graph_neighbor_evidence",
        "conflicts_and_limitations",
        "citation_map",
        "budget",
        "decisions",
        "replay_id",
    }
    frag = data["direct_evidence"][0]
    assert set(frag) >= {
        "role",
        "doc_id",
        "path",
        "revision",
        "node_ids",
        "line_start",
        "line_end",
        "char_start",
        "char_end",
        "heading_path",
        "text",
        "tokens",
        "truncated",
        "citation_id",
    }
    assert frag["citation_id"] in data["citation_map"]
