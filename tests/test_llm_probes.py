"""The answer-probe suite with an LLM route configured: a scripted server that answers
extractively from the frozen items passes every case, and a model that adds an
unsupported sentence has it removed by the release review."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.answer.models import Answer
from citewise.core.search import SearchFilters
from citewise.eval.probes import check_case, citation_problems, load_cases
from citewise.kb import Home, KnowledgeBase
from citewise.llm.models import Route, Target
from citewise.llm.routes import RouteStore
from tests.llm_server import INVENTED, ScriptedLLM

SUITE = Path(__file__).parent / "probes"


class LLMKnowledgeBase(KnowledgeBase):
    """``check_case`` calls ``kb.ask``; this one always asks through the route."""

    route = "probe"

    def ask(  # type: ignore[override]
        self,
        question: str,
        *,
        filters: SearchFilters | None = None,
        llm: str | None = None,
        **more: Any,
    ) -> Answer:
        return super().ask(question, filters=filters, llm=llm or self.route, **more)


@pytest.fixture(scope="module")
def setup() -> Iterator[tuple[LLMKnowledgeBase, ScriptedLLM]]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    server = ScriptedLLM().start()
    with tempfile.TemporaryDirectory() as tmp, Home.open(Path(tmp) / "home") as h:
        store = RouteStore(h.settings.home)
        store.add(Route("probe", (Target("extractive-1", server.url, timeout=10),)))
        store.activate("probe")
        assert h.kb().add([SUITE / "corpus"]).ok
        yield LLMKnowledgeBase(h, "default"), server
    server.stop()
    mp.undo()


def test_every_probe_passes_with_an_llm_route(
    setup: tuple[LLMKnowledgeBase, ScriptedLLM],
) -> None:
    kb, server = setup
    cases = load_cases(SUITE)
    results = [check_case(kb, c) for c in cases]
    failures = [
        f"{r.id}: {'; '.join(r.problems)} | {r.answer[:160]}" for r in results if not r.passed
    ]
    assert not failures, "\n".join(failures)
    answered = [
        c
        for c, r in zip(cases, results, strict=True)
        # graph cases: answer/relation.py; condition cases: composed per condition,
        # extractively (answer/pipeline.py records llm_skipped)
        if r.outcome == "answered" and c["kind"] not in ("graph", "condition", "follow_up")
    ]
    assert answered
    # The model really wrote the answers (no silent extractive fallback is configured).
    assert len(server.calls("generate")) >= len(answered) - 5


@pytest.mark.parametrize(
    "question",
    [
        "Which supplier is approved for quartz cuvettes?",
        "How must replacement cuvettes be prepared before first use?",
    ],
)
def test_unsupported_model_sentence_is_removed(
    setup: tuple[LLMKnowledgeBase, ScriptedLLM], question: str
) -> None:
    kb, server = setup
    server.queue("extractive-1", "extractive+unsupported")
    answer = kb.ask(question)
    assert answer.outcome == "answered"
    assert answer.trace["answer_source"] == "llm:probe/extractive-1"
    assert INVENTED not in answer.answer
    dropped = [c for c in answer.claims if not c.kept]
    assert [c.text for c in dropped] == [INVENTED]
    assert not citation_problems(kb, answer)


def test_a_procedure_is_one_whole_item_of_the_frozen_set(
    setup: tuple[LLMKnowledgeBase, ScriptedLLM],
) -> None:
    """The item limit never cuts a numbered procedure: the steps the evidence touches are
    sent as one item holding the exact source text from the first step to the last."""
    kb, _ = setup
    answer = kb.ask("How do I calibrate a Lumen spectrophotometer?")
    assert answer.outcome == "answered"
    items = answer.trace["llm"]["payload"]["items"]
    source = (SUITE / "corpus" / "calibration-procedure.md").read_text(encoding="utf-8")
    steps = [i for i in items if i["path"] == "calibration-procedure.md" and i["chars"] > 300]
    assert len(steps) == 1
    text = source[steps[0]["char_start"] : steps[0]["char_end"]]
    assert text.startswith("1. Open Lumen Console") and text.rstrip().endswith("certificate.")
    assert [line[:2] for line in text.splitlines()] == ["1.", "2.", "3.", "4.", "5.", "6."]
    # each step is cited on its own exact span inside that item
    cited = [c for c in answer.citations if c.path == "calibration-procedure.md"]
    assert len(cited) >= 6
    for c in cited:
        assert source[c.char_start : c.char_end] == c.excerpt
