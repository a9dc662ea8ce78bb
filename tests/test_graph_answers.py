"""Graph-conditioned answers over a real SQLite home: the relation stated and cited to the
edge's span and the neighbour's text, agreement with ``citewise graph show``, the
graph-support gate, access scope, and neighbour evidence read from the relevant section."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from citewise.analysis.question import analyse
from citewise.answer.relation.graph import asked_relation, wording
from citewise.cli.graph import graph_app
from citewise.core.search import SearchFilters
from citewise.evidence.neighbors import neighbor_fragments
from citewise.graph.models import Edge, Point, SourceSpan
from citewise.kb import Home

HELIX = Path(__file__).parent / "probes" / "corpus" / "helix"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    return Home.open(tmp_path / "home")


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(graph_app, name="graph")
    return app


def test_graph_show_and_the_answers_agree(home: Home, tmp_path: Path) -> None:
    src = tmp_path / "helix"
    shutil.copytree(HELIX, src)
    kb = home.kb()
    assert kb.add([src]).ok
    shown = CliRunner().invoke(
        _cli(), ["graph", "show", "helix-7.md", "--home", str(home.settings.home), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    edges = {
        (e["relation"], e["neighbor"]["title"], e["evidence"]["path"], e["evidence"]["char_start"])
        for e in json.loads(shown.output)["edges"]
        if e["origin"] != "containment"
    }
    stated = set()
    for question in (
        "What does the Helix-7 require?",
        "What is the successor of the Helix-7?",
        "What was the predecessor of the Helix-7?",
        "What degrades the Helix-7?",
        "What is the Helix-7 part of?",
    ):
        answer = kb.ask(question)
        assert answer.outcome == "answered", (question, answer.answer)
        for s in answer.trace["relation"]["statements"]:
            assert s["text"] in answer.answer
            stated.add((s["relation"], s["neighbour"], s["edge_path"], s["edge_chars"][0]))
    assert stated == edges  # every relation graph show lists is the one an answer states
    # the diagram's own label names the type: shown as degrades, not causes (issue 34)
    assert ("degrades", "Thermal creep", "helix-7.md", stated_start(stated, "degrades")) in edges


def stated_start(stated: set[tuple[str, str, str, int]], kind: str) -> int:
    return next(s[3] for s in stated if s[0] == kind)


def test_relation_is_cited_to_the_diagram_line_and_the_neighbour(home: Home) -> None:
    kb = home.kb()
    assert kb.add([HELIX]).ok
    answer = kb.ask("What degrades the Helix-7?")
    assert answer.answer.startswith("Thermal creep degrades Helix-7. [1][2]")
    first, second = answer.citations[0], answer.citations[1]
    assert first.excerpt == "T[Thermal creep] -->|degrades| H[Helix-7]"
    assert first.path.endswith("helix-7.md") and second.path.endswith("thermal-creep.md")
    notice = answer.claims[0]
    assert notice.kept and notice.verdict == "notice" and len(notice.citations) == 2
    for c in answer.citations:  # every citation resolves to its exact excerpt
        assert kb.resolve(c.id).text == c.excerpt


def test_undocumented_relation_is_refused_with_the_gate(home: Home) -> None:
    kb = home.kb()
    assert kb.add([HELIX]).ok
    answer = kb.ask("What replaced the Helix-9?")
    assert answer.outcome == "insufficient_evidence"
    assert answer.failure_stage == "graph_evidence"
    assert answer.sufficiency.reason_texts[0].startswith("graph_neighbor_evidence_missing:")
    assert "Helix-9" in answer.answer and not answer.citations


PUMP = (
    "---\ntitle: Pump A\nrelations:\n  - {type: requires, target: coolant.md}\n"
    "  - {type: requires, target: valve.md}\n---\n\n# Pump A\n\n"
    "Pump A moves cooling water through the reactor jacket.\n"
)
COOLANT = (
    "---\ntitle: Coolant\naccess: [ops]\n---\n\n# Coolant\n\n"
    "Coolant is a glycol mixture stored in the blue tank.\n\n"
    "## Flushing\n\nFlush the coolant loop with distilled water every 500 hours.\n"
)


def test_neighbour_evidence_is_the_section_the_question_asks_about(
    home: Home, tmp_path: Path
) -> None:
    kb = home.kb()
    assert kb.add([_write(tmp_path / "d", {"pump.md": PUMP, "coolant.md": COOLANT})]).ok
    question = "Pump A: how often is the loop flushed with distilled water?"
    ops = SearchFilters(principal="ops")
    result = kb.search(question, filters=ops)
    index = home.index("default")
    frags, _ = neighbor_fragments(index, result.graph, result.revision, None, [], question)
    coolant = [f for f in frags if f.path == "coolant.md"]
    assert coolant and coolant[0].text.startswith("Flush the coolant loop")


def test_relation_answers_respect_access(home: Home, tmp_path: Path) -> None:
    kb = home.kb()
    assert kb.add([_write(tmp_path / "d", {"pump.md": PUMP, "coolant.md": COOLANT})]).ok
    anonymous = kb.ask("What does Pump A require?")
    assert "glycol" not in json.dumps(anonymous.to_json(with_trace=True), ensure_ascii=False)
    assert "Coolant" not in anonymous.answer
    ops = kb.ask("What does Pump A require?", filters=SearchFilters(principal="ops"))
    assert "Pump A requires Coolant." in ops.answer and "glycol" in ops.answer


def test_weak_neighbour_text_is_named_as_a_limitation(home: Home, tmp_path: Path) -> None:
    valve = "---\ntitle: Blue valve\n---\n\n# Blue valve\n\nTighten it by hand only.\n"
    kb = home.kb()
    assert kb.add([_write(tmp_path / "d", {"pump.md": PUMP, "valve.md": valve})]).ok
    answer = kb.ask("What does Pump A require?")
    assert "Pump A requires Blue valve." in answer.answer
    assert "does not address the question directly" in answer.answer
    assert answer.degradation == "partial_coverage"
    assert any(
        r.startswith("graph_neighbor_evidence_weak:") for r in answer.sufficiency.reason_texts
    )


@pytest.mark.parametrize(
    ("question", "name", "kinds", "direction"),
    [
        ("What does the Helix-7 require before first use?", "requires", ("requires",), "out"),
        ("What depends on the prism alignment kit?", "required by", ("requires",), "in"),
        ("What is the successor of X?", "successor", ("supersedes", "replaces"), "in"),
        ("What replaced X?", "successor", ("supersedes", "replaces"), "in"),
        ("What was the predecessor of X?", "predecessor", ("supersedes", "replaces"), "out"),
        ("What did X replace?", "predecessor", ("supersedes", "replaces"), "out"),
        ("What degrades X?", "degraded by", ("degrades",), "in"),
        ("What does thermal creep degrade?", "degrades", ("degrades",), "out"),
        ("What causes X?", "caused by", ("causes", "degrades"), "in"),
        ("What follows the kit?", "precedes", ("precedes",), "out"),
        ("What comes before the kit?", "preceded by", ("precedes",), "in"),
        ("What is X part of?", "part of", ("part_of",), "out"),
        ("What are the components of X?", "has part", ("part_of",), "in"),
        ("光栅模块G-3需要什么？", "requires", ("requires",), "any"),
        ("光栅模块G-3被什么取代了？", "successor", ("supersedes", "replaces"), "any"),
        ("什么会降低光栅模块G-3的性能？", "degrades", ("degrades",), "any"),
        ("光栅模块G-3属于什么？", "part of", ("part_of",), "any"),
    ],
)
def test_asked_relation(question: str, name: str, kinds: tuple[str, ...], direction: str) -> None:
    asked = asked_relation(analyse(question))
    assert asked is not None
    assert (asked.name, asked.kinds, asked.direction) == (name, kinds, direction)


@pytest.mark.parametrize(
    "question", ["What is drift?", "How do I calibrate a Lumen?", "什么是校准周期？"]
)
def test_other_questions_ask_no_relation(question: str) -> None:
    assert asked_relation(analyse(question)) is None


def _point(title: str) -> Point:
    return Point(title.lower(), "document", title, title.lower(), "d", "p.md", 1, "n")


def test_wording_uses_the_authors_diagram_label() -> None:
    span = SourceSpan("p.md", "d", 1, "n", 0, 10, 1, 1, "A -->|degrades| B")
    creep, helix = _point("Thermal creep"), _point("Helix-7")
    labelled = Edge("a", "b", "causes", 0.9, "mermaid", span, label="leads to")
    assert wording(labelled, creep, helix, False) == "Thermal creep leads to Helix-7."
    degrades = Edge("a", "b", "degrades", 0.9, "mermaid", span, label="degrades")
    assert wording(degrades, creep, helix, False) == "Thermal creep degrades Helix-7."
    plain = Edge("a", "b", "causes", 1.0, "front_matter", span)
    assert wording(plain, creep, helix, False) == "Thermal creep causes Helix-7."
    assert wording(plain, creep, helix, True) == "Thermal creep导致Helix-7。"
    part = Edge("a", "b", "part_of", 1.0, "front_matter", span)
    assert wording(part, helix, creep, False) == "Helix-7 is part of Thermal creep."


ZH_OPTICS = Path(__file__).parent / "probes" / "corpus" / "zh" / "光学"


def test_graph_show_and_the_chinese_answers_agree(home: Home, tmp_path: Path) -> None:
    """The same agreement for a Chinese document: front-matter relations and a Mermaid
    edge labelled 降低, asked in Chinese."""
    src = tmp_path / "光学"
    shutil.copytree(ZH_OPTICS, src)
    kb = home.kb()
    assert kb.add([src]).ok
    doc = "光栅模块G-3.md"
    shown = CliRunner().invoke(
        _cli(), ["graph", "show", doc, "--home", str(home.settings.home), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    edges = {
        (e["relation"], e["neighbor"]["title"], e["evidence"]["path"], e["evidence"]["char_start"])
        for e in json.loads(shown.output)["edges"]
        if e["origin"] != "containment" and e["evidence"]["path"] == doc
    }
    stated = set()
    for question in (
        "光栅模块G-3需要什么？",
        "什么会降低光栅模块G-3的性能？",
        "光栅模块G-3属于什么？",
    ):
        answer = kb.ask(question)
        assert answer.outcome == "answered", (question, answer.answer)
        for s in answer.trace["relation"]["statements"]:
            assert s["text"] in answer.answer
            stated.add((s["relation"], s["neighbour"], s["edge_path"], s["edge_chars"][0]))
    assert stated == edges and {r for r, *_ in edges} == {"requires", "degrades", "part_of"}
