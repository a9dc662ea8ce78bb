"""Web verification holds one deadline per search and per fetch, however a server spreads
its bytes, and waits on the network without the server's lock (issue 32). Real trickling
HTTP servers on 127.0.0.1; through the real citewise server for the lock."""

from __future__ import annotations

import ipaddress
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest

from citewise.errors import FetchTimeout, SearchUnavailable
from citewise.facade.rwlock import RWLock
from citewise.web.fetcher import FetchPolicy, SafeFetcher
from citewise.web.search import SearxngSearch
from tests._server import running_server
from tests._web_hosts import Raw, web_host
from tests.test_web_verify import Q_B, REG_B

LOOPBACK = (ipaddress.ip_network("127.0.0.1/32"),)
#: How long a trickling server would take to finish its answer: far past every deadline.
TRICKLE_SECONDS = 12.0


def trickle(response: bytes, per_byte: float) -> Raw:
    """A route that writes the whole raw response (status line and headers included) one
    byte at a time; it stops when the client hangs up."""

    def write(h: BaseHTTPRequestHandler) -> None:
        try:
            for i in range(len(response)):
                h.wfile.write(response[i : i + 1])
                h.wfile.flush()
                time.sleep(per_byte)
        except OSError:
            pass

    return Raw(write)


def _response(ctype: str, body: bytes) -> bytes:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


JSON_ANSWER = _response("application/json", b'{"query": "q", "results": []}' + b" " * 40)
PAGE = _response("text/html", b"<html><body><p>" + b"x" * 60 + b"</p></body></html>")


@pytest.mark.parametrize("slow_part", ["headers", "body"])
def test_a_trickling_page_is_cut_at_the_fetch_deadline(slow_part: str) -> None:
    split = PAGE.index(b"\r\n\r\n") + 4
    fast, slow = (b"", PAGE) if slow_part == "headers" else (PAGE[:split], PAGE[split:])

    def write(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(fast)
        trickle(slow, TRICKLE_SECONDS / len(slow)).write(h)

    with web_host({"/p": Raw(write)}) as host:
        fetcher = SafeFetcher(FetchPolicy(permit=LOOPBACK, timeout=1.0))
        start = time.monotonic()
        with pytest.raises(FetchTimeout):
            fetcher.fetch(host.url("/p"))
        took = time.monotonic() - start
    assert took < 2.5, f"the 1 s fetch deadline held only after {took:.1f} s"


def test_a_trickling_search_engine_is_cut_at_the_search_deadline() -> None:
    route = trickle(JSON_ANSWER, TRICKLE_SECONDS / len(JSON_ANSWER))
    with web_host({"/search": route}) as engine:
        start = time.monotonic()
        with pytest.raises(SearchUnavailable, match="within 1 s"):
            SearxngSearch(engine.base, ["ecfr.gov"], timeout=1.0).search("q")
        took = time.monotonic() - start
    assert took < 2.5, f"the 1 s search deadline held only after {took:.1f} s"


def test_released_lets_a_writer_in_and_restores_the_readers_depth() -> None:
    lock = RWLock()
    wrote = threading.Event()

    def writer() -> None:
        with lock.write():
            wrote.set()

    with lock.read(), lock.read():
        t = threading.Thread(target=writer)
        with lock.released():
            t.start()
            assert wrote.wait(5)  # the writer ran while this reader waited
        t.join(5)
        assert lock.readers == 1
    assert lock.readers == 0 and not lock.writing
    with lock.write(), lock.released():  # a writer keeps its hold
        assert lock.writing


@pytest.mark.subprocess
def test_a_trickling_engine_neither_holds_the_ask_nor_blocks_writers_and_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    route = trickle(JSON_ANSWER, TRICKLE_SECONDS / len(JSON_ANSWER))
    with web_host({"/search": route}) as engine, running_server(tmp_path / "home") as url:
        monkeypatch.setenv("CITEWISE_WEB_SEARCH_URL", engine.base)
        monkeypatch.setenv("CITEWISE_WEB_ALLOWED_HOSTS", "ecfr.gov")
        monkeypatch.setenv("CITEWISE_WEB_TIMEOUT", "3")
        with httpx.Client(base_url=url, timeout=60) as c:
            files = [("files", ("reg-b.md", REG_B.encode(), "text/markdown"))]
            assert c.post("/kb/default/documents", files=files).status_code == 201
        done: dict[str, float] = {}

        def ask() -> None:
            with httpx.Client(base_url=url, timeout=60) as c:
                r = c.post("/kb/default/ask", json={"question": Q_B, "verify_web": True})
                assert r.status_code == 200, r.text
                done["state"] = r.json()["citations"][0]["verification"]["state"] == "degraded"
            done["ask"] = time.monotonic()

        start = time.monotonic()
        asker = threading.Thread(target=ask)
        asker.start()
        while not engine.seen and time.monotonic() - start < 20:
            time.sleep(0.02)  # the ask now waits on the engine
        with httpx.Client(base_url=url, timeout=60) as c:
            files = [("files", ("later.md", b"# Later\n\nA later note.\n", "text/markdown"))]
            assert c.post("/kb/default/documents", files=files).status_code == 201
            done["upload"] = time.monotonic()
            assert c.post("/kb/default/search", json={"query": "creditor"}).status_code == 200
            done["search"] = time.monotonic()
        asker.join(30)
    assert done.get("state") is True  # the engine's silence degrades the citation
    assert done["ask"] - start < 6.0, f"the ask took {done['ask'] - start:.1f} s"
    assert done["upload"] < done["ask"] and done["search"] < done["ask"]
