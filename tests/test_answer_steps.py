"""``ask`` as an explicit pipeline (issue 33): the runner calls the named steps in order,
times each, stops at the first that answers and keeps its timings out of the trace; a
step that reads a field no earlier step set says so; only ``sufficiency/`` builds a
verdict; the stage functions taking the question as text do not grow back."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from bench.question_params import STAGES, question_params

from citewise.analysis.question import analyse
from citewise.answer.pipeline import ask_run
from citewise.answer.steps.evidence import recover_step
from citewise.answer.steps.runner import STEPS
from citewise.answer.steps.state import AskState
from citewise.kb import Home
from citewise.sufficiency.models import Reason, Sufficiency
from citewise.sufficiency.verdict import partial, ranked_higher, refused, with_reason

SRC = Path(__file__).resolve().parents[1] / "src" / "citewise"
DOC = (
    "# Widgets\n\nA widget is a small blue part that holds the frame together.\n\n"
    "## Installing a widget\n\n1. Open the frame.\n2. Press the widget into the slot.\n"
)
ORDER = ["analyse", "recall", "assemble", "table_cell", "judge", "recover", "conditions", "compose"]


@pytest.fixture(autouse=True)
def _dense_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


@pytest.fixture
def widgets(tmp_path: Path) -> Iterator[Home]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "widgets.md").write_text(DOC, "utf-8")
    with Home.open(tmp_path / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h


def test_the_steps_are_the_declared_order() -> None:
    assert [name for name, _ in STEPS] == [*ORDER, "review", "finish"]


@pytest.mark.parametrize(
    ("question", "ended_at", "outcome"),
    [
        ("Hello!", "analyse", "non_kb_reply"),
        ("What is the boiling point of mercury?", "compose", "insufficient_evidence"),
        ("What is a widget?", "finish", "answered"),
    ],
)
def test_the_runner_stops_at_the_step_that_answers_and_times_each(
    widgets: Home, question: str, ended_at: str, outcome: str
) -> None:
    ctx = widgets.kb().context
    run = ask_run(ctx, analyse(question))
    assert run.answer.outcome == outcome
    assert run.ended_at == ended_at
    names = [t.step for t in run.times]
    assert names == [n for n, _ in STEPS][: names.index(ended_at) + 1]
    assert all(t.ms >= 0 for t in run.times)
    # the timings stay the runner's: nothing time-like enters the trace
    keys = json.dumps(run.answer.trace)
    assert '"ms"' not in keys and "duration" not in keys


def test_the_trace_keeps_the_order_the_steps_write_it(widgets: Home) -> None:
    answer = widgets.kb().ask("What is a widget?")
    assert list(answer.trace)[:6] == [
        "question",
        "intent",
        "retrieval",
        "terms",
        "recovery",
        "pack",
    ]
    assert answer.trace["question"] == "What is a widget?"
    assert answer.outcome == "answered" and "small blue part" in answer.answer


def test_a_step_run_out_of_order_names_the_missing_field(widgets: Home) -> None:
    state = AskState(kb=widgets.kb().context, question=analyse("What is a widget?"))
    with pytest.raises(RuntimeError, match="verdict is read before the step that sets it"):
        recover_step(state)
    assert replace(state, revision=3).revision == 3  # frozen: steps return copies


def test_verdicts_after_the_review_are_built_by_name() -> None:
    ok = Sufficiency("sufficient", "none", ())
    low = Sufficiency("borderline", "conflict", ())
    why = Reason("near_miss", "the cited text speaks of another thing")
    assert refused(why) == Sufficiency("insufficient", "insufficient_evidence", (why,))
    assert partial(ok, why).degradation == "partial_coverage"
    assert partial(low, why).degradation == "conflict"  # a worse degradation stays
    assert with_reason(ok, why).reasons == (why,) and with_reason(ok, why).status == "sufficient"
    assert ranked_higher(ok, low) and not ranked_higher(low, low)


def test_only_the_sufficiency_stage_constructs_a_verdict() -> None:
    builders = []
    for path in SRC.rglob("*.py"):
        if path.parent.name == "sufficiency":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Sufficiency"
            ):
                builders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not builders, f"build the verdict with citewise.sufficiency.verdict: {builders}"


def test_no_stage_function_takes_the_question_as_text() -> None:
    # was a ratchet (80 on the base commit, 71 before the last conversion): now none, so
    # a stage function that reads the question takes the analysed Question and its parts
    as_text = [r for r in question_params(SRC) if r[3] == "str"]
    assert not as_text, "\n".join(f"{p}:{line} {name}" for p, line, name, _ in as_text)


def test_a_question_parameter_is_the_analysed_question_whatever_its_annotation() -> None:
    # the counter reads `str` and `Question`; `Any`, `object` or a union would dodge it
    found = _question_annotations(SRC)
    other = {k: v for k, v in found.items() if k not in ("Question", "Question | None")}
    assert not other, other
    assert found["Question"] > 80  # the rule reads the stage functions, not nothing


def test_the_counter_finds_a_question_taken_as_text(tmp_path: Path) -> None:
    stage = tmp_path / "answer"
    stage.mkdir()
    (stage / "m.py").write_text(
        "def f(question: str) -> None: ...\n"
        "def g(question: Question) -> None: ...\n"
        "def h(text: str) -> None: ...\n",
        "utf-8",
    )
    assert [(r[2], r[3]) for r in question_params(tmp_path)] == [("f", "str"), ("g", "Question")]
    (stage / "m.py").write_text("def f(question: object) -> None: ...\n", "utf-8")
    assert _question_annotations(tmp_path) == {"object": 1}


def _question_annotations(root: Path) -> dict[str, int]:
    """Annotation -> count of the parameters named ``question`` in the stage packages."""
    found: dict[str, int] = {}
    for stage in STAGES:
        for path in sorted((root / stage).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    a = node.args
                    for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
                        if arg.arg == "question":
                            kind = ast.unparse(arg.annotation) if arg.annotation else "none"
                            found[kind] = found.get(kind, 0) + 1
    return found
