"""Uploads are parsed outside the service's exclusive write lock.

A slow or hostile upload must not stall searches: parsing (bounded by the parse limits)
runs while readers may still hold the lock, and only the store write and the index
publish take it alone. Checked structurally: the lock state is recorded at the moment
the parser and the store are called.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import citewise.facade.service as service_module
import citewise.ingest.parse as parse_module
import citewise.kb as kb_module
from citewise.facade.caller import LOCAL, Caller
from citewise.facade.service import Service, Upload
from citewise.kb import Home
from citewise.store.sqlite import SQLiteStore


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Service]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    home = Home.open(tmp_path / "home")
    yield Service(home)
    home.close()


def test_uploads_are_parsed_without_the_write_lock(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, list[bool]] = {"parse": [], "store": []}
    parse = kb_module.parse_document
    ingest = SQLiteStore.ingest_document

    def parse_spy(*args: Any, **kw: Any) -> Any:
        seen["parse"].append(service.lock.writing)
        return parse(*args, **kw)

    def ingest_spy(self: SQLiteStore, *args: Any, **kw: Any) -> Any:
        seen["store"].append(service.lock.writing)
        return ingest(self, *args, **kw)

    monkeypatch.setattr(kb_module, "parse_document", parse_spy)
    monkeypatch.setattr(SQLiteStore, "ingest_document", ingest_spy)
    files = [
        Upload("a.md", io.BytesIO(b"# A\n\nAlpha text.\n")),
        Upload("b.html", io.BytesIO(b"<h1>B</h1><p>Beta text.</p>")),
    ]
    report = service.upload(LOCAL, "default", files)
    assert [f.status for f in report.files] == ["added", "added"]
    assert seen["parse"] == [False, False]
    assert seen["store"] == [True, True]


def test_a_search_runs_while_an_upload_is_being_parsed(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.upload(LOCAL, "default", [Upload("old.md", io.BytesIO(b"# Old\n\nGamma text.\n"))])
    parsing, release = threading.Event(), threading.Event()
    parse = kb_module.parse_document

    def slow_parse(*args: Any, **kw: Any) -> Any:
        parsing.set()
        assert release.wait(60), "the test never released the parser"
        return parse(*args, **kw)

    monkeypatch.setattr(kb_module, "parse_document", slow_parse)
    result: dict[str, Any] = {}

    def upload() -> None:
        files = [Upload("new.md", io.BytesIO(b"# New\n\nDelta text.\n"))]
        result["report"] = service.upload(LOCAL, "default", files)

    worker = threading.Thread(target=upload)
    worker.start()
    try:
        assert parsing.wait(60)
        # the upload is mid-parse: a search gets the shared lock and answers from the old state
        hits = service.search(LOCAL, "default", "gamma").hits
        assert [h.path for h in hits] == ["old.md"]
    finally:
        release.set()
        worker.join(60)
    assert result["report"].files[0].status == "added"
    assert service.search(LOCAL, "default", "delta").hits[0].path == "new.md"


def test_access_checks_on_stored_versions_read_front_matter_only(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = b"---\ntitle: T\naccess: [alice]\ntags: a, b\n---\n# T\n\n" + b"Para.\n\n" * 50
    service.upload(LOCAL, "default", [Upload("t.md", io.BytesIO(body))])
    service._version_meta.clear()
    parsed: list[str] = []
    parse = parse_module.parse_document

    def spy(*args: Any, **kw: Any) -> Any:
        parsed.append(kw.get("name", ""))
        return parse(*args, **kw)

    monkeypatch.setattr(parse_module, "parse_document", spy)
    monkeypatch.setattr(kb_module, "parse_document", spy)
    monkeypatch.setattr(service_module, "parse_document", spy, raising=False)
    alice = Caller(name="a", principal="alice", kbs=frozenset({"*"}))
    assert [v.version_id for v in service.versions(alice, "default", "t.md")] == [1]
    assert parsed == []  # the body (and its parse limits) is not touched by a read


def test_a_revert_is_parsed_without_the_write_lock(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text in (b"# R\n\nFirst text.\n", b"# R\n\nSecond text.\n"):
        service.upload(LOCAL, "default", [Upload("r.md", io.BytesIO(text))])
    seen: list[bool] = []
    parse = parse_module.parse_document

    def spy(*args: Any, **kw: Any) -> Any:
        seen.append(service.lock.writing)
        return parse(*args, **kw)

    for module in (parse_module, kb_module, service_module):
        monkeypatch.setattr(module, "parse_document", spy, raising=False)
    outcome = service.revert(LOCAL, "default", "r.md", 1)
    assert outcome.action == "reverted"
    assert seen and not any(seen)
    assert service.search(LOCAL, "default", "first").hits[0].path == "r.md"
