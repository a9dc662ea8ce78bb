"""The leak suite for the withheld view (issue 38, policy ``redaction: metadata``): a reader
without access sees that a matching restricted document exists, as ``{title, reason,
owner}`` only, never its text, through search, evidence, ask (plain and SSE) and
conversations; graph, resolve and export show nothing more than before; and everything
else bob receives is exactly what he receives from a home that never held the document.
The ledger's ``access`` events list what was withheld and why. Off by default.

Real servers on 127.0.0.1 over the leak corpus (``tests/_leak_corpus.py``) on each store
backend.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.governance.redaction import REASON, withheld_view
from citewise.kb import Home
from citewise.server.auth import KeyStore
from tests._leak_corpus import HIDDEN, QUERIES, TOKEN, build
from tests._leak_diff import diff, read_routes
from tests._server import running_server
from tests.backends import Backend
from tests.test_leaks_review import _more_routes
from tests.test_review import set_policy

pytestmark = pytest.mark.usefixtures("dense_off")

#: The hidden document's own sentences (questions carry the token; answers echo them).
HELD_TEXTS = (f"The {TOKEN} vault rotates", "The Zq9 module rotates", "7 days")
VIEW = {"title": "Vault internals", "reason": REASON, "owner": None}


def _home(backend: Backend, root: Path, variant: str) -> tuple[Path, dict[str, str]]:
    home = build(root / variant, variant, backend.store(root / variant))
    set_policy(home, "redaction: metadata\n")
    keys = KeyStore(home)
    return home, {p: keys.add(p, p, ["default"]) for p in ("alice", "bob")}


@pytest.fixture(scope="module")
def homes(
    module_backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Path, dict[str, str]]]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("redaction-homes")
    try:
        return {v: _home(module_backend, root, v) for v in ("without", "with")}
    finally:
        mp.undo()


def _views(value: Any) -> list[Any]:
    """Every ``withheld`` value anywhere in ``value``."""
    found: list[Any] = []
    if isinstance(value, dict):
        for k, v in value.items():
            found += [v] if k == "withheld" and isinstance(v, list) else _views(v)
    elif isinstance(value, list):
        for v in value:
            found += _views(v)
    return found


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "withheld"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _sse(url: str, key: str) -> list[str]:
    """The ``withheld`` views in the final ``answer`` event of each streamed ask, and
    ``leaked`` when any event held the hidden document's text."""
    out: list[str] = []
    with httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=120) as c:
        for q in QUERIES:
            text = c.post("/kb/default/ask?stream=true", json={"question": q}).text
            out += ["leaked"] if [t for t in HELD_TEXTS if t in text] else []
            for block in text.split("\n\n"):
                if block.startswith("event: answer"):
                    body = json.loads(block.split("data: ", 1)[1])
                    out += [json.dumps(v) for v in _views(body)]
    return out


def _reads(backend: Backend, home: Path, key: str, cid: str) -> dict[str, Any]:
    with running_server(home, store=backend.store(home)) as url:
        got = read_routes(url, key, cid, dense=False) | _more_routes(url, key)
        got["sse views"] = _sse(url, key)
        return got


def _hidden_cid(backend: Backend, home: Path) -> str:
    with Home.open(home, store=backend.store(home)) as h:
        return next(n.id for n in h.kb().nodes(HIDDEN) if TOKEN in n.text)


def test_bob_sees_only_the_allowed_metadata_and_never_the_text(
    module_backend: Backend, homes: dict[str, tuple[Path, dict[str, str]]]
) -> None:
    home, keys = homes["with"]
    cid = _hidden_cid(module_backend, home)
    bob = _reads(module_backend, home, keys["bob"], cid)
    seen = json.dumps(bob)
    assert not [t for t in HELD_TEXTS if t in seen]
    views = _views(bob)
    assert views, "the withheld view was never shown"
    assert all(v == [VIEW] for v in views)  # title, reason, owner: nothing else
    labels = {label.split(" ")[0] for label, v in bob.items() if _views(v)}
    assert {"search", "evidence", "ask", "conversation"} <= labels  # a turn: when it matches
    assert bob["sse views"] and set(bob["sse views"]) == {json.dumps([VIEW])}  # never leaked
    # Without the view, bob's outputs are those of a home that never held the document.
    without_home, without_keys = homes["without"]
    never = _reads(module_backend, without_home, without_keys["bob"], cid)
    assert not _views(never)
    bob.pop("sse views"), never.pop("sse views")
    assert diff(_strip(never), _strip(bob)) == []
    # alice may read it: no view, the text itself
    alice = _reads(module_backend, home, keys["alice"], cid)
    assert not _views(alice) and f"The {TOKEN} vault rotates" in json.dumps(alice)


def test_the_ledger_lists_what_was_withheld_and_why(
    module_backend: Backend, homes: dict[str, tuple[Path, dict[str, str]]]
) -> None:
    home, _ = homes["with"]
    with Home.open(home, store=module_backend.store(home)) as h:
        kb = h.kb()
        from citewise.core.search import SearchFilters

        bob = SearchFilters(principal="bob")
        kb.ask("vault rotation", filters=bob)
        kb.search("vault rotation", filters=bob)
        kb.evidence("vault rotation", filters=bob)
        events = h.store.ledger.query_ledger(types=("access",), kb="default")
        mine = [e.payload for e in events if e.payload.get("principal") == "bob"][-3:]
        assert {e["action"] for e in mine} == {"ask", "search", "evidence"}
        assert all(e["redacted"] == [{"path": HIDDEN, "reason": REASON}] for e in mine)
        assert TOKEN not in json.dumps(mine)
        # the library's view: the same metadata; alice has nothing withheld
        got = withheld_view(h.settings.home, "default", kb.context, "vault rotation", bob)
        assert [d.public() for d in got] == [VIEW]
        alice = SearchFilters(principal="alice")
        assert withheld_view(h.settings.home, "default", kb.context, "vault rotation", alice) == []


def test_off_by_default_and_a_title_owner_from_metadata(tmp_path: Path) -> None:
    from citewise.core.search import SearchFilters
    from tests._leak_corpus import write

    doc = "---\naccess: [alice]\nowner: security-team\n---\n# Plan\n\nThe heron vault opens.\n"
    bob = SearchFilters(principal="bob")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([write(tmp_path / "docs", {"ops/plan.md": doc})]).ok
        home = h.settings.home
        assert withheld_view(home, "default", kb.context, "heron vault", bob) == []
        kb.ask("When does the heron vault open?", filters=bob)
        (event,) = h.store.ledger.query_ledger(types=("access",), kb="default")
        assert event.payload["redacted"] == []
        set_policy(home, "redaction: metadata\n")
        (got,) = withheld_view(home, "default", kb.context, "heron vault", bob)
        # no title metadata: the path stands in for it; the owner is the metadata's
        assert got.public() == {"title": "ops/plan.md", "reason": REASON, "owner": "security-team"}
        set_policy(home, "redaction: names\n")  # malformed: the default, looks absent
        assert withheld_view(home, "default", kb.context, "heron vault", bob) == []
