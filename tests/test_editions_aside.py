"""Older editions set aside (issue 39, answer/editions_aside.py): when a newer edition of
a document family answers, the older edition recall reached is named, in the trace and
as a line under the answer in both languages. Two kinds of editioned documents: release
notes (years in the path, ``status``/``supersedes`` front matter) and a statute's dated
editions (tests/fixtures/editions: Regulation B, 2011 and 2017, and a 2030 edition not
yet in force)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.answer.editions_aside import edition_facts, editions_of, set_aside
from citewise.answer.units.context import DocFacts
from citewise.core.search import SearchFilters
from citewise.kb import Home, KnowledgeBase

ROOT = Path(__file__).parents[1]
EXAMPLES = ROOT / "examples" / "corpus"
STATUTES = ROOT / "tests" / "fixtures" / "editions"


def _kb(
    tmp: pytest.TempPathFactory, name: str, files: list[Path], extra: dict[str, str] | None = None
) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp.mktemp(name)
    docs = root / "docs"
    docs.mkdir()
    for f in files:
        shutil.copy(f, docs / f.name)
    for rel, text in (extra or {}).items():
        (docs / rel).write_text(text, encoding="utf-8")
    with Home.open(root / "home") as home:
        kb = home.kb()
        kb.add([docs])
        yield kb
    mp.undo()


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    names = ("release-notes-2023.md", "release-notes-2024.md", "configuration.md")
    yield from _kb(tmp_path_factory, "notes", [EXAMPLES / n for n in names])


@pytest.fixture(scope="module")
def statutes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    names = ("reg-b-2011.md", "reg-b-2017-20417.xml", "reg-b-2030.md", "iso-13485-2016.md")
    yield from _kb(tmp_path_factory, "statutes", [STATUTES / n for n in names])


def test_release_notes_older_edition_is_named_as_set_aside(notes: KnowledgeBase) -> None:
    a = notes.ask("What is the default retry limit?")
    assert a.outcome == "answered"
    assert "release-notes-2024.md" in {c.path for c in a.citations}
    assert a.trace["set_aside"] == [
        {
            "set_aside": {
                "path": "release-notes-2023.md",
                "title": "Harbor Release Notes 2023",
                "edition": "2023.2",
            },
            "superseded_by": {
                "path": "release-notes-2024.md",
                "title": "Harbor Release Notes 2024",
                "edition": "2024.2",
            },
        }
    ]
    assert a.display is not None
    assert a.display["lines"] == [
        "Set aside: Harbor Release Notes 2023 (2023.2), superseded by Harbor Release Notes "
        "2024 (2024.2)."
    ]
    zh = notes.ask("What is the default retry limit?", lang="zh")
    assert zh.display is not None
    assert zh.display["lines"] == [
        "已搁置：Harbor Release Notes 2023（2023.2），"
        "已被 Harbor Release Notes 2024（2024.2）取代。"
    ]
    assert zh.replay_id == a.replay_id


def test_statute_superseded_edition_is_named_and_a_future_one_is_not(
    statutes: KnowledgeBase,
) -> None:
    a = statutes.ask("What does 12 CFR 1002.4(b) say about discouragement?")
    assert a.outcome == "answered"
    assert {c.path for c in a.citations} == {"reg-b-2017-20417.xml"}
    aside = a.trace["set_aside"]
    assert [x["set_aside"]["path"] for x in aside] == ["reg-b-2011.md"]  # not the 2030 one
    assert aside[0]["superseded_by"]["path"] == "reg-b-2017-20417.xml"
    assert a.display is not None and a.display["lines"][0].startswith("Set aside: Regulation B")


def test_no_family_no_line(notes: KnowledgeBase) -> None:
    a = notes.ask("Which port serves Prometheus metrics?")
    assert a.outcome == "answered"
    assert "set_aside" not in a.trace
    assert a.display is not None and a.display["lines"] == []


def test_an_edition_the_caller_may_not_read_is_never_named(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    hidden = (EXAMPLES / "release-notes-2023.md").read_text(encoding="utf-8")
    hidden = hidden.replace("status: superseded\n", "status: superseded\naccess: [auditors]\n")
    files = [EXAMPLES / "release-notes-2024.md", EXAMPLES / "configuration.md"]
    for kb in _kb(tmp_path_factory, "hidden", files, {"release-notes-2023.md": hidden}):
        anonymous = kb.ask("What is the default retry limit?")
        assert "set_aside" not in anonymous.trace
        auditor = kb.ask(
            "What is the default retry limit?", filters=SearchFilters(principal="auditors")
        )
        assert [x["set_aside"]["path"] for x in auditor.trace["set_aside"]] == [
            "release-notes-2023.md"
        ]


# -- the rule, pure ---------------------------------------------------------------------
def _facts(path: str, title: str, **meta: object) -> DocFacts:
    return DocFacts(path, title, meta)


def test_family_by_path_and_year_without_relations() -> None:
    facts = {
        "std/cloud-standard-2013.md": _facts("std/cloud-standard-2013.md", "Cloud standard"),
        "std/cloud-standard-2017.md": _facts("std/cloud-standard-2017.md", "Cloud standard"),
        "std/other-2010.md": _facts("std/other-2010.md", "Other"),
    }
    eds = editions_of(facts)
    got = set_aside(["std/cloud-standard-2017.md"], list(facts), eds)
    assert [x["set_aside"]["path"] for x in got] == ["std/cloud-standard-2013.md"]
    # the newer edition found beside an older cited one is no "set aside" older edition
    assert set_aside(["std/cloud-standard-2013.md"], list(facts), eds) == []
    assert eds.kin("std/cloud-standard-2017.md") == {"std/cloud-standard-2013.md"}


def test_a_relation_decides_over_years() -> None:
    old = _facts("a.md", "Guide", relations=[{"type": "superseded_by", "target": "b.md"}])
    new = _facts("b.md", "Guide (rewrite)")
    assert edition_facts(old).superseded_by == {"b.md"}
    eds = editions_of({"a.md": old, "b.md": new})
    assert eds.kin("b.md") == {"a.md"}  # joined by the relation, not by the path
    assert [x["set_aside"]["path"] for x in set_aside(["b.md"], ["a.md"], eds)] == ["a.md"]
    assert set_aside(["a.md"], ["b.md"], eds) == []


def test_the_cli_prints_the_set_aside_line(
    notes: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``make demo``'s edition step shows (scripts/demo.sh asks the same question)."""
    import io

    from rich.console import Console
    from typer.testing import CliRunner

    from citewise.cli import output as ui
    from citewise.cli.root import app

    out = io.StringIO()
    monkeypatch.setattr(ui, "out", Console(file=out, width=300, highlight=False))
    home = str(notes.home.settings.home)
    for lang, line in (
        ("en", "Set aside: Harbor Release Notes 2023 (2023.2), superseded by"),
        ("zh", "已搁置：Harbor Release Notes 2023（2023.2），已被"),
    ):
        q = "What is the default retry limit?"
        result = CliRunner().invoke(app, ["ask", q, "--lang", lang, "--home", home])
        assert result.exit_code == 0, result.output
        assert line in out.getvalue()
    assert "What is the default retry limit?" in (ROOT / "scripts" / "demo.sh").read_text()


def test_a_relation_to_a_path_that_is_no_document_is_ignored() -> None:
    new = _facts("b.md", "Guide", relations=[{"type": "supersedes", "target": "gone.md"}])
    eds = editions_of({"b.md": new})
    assert eds.kin("b.md") == frozenset()
    assert set_aside(["b.md"], ["gone.md"], eds) == []
