"""Relations by meaning over real SQLite homes (issue 34): a relation drawn in a document's
own Mermaid diagram between two of its parts is answered from that edge, cited to the
diagram line and the neighbour's text, in any phrasing of the relation, English or
Chinese; a question's qualifier ("before first use") does not stop the relation route."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from citewise.cli.graph import graph_app
from citewise.kb import Home, KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures" / "relations"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    return Home.open(tmp_path / "home")


def _kb(home: Home, tmp_path: Path, folder: str) -> KnowledgeBase:
    src = tmp_path / folder
    shutil.copytree(FIXTURES / folder, src)
    kb = home.kb()
    assert kb.add([src]).ok
    return kb


def _shown(home: Home, doc: str) -> set[tuple[str, str, str]]:
    app = typer.Typer()
    app.add_typer(graph_app, name="graph")
    got = CliRunner().invoke(
        app, ["graph", "show", doc, "--home", str(home.settings.home), "--json"]
    )
    assert got.exit_code == 0, got.output
    return {
        (e["relation"], e["neighbor"]["title"], e["evidence"]["text"])
        for e in json.loads(got.output)["edges"]
        if e["origin"] == "mermaid"
    }


@pytest.mark.parametrize(
    ("question", "statement", "edge_line", "neighbour_text"),
    [
        (
            "What replaced Ledger Classic?",
            "Ledger Nova replaces Ledger Classic.",
            "L1[Ledger Classic] -->|succeeded by| L2[Ledger Nova]",
            "columnar segments",
        ),
        (
            "Which engine succeeded Ledger Classic?",
            "Ledger Nova replaces Ledger Classic.",
            "L1[Ledger Classic] -->|succeeded by| L2[Ledger Nova]",
            "columnar segments",
        ),
        (
            "What does Ledger Nova require before first use?",
            "Ledger Nova requires Key vault.",
            "L2 -->|requires| KS[Key vault]",
            "unsealed by an operator",
        ),
        (
            "Before first use, what does Ledger Nova depend on?",
            "Ledger Nova requires Key vault.",
            "L2 -->|requires| KS[Key vault]",
            "unsealed by an operator",
        ),
        (
            "What degrades Ledger Nova between compactions?",
            "Journal fragmentation degrades Ledger Nova.",
            "FR[Journal fragmentation] -->|degrades| L2",
            "small segments accumulate",
        ),
        (
            "What degrades Ledger Nova?",
            "Journal fragmentation degrades Ledger Nova.",
            "FR[Journal fragmentation] -->|degrades| L2",
            "small segments accumulate",
        ),
    ],
)
def test_a_diagram_relation_is_answered_from_its_edge(
    home: Home, tmp_path: Path, question: str, statement: str, edge_line: str, neighbour_text: str
) -> None:
    kb = _kb(home, tmp_path, "en")
    answer = kb.ask(question)
    assert answer.outcome == "answered", answer.answer
    assert answer.degradation == "none", answer.sufficiency.reason_texts  # the edge says it
    assert answer.answer.startswith(f"{statement} [1][2]")
    assert answer.citations[0].excerpt == edge_line
    assert neighbour_text in answer.citations[1].excerpt
    for c in answer.citations:  # every citation resolves to its exact excerpt
        assert kb.resolve(c.id).text == c.excerpt
    stated = answer.trace["relation"]["statements"][0]
    assert stated["edge_origin"] == "mermaid" and stated["text"] == statement


def test_graph_show_names_the_types_by_meaning(home: Home, tmp_path: Path) -> None:
    _kb(home, tmp_path, "en")
    shown = _shown(home, "ledger.md")
    # "L1 succeeded by L2" is stored as Ledger Nova -> replaces -> Ledger Classic
    line = "L1[Ledger Classic] -->|succeeded by| L2[Ledger Nova]"
    assert ("replaces", "Ledger Classic", line) in shown
    kinds = {r for r, _, _ in shown}
    assert kinds == {"replaces", "requires", "degrades"}  # none typed ``other`` or ``causes``


@pytest.mark.parametrize(
    ("question", "statement"),
    [
        ("What comes after the snapshot import?", "Snapshot import precedes Replay verification."),
        ("What requires the snapshot import?", "Cutover switch requires Snapshot import."),
        ("What configures the snapshot import?", "Operator console configures Snapshot import."),
    ],
)
def test_passive_and_inverse_labels_keep_their_direction(
    home: Home, tmp_path: Path, question: str, statement: str
) -> None:
    kb = _kb(home, tmp_path, "en")
    answer = kb.ask(question)
    assert answer.outcome == "answered", answer.answer
    assert answer.answer.startswith(statement), answer.answer
    assert answer.citations[0].path.endswith("runbook.md")


@pytest.mark.parametrize(
    ("question", "statement", "label"),
    [
        ("什么取代了经典账本？", "新星账本取代经典账本。", "被取代"),
        ("经典账本被什么取代了？", "新星账本取代经典账本。", "被取代"),
        ("新星账本依赖什么？", "新星账本依赖密钥库。", "依赖"),
        ("什么会降低新星账本的性能？", "日志碎片降低新星账本。", "降低"),
        ("新星账本包含哪些部分？", "压缩器属于新星账本。", "包含"),
    ],
)
def test_chinese_relations_are_answered_from_their_edge(
    home: Home, tmp_path: Path, question: str, statement: str, label: str
) -> None:
    kb = _kb(home, tmp_path, "zh")
    answer = kb.ask(question)
    assert answer.outcome == "answered", answer.answer
    assert answer.answer.startswith(statement), answer.answer
    first = answer.citations[0]
    assert f"|{label}|" in first.excerpt and kb.resolve(first.id).text == first.excerpt


def test_without_such_edges_a_relation_word_is_an_ordinary_question(
    home: Home, tmp_path: Path
) -> None:
    """Documents that state no relation as an edge: the question is answered from prose,
    and no "relation not documented" refusal can come from its words alone."""
    folder = tmp_path / "prose"
    folder.mkdir()
    (folder / "pump.md").write_text(
        "# Pump A\n\nPump A moves cooling water.\n\n## Start-up\n\n"
        "Pump A requires a primed inlet line before it is started.\n",
        encoding="utf-8",
    )
    kb = home.kb()
    assert kb.add([folder]).ok
    answer = kb.ask("What does Pump A require before it is started?")
    assert answer.outcome == "answered", answer.answer
    assert "primed inlet line" in answer.answer
    assert "relation" not in answer.trace
