"""Subject presence (sufficiency/presence.py): which words of a question the evidence and
the cited text must hold. Generic words are never required; identifiers, labelled numbers,
names and rare words are; reasons use the question's own words and are true."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citewise.analysis.intent import classify_intent
from citewise.analysis.question import analyse
from citewise.analysis.tokenize import tokenize
from citewise.evidence.models import BUDGETS, BudgetUse, EvidencePack
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.gates import GateInput, generic_action, review
from citewise.sufficiency.models import Reason
from citewise.sufficiency.presence import (
    TermProfile,
    judge,
    label_found,
    labels_in,
    profile_terms,
    surface_words,
)
from tests.test_gates import frag

#: A toy knowledge base: "respons" is everywhere, "cookie" in two chunks, "kerbero" nowhere.
DF = {"sign": 4, "send": 3, "json": 2, "respons": 40, "cooki": 2, "session": 5, "starlett": 60}


def pack_of(*texts: str) -> EvidencePack:
    direct = tuple(frag(t, "Guide") for t in texts)
    use = BudgetUse(len(direct), 10, 100, 14, 1400, 5600, 350, 840, {})
    return EvidencePack(
        "q", "q", "generic", "base", "kb", 1, True, "ok", direct, (), (), (), (), (), (),
        BUDGETS["base"], use, "r",
    )  # fmt: skip


def profile(question: str, chunks: int = 100) -> TermProfile:
    return profile_terms(
        analyse(question), classify_intent(question).subject_terms, lambda t: DF.get(t, 0), chunks
    )


def required(question: str) -> list[str]:
    return [t.surface for t in profile(question).required]


def test_generic_verbs_and_kb_common_words_are_not_required_rare_ones_are() -> None:
    assert required("How do I send a JSON response?") == ["JSON"]
    # the product's own name is in most chunks: not a distinctive word
    assert required("How does Starlette sign the session cookie?") == ["cookie"]


def test_identifiers_are_required_whole_and_their_parts_are_not() -> None:
    p = profile("What does the follow_symlink option of StaticFiles do?")
    req = {t.surface: t.kind for t in p.required}
    assert req["follow_symlink"] == "identifier" and req["StaticFiles"] == "name"
    assert "follow" not in req and "symlink" not in req
    assert {t.surface for t in profile("Which value goes in X-Request-ID?").required} >= {
        "X-Request-ID"
    }


def test_surface_words_keep_the_question_spelling() -> None:
    words = surface_words(analyse("What happens before a task raises an exception?"))
    assert words["befor"] == "before" and words["rais"] == "raises"


def test_a_word_no_chunk_holds_is_absent_and_named_as_such() -> None:
    got = judge(profile("How do I configure Kerberos for the session cookie?"), ["cookies"])
    assert got.verdict == "absent" and str(got.reason) == "subject_absent:Kerberos"
    assert got.reason == Reason("subject_absent", "Kerberos", ("Kerberos",))


def test_reasons_list_only_words_really_missing_from_the_texts() -> None:
    question = "How do I rotate the session cookie secret?"
    texts = ["Rotate the secret key of a session every week."]
    got = judge(profile(question), texts)
    held = set(tokenize(" ".join(texts)))
    for word in got.missing:
        assert not set(tokenize(word)) & held, word
    assert got.verdict == "partial" and got.missing == ("cookie",)


def test_all_distinctive_words_missing_is_insufficient_some_missing_is_partial() -> None:
    p = profile("How do I sign the session cookie with a JSON key?")
    assert judge(p, ["Responses are sent as bytes."]).verdict == "absent"
    assert judge(p, ["The cookie is signed."]).verdict == "partial"
    assert judge(p, ["The JSON cookie is signed with a key."]).verdict == "ok"


def test_a_name_in_a_derived_form_counts() -> None:
    p = profile_terms(analyse("How does Config read values?"), ["config", "read"], lambda t: 3, 100)
    assert judge(p, ["The order in which configuration values are read is:"]).verdict == "ok"
    assert judge(p, ["Values are read from the environment."]).verdict != "ok"


def test_a_labelled_number_must_match_the_cited_text() -> None:
    assert labels_in(analyse("How much does the Lumen model 5 hold?")) == ("model 5",)
    assert labels_in(analyse("What changed in API v2?")) == ("version 2",)
    assert label_found("version 2", ["In API v2, payloads are YAML."])
    assert not label_found("model 5", ["The model 7 holds 12 litres."])
    assert not label_found("version 2", ["Version 2.1 is the latest."])
    p = profile("How much does the model 5 widget hold?")
    got = judge(p, ["The model 7 widget holds 12 litres."])
    why = str(got.reason)
    assert got.verdict == "absent" and why.startswith("near_miss:") and "model 5" in why
    assert got.reason is not None and got.reason.words == ("model 5",)


def test_cjk_bigrams_are_left_to_the_coverage_ratio() -> None:
    assert required("如何校准分光光度计") == []


def test_generic_how_to_verbs_do_not_decide_a_procedure() -> None:
    assert generic_action(classify_intent("How do I send a JSON response?"))
    assert not generic_action(classify_intent("How do I rotate an API token?"))
    assert not generic_action(classify_intent("How do I calibrate an instrument?"))


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path_factory.mktemp("docs")
    (corpus / "responses.md").write_text(
        "# Responses\n\n## JSONResponse\n\nJSONResponse takes some data and returns an "
        "application/json encoded response.\n\n```python\nreturn JSONResponse({'a': 1})\n```\n",
        "utf-8",
    )
    (corpus / "sessions.md").write_text(
        "# Sessions\n\nA session lasts two weeks by default.\n\n## Cookies\n\n"
        "The session cookie is signed with the secret key, so clients cannot change it.\n",
        "utf-8",
    )
    (corpus / "widgets.md").write_text(
        "# Widgets\n\nThe model 7 widget holds 12 litres of water.\n", "utf-8"
    )
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_a_generic_verb_the_documents_never_use_does_not_refuse(kb: KnowledgeBase) -> None:
    answer = kb.ask("How do I send a JSON response?")
    assert answer.outcome == "answered", answer.answer
    assert "JSONResponse" in answer.answer


def test_an_absent_subject_abstains_in_the_question_words(kb: KnowledgeBase) -> None:
    answer = kb.ask("How do I configure Kerberos for the session cookie?")
    assert answer.outcome == "insufficient_evidence"
    assert "do not mention: Kerberos" in answer.answer


def test_a_sibling_model_number_is_a_near_miss(kb: KnowledgeBase) -> None:
    answer = kb.ask("How many litres does the model 5 widget hold?")
    assert answer.outcome == "insufficient_evidence", answer.answer
    assert "12 litres" not in answer.answer and "model 5" in answer.answer


def test_a_how_to_without_steps_or_code_says_it_is_degraded(kb: KnowledgeBase) -> None:
    answer = kb.ask("How do I stop clients from changing the session cookie?")
    assert answer.outcome == "answered", answer.answer
    assert answer.to_json()["degradation"] == "partial_coverage"
    assert "intent_mismatch:how_to evidence has no steps" in answer.sufficiency.reason_texts


def test_review_uses_the_profile_instead_of_word_ratios() -> None:
    question = "How do I send a JSON response?"
    intent = classify_intent(question)
    pack = pack_of("JSONResponse takes data and returns an application/json response.")
    weighed = profile(question)
    # without weights, the verb "send" would be demanded of the evidence
    assert review(GateInput(analyse(question), intent, pack)).status == "insufficient"
    assert (
        review(GateInput(analyse(question), intent, pack, profile=weighed)).status != "insufficient"
    )
    absent = profile("How do I send a Kerberos ticket?")
    got = review(
        GateInput(analyse("How do I send a Kerberos ticket?"), intent, pack, profile=absent)
    )
    assert got.reason_texts == ("subject_absent:Kerberos",)


def test_a_claim_to_check_is_partial_not_refused_for_a_word_no_document_holds() -> None:
    claim = profile("Kerberos tickets protect the session cookie.")
    got = judge(claim, ["The session cookie is signed."])
    assert got.verdict == "partial" and "Kerberos" in got.missing
    question = profile("Do Kerberos tickets protect the session cookie?")
    assert judge(question, ["The session cookie is signed."]).verdict == "absent"


def test_plain_numbers_are_values_not_identifiers() -> None:
    assert [t.surface for t in profile("Are 1,000 cookies signed?").required] == ["cookies"]


def test_adverbs_and_contraction_stems_never_refuse_a_question() -> None:
    # "erroneously" no chunk holds: partial at most; "shouldn't" leaves "shouldn": no subject
    terms = {
        t.surface: t for t in profile("What lace is erroneously believed to be Flemish?").terms
    }
    assert terms["erroneously"].soft
    q = "Who thought that the session shouldn't be signed?"
    assert "shouldn" not in [t.key for t in profile(q).required]


def test_a_follow_up_check_verb_is_a_part_of_the_answer_not_its_subject() -> None:
    # "verify" is in no chunk: as the subject it would refuse the how-to, but here it asks
    # for the verification part, which the how-to profile checks (answer/coverage.py)
    p = profile("How do I sign the session cookie and verify the signature?")
    verify = next(t for t in p.terms if t.surface == "verify")
    assert verify.soft and verify.df == 0
    assert judge(p, ["Sign the session cookie with the secret key."]).verdict != "absent"
    # the same word as the question's subject is still required
    subject = next(
        t for t in profile("How do I verify a Kerberos ticket?").terms if t.surface == "verify"
    )
    assert not subject.soft


def test_a_bare_name_is_found_where_the_documents_qualify_it() -> None:
    """Documentation writes ``Response.iter_content`` where a user asks "iter_content":
    the qualified form holds the bare name (before, the evidence was "missing" it)."""
    question = "What is the difference between iter_content and r.raw?"
    df = {"iter_content": 1, "r.raw": 1, "iter": 5, "raw": 6}
    prof = profile_terms(
        analyse(question), classify_intent(question).subject_terms, lambda t: df.get(t, 0), 100
    )
    assert {"iter_content", "r.raw"} <= {t.key for t in prof.required}
    text = "Using ``Response.iter_content`` will handle what ``r.raw`` leaves to you."
    assert judge(prof, [text]).verdict == "ok"
    assert judge(prof, ["Using ``Response.content`` and ``r.raw``."]).verdict != "ok"
