"""The leak suite for held material (issue 38): a candidate or quarantined document's text
is never visible through search, evidence, ask (plain and SSE), graph, resolve, export or
conversations before it is approved or released.

Two real homes on each store backend, with the same review-mode policy: ``without`` holds
the public corpus; ``held`` holds it too, plus a candidate (a new document and a change to a
public one, both carrying a unique token) and a quarantined file (over the size rule, the
token again). Every read route of a server over each must answer the same (normalised as in
``_leak_diff``), and the token must appear nowhere. Then the candidate is approved and the
token appears: the test can fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.audit.bundle import export_bundle
from citewise.config import IngestConfig
from citewise.governance import review
from citewise.ingest.parse import parse_document
from citewise.kb import Home
from citewise.server.auth import KeyStore
from tests._leak_corpus import PUBLIC, write
from tests._leak_diff import PATHS, diff, normalise, read_routes
from tests._server import running_server
from tests.backends import Backend
from tests.test_review import set_policy

pytestmark = pytest.mark.usefixtures("dense_off")

TOKEN = "PANGOLINTOPAZ"
NEW = "drafts/vault-plan.md"
NEW_TEXT = (
    "# Vault plan\n\n"
    f"The {TOKEN} vault rotates keys hourly. Vault rotation keys live in the vault; the "
    "retention period for audit logs is 9 days.\n"
)
CHANGED = "guide/rotation.md"
BIG = "drafts/big.md"
BIG_TEXT = f"# Key rotation appendix\n\n{TOKEN} rotation keys. " + "Vault rotation notes. " * 60
POLICY = "publication: review\npublishers: [alice]\nquarantine: {max_bytes: 1000}\n"
#: Phrases only the held files hold (the token inside each one's own words).
HELD_TEXTS = (f"The {TOKEN} vault", f"every {TOKEN} day", f"{TOKEN} rotation keys")
QUERIES = (
    f"What is {TOKEN}?",
    "vault rotation",
    "Key rotation",
    "What is the retention period for audit logs?",
)


def _build(root: Path, variant: str, store: str | None) -> Path:
    home = root / variant / "home"
    with Home.open(home, store=store) as h:
        kb = h.kb()
        assert kb.add([write(root / variant / "public", PUBLIC)]).ok
        set_policy(h.settings.home, POLICY)
        if variant == "held":
            changed = PUBLIC[CHANGED].replace("every 90 days", f"every {TOKEN} day")
            files = {NEW: NEW_TEXT, CHANGED: changed, BIG: BIG_TEXT}
            report = kb.add([write(root / variant / "drafts", files)])
            assert {f.code for f in report.files} == {"HELD_FOR_REVIEW", "QUARANTINED"}
            assert report.revision is None
    return home


@pytest.fixture(scope="module")
def homes(module_backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("held-leaks")
    try:
        out: dict[str, Any] = {}
        for variant in ("without", "held"):
            home = _build(root, variant, module_backend.store(root / variant / "home"))
            out[variant] = (home, KeyStore(home).add("carol", "carol", ["default"], "editor"))
        return out
    finally:
        mp.undo()


def _would_be_cid() -> str:
    """The citation id the held document's first block would have once published (ids
    are content-derived, so a caller could compute one)."""
    config = IngestConfig()
    parsed = parse_document(NEW_TEXT.encode(), name=NEW, kb="default", doc_path=NEW, config=config)
    return parsed.nodes[-1].id


def _more_routes(url: str, key: str) -> dict[str, Any]:
    """Conversations and the SSE stream of ask (the read routes ``_leak_diff`` lacks)."""
    out: dict[str, Any] = {}
    with httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=120) as c:
        for q in QUERIES:
            started = c.post("/kb/default/conversations", json={"question": q}).json()
            cid = started["conversation"]["id"]
            turn = c.post(f"/kb/default/conversations/{cid}/turns", json={"question": "and why?"})
            strip = {"id", "conversation_id"}
            out[f"conversation {q}"] = normalise(
                {k: v for k, v in started.get("answer", {}).items() if k not in strip}
            )
            out[f"turn {q}"] = normalise(
                {k: v for k, v in turn.json().get("answer", {}).items() if k not in strip}
            )
            r = c.post("/kb/default/ask?stream=true", json={"question": q})
            events = [line for line in r.text.splitlines() if line.startswith("event: ")]
            out[f"sse {q}"] = [r.status_code, events, TOKEN in r.text]
    return out


def _reads(backend: Backend, home: Path, key: str) -> dict[str, Any]:
    with running_server(home, store=backend.store(home)) as url:
        paths = (*PATHS, NEW, BIG)
        nodes = ("guide/rotation.md", "Key rotation", NEW, "Vault plan", BIG)
        got = read_routes(
            url, key, _would_be_cid(), dense=False, queries=QUERIES, paths=paths, graph_nodes=nodes
        )
        return got | _more_routes(url, key)


def test_held_text_is_never_read_and_every_route_answers_as_without_it(
    module_backend: Backend, homes: dict[str, Any]
) -> None:
    without = _reads(module_backend, *homes["without"])
    held = _reads(module_backend, *homes["held"])
    seen = json.dumps(held)
    # The questions carry the token and answers echo them; the held text never appears.
    assert not [t for t in HELD_TEXTS if t in seen]
    assert diff(without, held) == []


def test_export_of_an_answer_holds_no_held_text(
    module_backend: Backend, homes: dict[str, Any]
) -> None:
    home, _ = homes["held"]
    with module_backend.open(home) as h:
        answer = h.kb().ask(f"What is {TOKEN}?")
        bundle = json.dumps(export_bundle(h, answer.trace_id))
        assert not [t for t in HELD_TEXTS if t in bundle]
        answer = h.kb().ask("How often do I rotate keys?")
        assert TOKEN not in json.dumps(answer.to_json(with_trace=True))


def test_approval_makes_the_text_visible(
    module_backend: Backend, homes: dict[str, Any], tmp_path: Path
) -> None:
    """The other side of the suite: once approved (and released) the token is found, so
    the equalities above are not vacuous."""
    import shutil

    src, _ = homes["held"]
    home = tmp_path / "copy"
    with module_backend.open(src) as h:
        (candidate, quarantined) = sorted(review.queue(h.kb().context), key=lambda x: x.kind)
        assert (candidate.kind, quarantined.kind) == ("candidate", "quarantine")
    if module_backend.name != "sqlite":
        # The PostgreSQL store is shared by every home of the module, so approving here
        # would change the other tests' fixture: the held bytes are read from the queue
        # instead, so the equalities above are not vacuous on this backend either.
        from citewise.governance.queue import read_blob

        with module_backend.open(src) as h:
            kb = h.kb()
            raw = b"".join(
                read_blob(kb.context.settings.home, kb.context.name, held, f)
                for held in (candidate, quarantined)
                for f in held.files
                if f.action == "write"
            )
        assert TOKEN.encode() in raw
        return
    shutil.copytree(src, home)
    with Home.open(home) as h:
        kb = h.kb()
        alice = review.Reviewer("alice", admin=False)
        review.approve(kb.context, candidate.id, alice)
        assert any(TOKEN in hit.excerpt for hit in kb.search(TOKEN, mode="lexical").hits)
        review.release(kb.context, quarantined.id, alice)
        assert BIG in {d.path for d in kb.documents()}
        assert h.resolve(_would_be_cid()).text.startswith("The PANGOLINTOPAZ vault")
