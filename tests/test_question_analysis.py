"""The question is analysed once, into one typed value that the stages read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citewise.analysis.question as question_mod
from citewise.analysis.graph_intent import graph_deep, graph_intent
from citewise.analysis.intent import classify_intent
from citewise.analysis.named import named_terms
from citewise.analysis.question import Condition, ConditionSet, Question, analyse, english_letters
from citewise.analysis.tokenize import key_terms, term_coverage, tokenize
from citewise.evidence import assemble
from citewise.graph.select import graph_context
from citewise.kb import KnowledgeBase
from citewise.recall import meaning_model
from tests.conftest import one_file_kb

GUIDE = (
    "# Operations Guide\n\n## Key rotation\n\n"
    "How to rotate the zebracorn signing keys: open the console, then press Rotate.\n\n"
    "## Kafka S400 gateway\n\nThe Kafka S400 gateway retries a failed sync five times.\n"
)


def test_analyse_holds_every_reading_of_the_question() -> None:
    text = "How do I restart the Kafka S400 gateway in detail?"
    q = analyse(text)
    assert q.text == text
    assert q.intent == classify_intent(text)
    assert q.key_terms == tuple(key_terms(text))
    assert q.named_terms == named_terms(text) and "s400" in q.named_terms
    assert (q.graph_intent, q.graph_deep) == (graph_intent(text), graph_deep(text))
    assert q.conditions == ConditionSet()  # the question states no condition
    on_linux = analyse(text.replace("?", " on Linux?"))
    assert on_linux.conditions == ConditionSet((Condition("platform", "linux", "on Linux"),))
    stated = Question(**{**_fields(q), "conditions": on_linux.conditions})
    assert stated.conditions.value("platform") == "linux"


def _fields(q: Question) -> dict[str, object]:
    return {name: getattr(q, name) for name in Question.__dataclass_fields__}


@pytest.mark.parametrize(
    ("text", "pipeline", "graph"),
    [
        ("What is the latest version of the sync agent?", "definition", "edition"),
        ("Fix the sync error", "generic", "how_to"),
        ("What happens when the cursor expires?", "generic", "causal"),
        ("Why did the sync fail?", "causal", "causal"),
    ],
)
def test_the_two_classifiers_keep_their_own_results(text: str, pipeline: str, graph: str) -> None:
    q = analyse(text)
    assert (q.intent.kind, q.graph_intent) == (pipeline, graph)
    # the graph stage reads the graph's reading from the value, not the pipeline's
    assert graph_context(None, q).intent == graph


def test_depth_differs_between_the_readings() -> None:
    q = analyse("Analyze the failure")
    assert q.intent.deep and not q.graph_deep


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    return one_file_kb(tmp_path, monkeypatch, GUIDE)


def test_ask_analyses_the_question_once(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: dict[str, int] = {"intent": 0, "graph": 0, "named": 0}

    def counted(name: str, fn: object) -> object:
        def wrapper(text: str) -> object:
            calls[name] += 1
            return fn(text)  # type: ignore[operator]

        return wrapper

    monkeypatch.setattr(question_mod, "classify_intent", counted("intent", classify_intent))
    monkeypatch.setattr(question_mod, "graph_intent", counted("graph", graph_intent))
    monkeypatch.setattr(question_mod, "named_terms", counted("named", named_terms))
    answer = kb.ask("How do I rotate the zebracorn signing keys?")
    assert answer.intent == "how_to"
    # once for the whole answer: recall's graph route, the evidence stage and the
    # sufficiency gates all read the one analysed value
    assert calls == {"intent": 1, "graph": 1, "named": 1}


def test_later_readings_are_computed_once_from_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counted(text: str) -> list[str]:
        calls.append(text)
        return tokenize(text)

    monkeypatch.setattr(question_mod, "tokenize", counted)
    q = analyse("Which port does the v2.4.1 gateway listen on?")
    assert q.tokens == tuple(tokenize(q.text)) and "v2.4.1" in q.tokens
    assert q.tokens is q.tokens and len(calls) == 1  # kept on the value after the first read
    other = replace(q, text="Which port does the v3 gateway use?")
    assert "v3" in other.tokens and "v2.4.1" not in other.tokens  # a copy reads its own text


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("How do I rotate the keys?", True),
        ("What does café crème cost?", True),  # a few accented letters stay English
        ("如何轮换签名密钥？", False),
        ("Größe über Maß?", False),  # 8 of 12 letters ASCII: under 90 %
        ("¿Qué significa ñandú?", False),
        ("2024 - 2025?", False),  # no letter: nothing for an English reader
    ],
)
def test_english_is_read_from_the_letters(text: str, english: bool) -> None:
    assert analyse(text).english is english
    assert meaning_model.english(text) is english  # a search query reads the same rule


@given(st.text(max_size=40))
def test_english_agrees_with_the_query_reading_on_any_text(text: str) -> None:
    assert analyse(text).english == meaning_model.english(text) == english_letters(text)


def test_the_evidence_pack_keeps_the_question_it_was_assembled_for(kb: KnowledgeBase) -> None:
    q = analyse("How do I rotate the zebracorn signing keys?")
    pack = assemble(kb.context, q.text, question=q)
    assert pack.question is q  # the answer's later checks read it, not the text again
    assert assemble(kb.context, q.text).question == q  # analysed by assemble without one
    assert "question" not in pack.to_json()  # never written to the trace or the replay


WORDS = st.sampled_from(
    ["retry", "retries", "limit", "port", "8443", "v2.4.1", "the", "what", "is", "Kafka",
     "端口", "配置", "x-req-id", "S400", "?", "how", "many", "sync.batch_size"]
)  # fmt: skip


@given(st.lists(WORDS, max_size=8), st.lists(st.lists(WORDS, max_size=10), max_size=3))
def test_coverage_is_the_texts_term_coverage(asked: list[str], texts: list[list[str]]) -> None:
    q, read = analyse(" ".join(asked)), [" ".join(t) for t in texts]
    assert q.coverage(read) == term_coverage(q.text, read)
    assert q.coverage(" ".join(read)) == term_coverage(q.text, " ".join(read))
