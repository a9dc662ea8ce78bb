"""The CLI over a real home: history, revert, delete, kb guards, cite resolve, JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.kb import Home
from tests.conftest import EXAMPLES, run_cli


def _json(proc_args: tuple[str, ...], home: Path) -> object:
    proc = run_cli(*proc_args, "--json", home=home, check=True)
    return json.loads(proc.stdout)


@pytest.mark.subprocess
def test_change_twice_revert_twice_over_the_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    src = tmp_path / "src"
    src.mkdir()
    doc = src / "guide.md"
    texts = [
        "# Guide\n\nRetry limit is 3.\n",
        "# Guide\n\nRetry limit is 5.\n",
        "# Guide\n\nRetry limit is 7.\n",
    ]
    old_ids: list[str] = []
    for text in texts:
        doc.write_text(text, encoding="utf-8")
        run_cli("add", str(src), home=home, check=True)
        shown = _json(("docs", "show", "guide.md", "--nodes"), home)
        assert isinstance(shown, dict)
        old_ids.append(next(n["id"] for n in shown["nodes"] if n["kind"] == "paragraph"))
    run_cli("docs", "revert", "guide.md", "2", home=home, check=True)
    run_cli("docs", "revert", "guide.md", "3", home=home, check=True)  # undo the revert
    versions = _json(("docs", "versions", "guide.md"), home)
    assert isinstance(versions, list)
    assert [v["version_id"] for v in versions] == [5, 4, 3, 2, 1]
    assert [v["is_head"] for v in versions] == [True, False, False, False, False]
    assert [v["restored_from"] for v in versions][:2] == [3, 2]
    # Every version's exact content is still there: the head equals version 3 again.
    with Home.open(home) as h:
        kb = h.kb()
        for v, text in zip((1, 2, 3, 4, 5), [*texts, texts[1], texts[2]], strict=True):
            raw, _ = h.store.get_version_content("default", "guide.md", v)
            assert raw.decode("utf-8") == text
    # Old node ids resolve to their original text, whatever the head is now.
    for node_id, text in zip(old_ids, texts, strict=True):
        cited = _json(("cite", "resolve", node_id), home)
        assert isinstance(cited, dict)
        assert cited["text"] == text.split("\n\n")[1].strip()
        assert cited["line_start"] == cited["line_end"] == 3
    revisions = _json(("revisions",), home)
    assert isinstance(revisions, list) and len(revisions) == 5
    # Delete keeps history; the document leaves the current revision.
    run_cli("docs", "delete", "guide.md", home=home, check=True)
    assert _json(("docs", "list"), home) == []
    cited = _json(("cite", "resolve", old_ids[0]), home)
    assert isinstance(cited, dict) and cited["current"] is False
    del kb


@pytest.mark.subprocess
def test_kb_guards_over_the_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    run_cli("kb", "create", "legal", home=home, check=True)
    run_cli("add", str(src), "--kb", "legal", home=home, check=True)
    busy = run_cli("kb", "delete", "legal", home=home)
    assert busy.returncode == 4 and "BASE_IN_USE" in busy.stderr and "--force" in busy.stderr
    default = run_cli("kb", "delete", "default", home=home)
    assert default.returncode == 4 and "BASE_IS_DEFAULT" in default.stderr
    bad = run_cli("kb", "create", "Bad Name!", home=home)
    assert bad.returncode == 2 and "BAD_REQUEST" in bad.stderr
    run_cli("kb", "delete", "legal", "--force", home=home, check=True)
    kbs = _json(("kb", "list"), home)
    assert isinstance(kbs, list) and [k["name"] for k in kbs] == ["default"]


@pytest.mark.model
def test_example_corpus_ingests_cleanly(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as h:
        report = h.kb().add([EXAMPLES])
        assert report.ok, [f for f in report.files if f.status == "failed"]
        paths = {d.path for d in h.kb().documents()}
        assert "drafts/wip.md" not in paths  # .citewiseignore
        assert "zh/故障排查.md" in paths
        assert h.verify() == []
        policy = h.kb().nodes("data-retention-policy.md")
        assert any(n.clause_path == "1.1(a)" for n in policy)
        assert any(n.kind == "mermaid" for n in h.kb().nodes("sync-modes.md"))
        assert any(n.kind == "table_row" for n in h.kb().nodes("configuration.md"))
        # A second add of the same corpus changes nothing.
        again = h.kb().add([EXAMPLES])
        assert again.revision is None and again.count("unchanged") == len(paths)
