"""Concurrent requests against a real server on 127.0.0.1 with a real SQLite home.

Reads share the service's lock and run together; a write is alone. A read issued while a
write is half done, or while another process changes the store, returns the old or the new
state, never a mix and never an error. No timing assertions: a test hook holds the write
open with an event, and the lock's ``waiting`` counter says when readers are queued.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.facade.service import Service
from citewise.kb import Home
from citewise.server.app import create_app
from tests._server import serving
from tests.conftest import run_cli

GUARD = 120.0
CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
QUESTIONS = (
    "what happens when a sync cursor expires?",
    "How do I upgrade a Harbor node to 2.4.1?",
    "What is the default retry limit?",
    "how long is data retained?",
    "clause 3.1",
)
# New documents that change what the probe question finds.
PROBE = "how are orbital widgets calibrated?"
NEW_DOCS = {
    f"widgets/w{i}.md": (
        f"# Orbital widget calibration {i}\n\nOrbital widgets are calibrated every {i + 2} "
        f"days with the widget calibration tool.\n"
    ).encode()
    for i in range(3)
}


# The server's home and CLI subprocesses run without the dense route (for speed)
pytestmark = pytest.mark.usefixtures("dense_off")


class Served:
    def __init__(self, url: str, home: Home, service: Service, home_dir: Path) -> None:
        self.url, self.home, self.service, self.home_dir = url, home, service, home_dir


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    home_dir = tmp_path / "home"
    home = Home.open(home_dir)
    try:
        app = create_app(home)
        with serving(app) as url:
            with httpx.Client(base_url=url, timeout=GUARD) as c:
                files = [
                    ("files", (p.relative_to(CORPUS).as_posix(), p.read_bytes(), "text/markdown"))
                    for p in sorted(CORPUS.rglob("*.md"))
                ]
                r = c.post("/kb/default/documents", files=files)
                assert r.status_code in (201, 207), r.text
            yield Served(url, home, app.state.service, home_dir)
    finally:
        home.close()


# -- what a response says, without per-request noise (timings, trace ids) -------------------
def _search(c: httpx.Client, q: str) -> str:
    r = c.post("/kb/default/search", json={"query": q})
    assert r.status_code == 200, r.text
    body = r.json()
    for d in body["diagnostics"]:
        d.pop("ms")
    return json.dumps(body, sort_keys=True)


def _ask(c: httpx.Client, q: str) -> str:
    r = c.post("/kb/default/ask", json={"question": q})
    assert r.status_code == 200, r.text
    body = r.json()
    body.pop("trace_id")
    return json.dumps(body, sort_keys=True)


def _paths(c: httpx.Client) -> str:
    r = c.get("/kb/default/documents")
    assert r.status_code == 200, r.text
    return json.dumps(sorted(d["path"] for d in r.json()["documents"]))


def _graph(c: httpx.Client) -> str:
    r = c.get("/kb/default/graph/widgets/w1.md")
    return str(r.status_code)  # 404 before the upload, 200 after: never anything else


READS: dict[str, Callable[[httpx.Client], str]] = {
    "search": lambda c: _search(c, PROBE),
    "ask": lambda c: _ask(c, PROBE),
    "documents": _paths,
    "graph": _graph,
}


def _snapshot(url: str) -> dict[str, str]:
    with httpx.Client(base_url=url, timeout=GUARD) as c:
        return {name: read(c) for name, read in READS.items()}


def _until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + GUARD
    while not check():
        assert time.monotonic() < deadline, "the expected state was never reached"
        time.sleep(0.01)


def _upload(url: str) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=GUARD) as c:
        files = [("files", (n, data, "text/markdown")) for n, data in NEW_DOCS.items()]
        return c.post("/kb/default/documents", files=files)


def test_reads_during_a_held_upload_see_the_old_or_the_new_state(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _snapshot(served.url)
    assert json.loads(old["documents"]) and old["graph"] == "404"
    store = served.home.store
    # One file per transaction (no group commit), so the store really is half updated
    # while the upload holds the lock: what the readers must not see.
    settings = served.home.settings
    one = dataclasses.replace(settings.ingest, group_files=1)
    monkeypatch.setattr(served.home, "settings", dataclasses.replace(settings, ingest=one))
    real_ingest = store.ingest_document
    first_done, release = threading.Event(), threading.Event()

    def slow_ingest(*args: Any, **kwargs: Any) -> Any:
        out = real_ingest(*args, **kwargs)
        if not first_done.is_set():  # one file committed, the others not yet
            first_done.set()
            assert release.wait(GUARD)
        return out

    monkeypatch.setattr(store, "ingest_document", slow_ingest)
    n_readers = 2 * len(READS)
    with ThreadPoolExecutor(n_readers + 1) as pool:
        upload = pool.submit(_upload, served.url)
        assert first_done.wait(GUARD)
        # The store is half updated now: one of the three new documents is in it.
        held = {d.path for d in store.list_documents("default") if d.path.startswith("widgets/")}
        assert len(held) == 1
        assert served.service.lock.writing

        def read(name: str) -> tuple[str, str]:
            with httpx.Client(base_url=served.url, timeout=GUARD) as c:
                return name, READS[name](c)

        reads = [pool.submit(read, name) for name in list(READS) * 2]
        _until(lambda: served.service.lock.waiting[0] == n_readers)  # all queued behind it
        release.set()
        r = upload.result(GUARD)
        assert r.status_code == 201, r.text
        results = [f.result(GUARD) for f in reads]
    new = _snapshot(served.url)
    assert new != old and json.loads(new["documents"]) == sorted(
        json.loads(old["documents"]) + list(NEW_DOCS)
    )
    for name, got in results:
        assert got in (old[name], new[name]), f"{name} saw a mixed state: {got[:300]}"
    # They were issued while the write held the lock, so all of them waited for it.
    assert all(got == new[name] for name, got in results)


def test_concurrent_searches_and_asks_match_sequential_ones(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=GUARD) as c:
        expected = {
            (kind, q): (_search if kind == "search" else _ask)(c, q)
            for kind in ("search", "ask")
            for q in QUESTIONS
        }
    jobs = list(expected) * 4

    def run(job: tuple[str, str]) -> tuple[tuple[str, str], str]:
        kind, q = job
        with httpx.Client(base_url=served.url, timeout=GUARD) as c:
            return job, (_search if kind == "search" else _ask)(c, q)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(run, jobs))
    assert len(results) == len(jobs)
    for job, got in results:
        assert got == expected[job], f"{job} differs when run concurrently"


@pytest.mark.subprocess
def test_reads_while_another_process_adds_a_document(served: Served, tmp_path: Path) -> None:
    """``citewise add`` in another process changes the store under the running server: the
    readers that notice rebuild the index aside; each read sees one side of the change."""
    old = _snapshot(served.url)
    folder = tmp_path / "incoming"
    folder.mkdir()
    (folder / "w0.md").write_bytes(NEW_DOCS["widgets/w0.md"])
    stop = threading.Event()
    seen: list[tuple[str, str]] = []
    errors: list[str] = []

    def reader(name: str) -> None:
        with httpx.Client(base_url=served.url, timeout=GUARD) as c:
            while not stop.is_set():
                try:
                    seen.append((name, READS[name](c)))
                except (AssertionError, httpx.HTTPError) as exc:
                    errors.append(f"{name}: {exc}")

    threads = [
        threading.Thread(target=reader, args=(n,)) for n in ("search", "ask", "search", "documents")
    ]
    for t in threads:
        t.start()
    try:
        proc = run_cli("add", str(folder), home=served.home_dir)
        assert proc.returncode == 0, proc.stderr
        _until(lambda: any(n == "search" and v != old["search"] for n, v in seen))
    finally:
        stop.set()
        for t in threads:
            t.join(GUARD)
    assert errors == []
    after = _snapshot(served.url)
    assert after["search"] != old["search"] and "w0.md" in after["documents"]
    for name, got in seen:
        assert got in (old[name], after[name]), f"{name} saw a mixed state: {got[:300]}"
