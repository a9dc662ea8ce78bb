"""Answer-unit vectors encoded when the index is built (issue 17, dense on): a new server
reads them from the store instead of encoding, a changed document's units are encoded at its
sync, and each kept vector is the very bytes the ask path would encode."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from citewise.answer import relevance
from citewise.answer.ranking import version_dense_inputs
from citewise.index import manager
from citewise.index.embedder import (
    PROBE_RELATED,
    PROBE_SAME,
    PROBE_UNRELATED,
    Embedder,
    Kind,
    Unavailable,
)
from citewise.index.manager import default_loader
from citewise.index.unit_vectors import UnitReport, unit_key, unit_namespace, version_unit_texts
from citewise.index.vectors import F32
from citewise.kb import KnowledgeBase
from tests.backends import Backend

pytestmark = pytest.mark.model

FIXTURES = Path(__file__).parent / "fixtures" / "answers"
QUESTION = "After how many minutes without activity are users signed out?"
OLD = "Users are signed out automatically after 30 minutes without any activity."
NEW = "Users are signed out automatically after 45 minutes without any activity."


def _encoder() -> Embedder:
    emb = default_loader()
    if isinstance(emb, Unavailable):
        pytest.skip(f"dense encoder unavailable: {emb.reason}")
    return emb


_PROBE = frozenset({PROBE_SAME, PROBE_RELATED, PROBE_UNRELATED})


def _count_passages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Texts the process's encoder is asked to encode as passages from now on (its health
    probe's aside: a new index probes the encoder it loads)."""
    emb = _encoder()
    real = emb.encode
    seen: list[str] = []

    def encode(texts: Sequence[str], kind: Kind = "passage") -> F32:
        if kind == "passage":
            seen.extend(t for t in texts if t not in _PROBE)
        return real(texts, kind)

    monkeypatch.setattr(emb, "encode", encode)
    return seen


def _corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    relevance._CACHE.clear()  # no vector cached by an earlier test of this process
    shutil.copytree(FIXTURES, tmp_path / "corpus")
    return tmp_path / "corpus"


def _texts(kb: KnowledgeBase, path: str) -> list[str]:
    version = kb.document(path).version_id
    return version_unit_texts(kb.store, kb.name, path, version, version_dense_inputs)


def test_a_new_server_reads_unit_vectors_instead_of_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend
) -> None:
    corpus = _corpus(tmp_path, monkeypatch)
    with backend.open(tmp_path / "home") as home:
        kb = home.kb()
        encoded = _count_passages(monkeypatch)
        assert kb.add([corpus]).ok
        units = _texts(kb, "sessions.md")
        assert OLD in units and set(units) <= set(encoded)  # encoded by the index build
        first = kb.ask(QUESTION)
        assert "30 minutes" in first.answer
    monkeypatch.undo()
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    relevance._CACHE.clear()  # a new server process: nothing cached in memory
    encoded = _count_passages(monkeypatch)
    with backend.open(tmp_path / "home") as home:
        again = home.kb().ask(QUESTION)
    assert encoded == []  # every unit scored by meaning came from the store
    assert again.answer == first.answer
    assert again.citations == first.citations
    assert again.replay_id == first.replay_id


def test_kept_unit_vectors_are_the_bytes_the_ask_path_encodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path, monkeypatch)
    emb = _encoder()
    with Backend("sqlite").open(tmp_path / "home") as home:
        kb = home.kb()
        assert kb.add([corpus]).ok
        texts = [t for d in kb.documents() for t in _texts(kb, d.path)]
        kept = kb.store.get_vectors(unit_namespace(emb.fingerprint), [unit_key(t) for t in texts])
        assert len(kept) == len({unit_key(t) for t in texts}) > 10
        # the ask path encodes its units as one list: each vector is its text's alone
        fresh = emb.encode(texts[::-1], kind="passage")[::-1]
        for text, vec in zip(texts, fresh, strict=True):
            assert kept[unit_key(text)] == vec.astype("<f4").tobytes(), text
        # and chunk vectors live under the encoder's own fingerprint, never mixed
        assert not kb.store.get_vectors(emb.fingerprint, [unit_key(t) for t in texts])


def test_a_changed_documents_units_are_encoded_and_old_ones_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend
) -> None:
    corpus = _corpus(tmp_path, monkeypatch)
    emb = _encoder()
    with backend.open(tmp_path / "home") as home:
        kb = home.kb()
        assert kb.add([corpus]).ok
        before = kb.ask(QUESTION)
        assert "30 minutes" in before.answer
        page = corpus / "sessions.md"
        page.write_text(page.read_text("utf-8").replace(OLD, NEW), "utf-8")
        encoded = _count_passages(monkeypatch)
        assert kb.add([page]).ok
        units = _texts(kb, "sessions.md")
        assert NEW in units and OLD not in units
        assert NEW in encoded and OLD not in encoded  # the new version's units, at its sync
        del encoded[:]
        relevance._CACHE.clear()
        after = kb.ask(QUESTION)
        assert encoded == []  # read from the store
        assert "45 minutes" in after.answer and "30 minutes" not in after.answer
        assert after.citations[0].version_id == kb.document("sessions.md").version_id
        # the new sentence was scored by its own vector, its predecessor's never read
        fp = emb.fingerprint
        fresh = emb.encode([NEW], kind="passage")[0]
        assert relevance._CACHE[(fp, unit_key(NEW))].tobytes() == fresh.tobytes()
        assert (fp, unit_key(OLD)) not in relevance._CACHE


def test_an_index_built_without_unit_vectors_gets_them_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index cache from before unit vectors (or from a retrieval-only build) has every
    version's units encoded at the next sync, once; a server whose index directory is gone
    finds them all in the store."""
    corpus = _corpus(tmp_path, monkeypatch)
    with Backend("sqlite").open(tmp_path / "home") as home:
        kb = home.kb()
        home.index(kb.name).unit_texts = None  # as built by an older version
        assert kb.add([corpus]).ok
        units = {t for d in kb.documents() for t in _texts(kb, d.path)}
    encoded = _count_passages(monkeypatch)
    with Backend("sqlite").open(tmp_path / "home") as home:
        report = home.index("default").sync()
        assert report.units == len(units) and set(encoded) == units
    del encoded[:]
    cut: list[int] = []
    real = manager.encode_version_units

    def spy(*args: Any, **kw: Any) -> UnitReport:
        cut.append(len(args[3]))
        return real(*args, **kw)

    monkeypatch.setattr(manager, "encode_version_units", spy)
    with Backend("sqlite").open(tmp_path / "home") as home:
        assert home.index("default").sync().units == 0
    assert cut == [0]  # no version cut again: the index directory records they were done
    shutil.rmtree(tmp_path / "home" / "index")
    with Backend("sqlite").open(tmp_path / "home") as home:
        report = home.index("default").sync()
        assert (report.encoded, report.units) == (0, 0)  # chunks and units from the store
    assert encoded == []
