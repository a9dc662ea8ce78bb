"""The typed answer contract: reasons are ``Reason`` values emitted as ``kind:detail``
strings, answers and claims are built by keyword, and the JSON an answer emits (with its
trace) holds plain JSON values only, in the shape the trace types declare."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from citewise.answer.models import Answer, AnswerTrace, Claim
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.models import Judgement, Reason, Sufficiency

DOCS = {
    "pumps.md": (
        "# Pumps\n\nA pump moves coolant through the loop. Pumps run at 40 litres per "
        "minute.\n\n## Gaskets\n\nA gasket seals the pump housing. Gaskets are made of "
        "nitrile rubber.\n\n## Installing a pump\n\n1. Close the valve.\n"
        "2. Bolt the pump to the frame.\n3. Open the valve.\n"
    ),
}


def test_a_reason_is_emitted_as_its_kind_detail_string_and_parsed_back() -> None:
    assert str(Reason("citation_missing")) == "citation_missing"
    assert str(Reason("subject_absent", "")) == "subject_absent:"
    assert str(Reason("conflict", "2 unresolved")) == "conflict:2 unresolved"
    for text in ("over_budget", "subject_absent:", "llm_judge_failed:http:503", "a:b"):
        assert str(Reason.parse(text)) == text
    assert Reason.parse("llm_judge:insufficient") == Reason("llm_judge", "insufficient")


def test_sufficiency_and_judgement_trace_forms_keep_the_string_reasons() -> None:
    why = Reason("partial_coverage", "not found: cold", ("cold",))
    suff = Sufficiency("borderline", "partial_coverage", (why,), True)
    assert json.dumps(suff.to_json()) == (
        '{"status": "borderline", "degradation": "partial_coverage", '
        '"reasons": ["partial_coverage:not found: cold"], "recoverable": true}'
    )
    assert suff.reason_texts == ("partial_coverage:not found: cold",)
    ok = Judgement("ok", (), None)
    assert ok.to_json() == {"verdict": "ok", "missing": (), "reason": ""}


def test_answers_and_claims_are_built_by_keyword_only() -> None:
    with pytest.raises(TypeError):
        Claim("text", (1,), 0.0, "", True)  # type: ignore[misc]
    suff = Sufficiency("sufficient", "none", ())
    with pytest.raises(TypeError):
        Answer("answered", "x", (), "none", suff, "r", "t", "generic", "kb", 1)  # type: ignore[misc]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus: Path = tmp_path_factory.mktemp("corpus")
    for name, text in DOCS.items():
        (corpus / name).write_text(text, "utf-8")
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def _walk(obj: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _walk(v)


@pytest.mark.parametrize(
    "question",
    [
        "What are gaskets made of and how cold can pumps run?",  # partial: reasons
        "How do I install a pump?",
        "How do I configure Kerberos for the pump?",  # insufficient
        "hello",
    ],
)
def test_answer_json_holds_string_reasons_and_declared_trace_sections(
    kb: KnowledgeBase, question: str
) -> None:
    answer = kb.ask(question)
    out = answer.to_json(with_trace=True)
    json.dumps(out)  # plain JSON values only (a Reason would raise here)
    for key, value in _walk(out):
        if key == "reasons":
            assert all(isinstance(r, str) for r in value), value
        assert not (isinstance(value, dict) and {"kind", "detail", "words"} <= value.keys())
    declared = list(get_type_hints(AnswerTrace))
    keys = list(out["trace"])
    assert set(keys) <= set(declared)
    assert keys == sorted(keys, key=declared.index)  # the order the pipeline writes
    assert out["sufficiency"]["reasons"] == list(answer.sufficiency.reason_texts)
    # the ledger saves the same JSON (with its trace) the CLI and HTTP emit
    saved = kb.store.ledger.get_answer(answer.trace_id)["answer"]
    assert saved == json.loads(json.dumps(out))
