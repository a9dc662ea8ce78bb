"""Group commit (issue 17): several files per transaction with the one-file promise kept.

Each file is whole or absent; a file whose store step fails is rolled back alone and
reported, the rest of its group commits; a crash inside a group loses that group only and a
re-run completes it.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.core.records import ParsedDocument
from citewise.errors import StoreError
from citewise.kb import Home, PreparedFile, file_groups
from citewise.store import adhash
from citewise.store.sqlite import SQLiteStore
from citewise.testing.docs import make_doc


def _failing_on(store: SQLiteStore, bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make storing ``bad`` fail after its content (nodes, chunks) was written."""
    real = store._store_content

    def content(c: sqlite3.Connection, doc_id: str, sha: str, parsed: ParsedDocument) -> int:
        got = real(c, doc_id, sha, parsed)
        if parsed.nodes[1].text.startswith(bad):
            raise sqlite3.IntegrityError(f"injected failure for {bad}")
        return got

    monkeypatch.setattr(store, "_store_content", content)


def test_a_failing_change_is_rolled_back_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    _failing_on(store, "Bad", monkeypatch)
    store.begin_batch("default")
    with store.group():
        store.ingest_document("default", "a.md", *make_doc("default", "a.md", ["Alpha.", "A2."]))
        with pytest.raises(StoreError, match="rolled back"):
            store.ingest_document("default", "b.md", *make_doc("default", "b.md", ["Bad.", "B."]))
        store.ingest_document("default", "c.md", *make_doc("default", "c.md", ["Gamma.", "C."]))
        # Reads inside the group see its changes.
        assert [d.path for d in store.list_documents("default")] == ["a.md", "c.md"]
    rev = store.end_batch("default")
    assert [d.path for d in store.list_documents("default")] == ["a.md", "c.md"]
    assert rev is not None and rev.document_count == 2
    assert rev.hash == adhash.multiset_hash(
        (d.path, d.content_sha256) for d in store.list_documents("default")
    )
    assert store.stats("default")["stored_nodes"] == 6  # no orphan nodes of b.md
    assert store.integrity_check() == []
    store.close()


def test_a_group_that_raises_commits_nothing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    before = store.generation("default")
    with pytest.raises(KeyboardInterrupt), store.group():
        store.ingest_document("default", "a.md", *make_doc("default", "a.md", ["Alpha.", "A."]))
        raise KeyboardInterrupt
    assert store.list_documents("default") == []
    assert store.generation("default") == before
    store.close()


def test_the_generation_counter_moves_with_every_change(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    seen = {store.generation("default")}
    with store.group():
        store.ingest_document("default", "a.md", *make_doc("default", "a.md", ["One.", "1."]))
        store.ingest_document("default", "b.md", *make_doc("default", "b.md", ["Two.", "2."]))
    seen.add(store.generation("default"))
    store.ingest_document("default", "a.md", *make_doc("default", "a.md", ["Uno.", "1."]))
    seen.add(store.generation("default"))
    store.delete_document("default", "b.md")
    seen.add(store.generation("default"))
    assert len(seen) == 4
    store.close()
    reopened = SQLiteStore(tmp_path / "citewise.db")
    assert reopened.generation("default") in seen
    reopened.close()


def test_add_reports_the_bad_file_and_keeps_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(5):
        word = "Bad" if i == 2 else "Fine"
        (corpus / f"doc{i}.md").write_text(f"# Doc {i}\n\n{word} text number {i}.\n", "utf-8")
    with Home.open(tmp_path / "home") as home:
        store = home.store
        assert isinstance(store, SQLiteStore)
        real = store._store_content

        def content(c: sqlite3.Connection, doc_id: str, sha: str, parsed: ParsedDocument) -> int:
            got = real(c, doc_id, sha, parsed)
            if "Bad text" in parsed.nodes[0].text:
                raise sqlite3.IntegrityError("injected")
            return got

        monkeypatch.setattr(store, "_store_content", content)
        report = home.kb().add([corpus])
        status = {f.path: f.status for f in report.files}
        assert status == {
            "doc0.md": "added",
            "doc1.md": "added",
            "doc2.md": "failed",
            "doc3.md": "added",
            "doc4.md": "added",
        }
        assert [d.path for d in home.kb().documents()] == [
            "doc0.md",
            "doc1.md",
            "doc3.md",
            "doc4.md",
        ]
        assert store.integrity_check() == []
        assert [h.path for h in home.kb().search("Fine text number 3").hits][:1] == ["doc3.md"]


def test_file_groups_close_on_count_and_bytes() -> None:
    def files(*sizes: int) -> Iterator[PreparedFile]:
        return iter(PreparedFile(f"f{i}", None, b"x" * n) for i, n in enumerate(sizes))

    assert [len(g) for g in file_groups(files(1, 1, 1, 1, 1), 2, 100)] == [2, 2, 1]
    assert [len(g) for g in file_groups(files(1, 200, 1, 1), 8, 100)] == [2, 2]
    assert list(file_groups(files(), 8, 100)) == []


def _corpus(root: Path, n: int) -> None:
    root.mkdir()
    for i in range(n):
        (root / f"doc{i:03d}.md").write_text(
            f"# Doc {i}\n\nParagraph {i} about replicas and leases.\n\n## More\n\nLine {i}.\n",
            "utf-8",
        )


def _add(corpus: Path, home: Path, crash: str | None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, CITEWISE_DENSE="off")
    if crash:
        env["CITEWISE_CRASH_AT"] = crash
    code = "from citewise.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "add", str(corpus), "--home", str(home)],
        capture_output=True,
        env=env,
        timeout=300,
    )


@pytest.mark.slow
@pytest.mark.subprocess
def test_sigkill_mid_group_loses_only_that_group(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    _corpus(corpus, 80)
    home = tmp_path / "home"
    group = 32  # IngestConfig.group_files
    # Killed after the 45th file was stored: the second group (files 33-64) is open.
    proc = _add(corpus, home, f"stored:{group + 13}")
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    db = home / "citewise.db"
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    with Home.open(home) as h:
        docs = h.kb().documents()
        assert [d.path for d in docs] == [f"doc{i:03d}.md" for i in range(group)]
        assert all(d.node_count > 0 and d.chunk_count > 0 for d in docs)
        assert h.verify() == []
    assert _add(corpus, home, None).returncode == 0  # the re-run completes the rest
    with Home.open(tmp_path / "clean") as clean:
        assert clean.kb().add([corpus]).ok
        expected = clean.kb().revisions()[-1]
    with Home.open(home) as h:
        got = h.kb().revisions()[-1]
        assert h.verify() == []
        assert (got.hash, got.document_count) == (expected.hash, expected.document_count)
        assert got.document_count == 80
