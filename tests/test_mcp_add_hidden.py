"""MCP ``add_source`` on a path holding a document the key may not read: written and
answered exactly as for a new path (docs/security.md, promise 2), as its description says;
the hidden versions stay in the history for their readers (issue 32)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citewise.kb import Home
from citewise.mcp_server import DESCRIPTIONS
from citewise.server.auth import KeyStore
from tests._leak_corpus import HIDDEN, TOKEN, build
from tests._leak_diff import diff, normalise
from tests.test_mcp import _data, _run

NOTE = "# Vault notes\n\nThe vault drill runs on Fridays.\n"


def test_the_description_says_what_add_source_does_with_a_hidden_path() -> None:
    text = DESCRIPTIONS["add_source"]
    assert "holds a document the key may not read is refused" not in text  # the old claim
    assert "written as for a new path" in text and "'added'" in text


@pytest.mark.subprocess
def test_add_source_over_a_hidden_path_answers_as_for_a_new_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    outs: dict[str, Any] = {}
    for variant in ("with", "without"):
        home = build(tmp_path / variant, variant)
        key = KeyStore(home).add("bob", "bob", ["default"])

        async def body(s: Any) -> dict[str, Any]:
            added = _data(await s.call_tool("add_source", {"name": HIDDEN, "content": NOTE}))
            listed = _data(await s.call_tool("list_documents", {"prefix": "secret/"}))
            return {"add": normalise(added), "list": normalise(listed)}

        outs[variant] = _run(home, key, body)
    added = outs["without"]["add"]
    assert added["ok"] and [f["status"] for f in added["files"]] == ["added"]
    leaks = diff(outs["with"], outs["without"])
    assert not leaks, "\n".join(leaks[:40])
    with Home.open(tmp_path / "with") as h:  # the hidden versions stay, for their readers
        kb = h.kb()
        versions = sorted(kb.versions(HIDDEN), key=lambda v: v.version_id)
        texts = [kb.store.get_version_content("default", HIDDEN, v.version_id)[0] for v in versions]
    assert len(texts) == 3 and all(TOKEN.encode() in t for t in texts[:2])
    assert texts[2] == NOTE.encode() and versions[2].is_head
