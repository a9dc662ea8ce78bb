"""The leak suite for taken-down and expired documents (issue 38): their text is never
visible through search, evidence, ask (plain and SSE), graph, resolve, export or
conversations once withheld.

A real home on each store backend: the public corpus, plus a document carrying a unique
token that is read (the text is found: the test can fail) and then taken down without a
new ingest, and another that expires under ``retain_until``. Every read route of a server
over it is collected for an editor and the token's sentences must appear nowhere; a
citation of the withheld text answers WITHHELD (path and reason only); an answer saved
while the text was readable is no longer exported.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from citewise.audit.bundle import export_bundle
from citewise.errors import Withheld
from citewise.governance.withhold import take_down
from citewise.server.auth import KeyStore
from tests._leak_corpus import PUBLIC, write
from tests._leak_diff import PATHS, read_routes
from tests._server import running_server
from tests.backends import Backend
from tests.test_leaks_review import _more_routes

pytestmark = pytest.mark.usefixtures("dense_off")

TOKEN = "PANGOLINTOPAZ"  # _more_routes' questions carry it
DOWN = "drafts/vault-plan.md"
DOWN_TEXT = (
    "# Vault plan\n\n"
    f"The {TOKEN} vault rotates keys hourly. Vault rotation keys live in the vault; the "
    "retention period for audit logs is 9 days.\n"
)
OLD = "drafts/old-plan.md"
OLD_TEXT = (
    "---\nretain_until: 2001-01-01\n---\n# Old plan\n\n"
    f"Every {TOKEN} day the old vault rotation ran.\n"
)
HELD_TEXTS = (f"The {TOKEN} vault", f"Every {TOKEN} day")


@pytest.fixture(scope="module")
def taken(module_backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("takedown-leaks")
    home = root / "home"
    try:
        with module_backend.open(home) as h:
            h.retention.clock = lambda: date(2000, 6, 1)  # OLD is still retained
            kb = h.kb()
            files = PUBLIC | {DOWN: DOWN_TEXT, OLD: OLD_TEXT}
            assert kb.add([write(root / "docs", files)]).ok
            seen = kb.search(TOKEN, mode="lexical").hits
            assert {hit.path for hit in seen} == {DOWN, OLD}  # the text was readable
            saved = kb.ask(f"What does the {TOKEN} vault rotate?")
            cids = [n.id for p in (DOWN, OLD) for n in kb.nodes(p) if TOKEN in n.text]
            take_down(h.store, kb.name, DOWN, "licence withdrawn", by="legal")
        key = KeyStore(home).add("carol", "carol", ["default"], "editor")
        return {"home": home, "key": key, "answer": saved.trace_id, "cids": cids}
    finally:
        mp.undo()


def _reads(backend: Backend, home: Path, key: str, cid: str) -> dict[str, Any]:
    with running_server(home, store=backend.store(home)) as url:
        paths = (*PATHS, DOWN, OLD)
        nodes = ("guide/rotation.md", "Vault plan", "Old plan", DOWN, OLD)
        queries = (f"What is {TOKEN}?", "vault rotation", "How often do vault keys rotate?")
        got = read_routes(
            url, key, cid, dense=False, queries=queries, paths=paths, graph_nodes=nodes
        )
        return got | _more_routes(url, key)


def test_withheld_text_is_never_read_through_any_route(
    module_backend: Backend, taken: dict[str, Any]
) -> None:
    got = _reads(module_backend, taken["home"], taken["key"], taken["cids"][0])
    seen = json.dumps(got)
    assert not [t for t in HELD_TEXTS if t in seen]
    resolved = json.dumps(got["citation hidden"])
    assert "WITHHELD" in resolved and DOWN in resolved and "licence withdrawn" in resolved


def test_export_of_an_answer_that_quoted_withheld_text_is_refused(
    module_backend: Backend, taken: dict[str, Any]
) -> None:
    with module_backend.open(taken["home"]) as h:
        with pytest.raises(Withheld, match=r"withheld: (taken down|expired): drafts/"):
            export_bundle(h, taken["answer"])
        fresh = h.kb().ask("How often do I rotate keys?")
        assert not [t for t in HELD_TEXTS if t in json.dumps(export_bundle(h, fresh.trace_id))]


def test_an_expired_document_is_withheld_like_a_taken_down_one(
    module_backend: Backend, taken: dict[str, Any]
) -> None:
    with module_backend.open(taken["home"]) as h:
        h.retention.clock = lambda: date(2030, 1, 1)
        kb = h.kb()
        assert not kb.search(TOKEN, mode="lexical").hits
        with pytest.raises(Withheld, match="expired") as got:
            kb.resolve(taken["cids"][-1])
        assert OLD in str(got.value) and TOKEN not in str(got.value)
