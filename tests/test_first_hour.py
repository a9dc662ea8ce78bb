"""First-hour papercuts (issue 18): each found by trying the project as a new user."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from citewise.cli import output as ui
from citewise.config import IngestConfig
from citewise.core.records import AddReport, FileResult
from citewise.ingest.parse import parse_document
from citewise.kb import Home
from tests.conftest import REPO


@pytest.fixture
def lhome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    h = Home.open(tmp_path / "home")
    yield h
    h.close()


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> dict[str, io.StringIO]:
    streams = {"out": io.StringIO(), "err": io.StringIO()}
    monkeypatch.setattr(ui, "out", Console(file=streams["out"], width=200, highlight=False))
    monkeypatch.setattr(ui, "err", Console(file=streams["err"], width=200, highlight=False))
    return streams


_FAKE_CLI = """#!/usr/bin/env bash
# Stands in for citewise: fails like it would on a path that does not exist.
for a in "$@"; do
  case "$a" in */*|*corpus) [ -e "$a" ] || { echo "no such folder: $a" >&2; exit 3; } ;; esac
done
case " $* " in *" --json "*) echo '{"nodes": [{"id": "n_1", "kind": "paragraph",
  "clause_path": "1"}]}' ;; esac
exit 0
"""


@pytest.mark.subprocess
def test_demo_script_runs_from_any_working_directory(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "citewise"
    fake.write_text(_FAKE_CLI, encoding="utf-8")
    fake.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "demo.sh"), "../bin/citewise", "demo-home"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def test_missing_folder_is_not_found_naming_the_path(lhome: Home, tmp_path: Path) -> None:
    report = lhome.kb().add([tmp_path / "no-such-folder"])
    (only,) = report.files
    assert only.status == "failed" and only.code == "NOT_FOUND"
    assert "no-such-folder" in only.message


def test_a_refusal_says_insufficient_evidence_once(
    lhome: Home, tmp_path: Path, captured: dict[str, io.StringIO]
) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "a.md").write_text("# Alpha\n\nThe zebrafish procedure is described.\n", "utf-8")
    lhome.kb().add([folder])
    answer = lhome.kb().ask("How do I configure Kafka in Harbor?")
    assert answer.outcome == "insufficient_evidence"
    ui.print_answer(answer)
    assert captured["out"].getvalue().count("insufficient_evidence") == 1


def _skipping_report() -> AddReport:
    files = [FileResult("doc.md", "unchanged")]
    for name in ("a.png", "b.png", "c.zip"):
        files.append(
            FileResult(name, "skipped", code="UNSUPPORTED_FORMAT", message=f"{name}: skipped")
        )
    return AddReport("default", tuple(files), None, None)


def test_skipped_files_are_summarised_by_suffix(captured: dict[str, io.StringIO]) -> None:
    ui.print_add_report(_skipping_report())
    err = captured["err"].getvalue()
    assert "skipped 3 unsupported file(s) (2 .png, 1 .zip)" in err
    assert "a.png" not in err and "--verbose" in err


def test_verbose_lists_each_skipped_file(captured: dict[str, io.StringIO]) -> None:
    ui.print_add_report(_skipping_report(), verbose=True)
    err = captured["err"].getvalue()
    assert all(name in err for name in ("a.png", "b.png", "c.zip"))


@pytest.mark.subprocess
def test_serve_on_a_port_in_use_fails_at_once(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = dict(os.environ, CITEWISE_HOME=str(tmp_path / "home"), CITEWISE_DENSE="off")
        cmd = [sys.executable, "-c", "from citewise.cli import main; main()"]
        proc = subprocess.run(
            [*cmd, "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    assert proc.returncode == 2, proc.stderr
    assert f"127.0.0.1:{port}" in proc.stderr and "--port" in proc.stderr
    assert "startup complete" not in proc.stderr.lower()


_A = """# Alpha

## Setup

See [the beta page](../b.md) and [a missing part](../b.md#no-such-anchor).

## Flow

Written with [[b]] as well.
"""


def test_graph_show_rolls_up_section_relations(lhome: Home, tmp_path: Path) -> None:
    from citewise.graph.rollup import rolled_up

    folder = tmp_path / "g"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.md").write_text(_A, "utf-8")
    (folder / "b.md").write_text("# Beta\n\n## Intro\n\nBeta text.\n", "utf-8")
    kb = lhome.kb()
    kb.add([folder])
    g = lhome.index(kb.name).graph.sync()
    assert [p.path for p in g.find("a.md")] == ["sub/a.md"]  # unique file name
    rolled = [r for r in rolled_up(g, "sub/a.md") if r.direction == "out"]
    by_origin = {(r.edge.origin, r.written_in.title, r.other.path) for r in rolled}
    assert ("link", "Setup", "b.md") in by_origin
    assert ("wikilink", "Flow", "b.md") in by_origin
    # The link to a missing anchor is unresolved, not a second link to the page top.
    links = [r for r in rolled if r.edge.origin == "link" and r.other.path == "b.md"]
    assert len(links) == 1
    assert g.stats.unresolved >= 1


def test_title_from_html_h1_when_no_markdown_h1() -> None:
    raw = b'<h1 align="center">My <b>Tool</b></h1>\n\nSome text here.\n'
    doc = parse_document(raw, name="x.md", kb="k", doc_path="x.md", config=IngestConfig())
    assert doc.title == "My Tool"
    fm = b"---\ntitle: From Front Matter\n---\nSome text here.\n"
    doc = parse_document(fm, name="y.md", kb="k", doc_path="y.md", config=IngestConfig())
    assert doc.title == "From Front Matter"
