"""Question intent classification (English / Chinese), depth flag, subject terms."""

from __future__ import annotations

import pytest

from citewise.analysis.intent import classify_intent, subject_terms, subject_text
from citewise.evidence.budget import profile_for


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is the sync service?", "definition"),
        ("What are segments?", "definition"),
        ("What does RRF mean?", "definition"),
        ("Define abstention.", "definition"),
        ("什么是同步重试？", "definition"),
        ("同步重试是什么", "definition"),
        ("请解释同步重试机制", "definition"),
        ("How do I configure the retry limit?", "how_to"),
        ("How to rotate the API key", "how_to"),
        ("Steps to upgrade to 2.4.0", "how_to"),
        ("如何配置端口", "how_to"),
        ("怎么重置密码？", "how_to"),
        ("升级的步骤", "how_to"),
        ("What is the difference between v1 and v2?", "compare"),
        ("SQLite vs PostgreSQL", "compare"),
        ("Compare JSON and YAML payloads", "compare"),
        ("同步和异步的区别是什么", "compare"),
        ("两种模式有什么不同", "compare"),
        ("对比 SQLite 和 PostgreSQL", "compare"),
        ("Why does sync fail with HTTP 503?", "causal"),
        ("What causes the timeout?", "causal"),
        ("为什么同步失败", "causal"),
        ("同步失败的原因", "causal"),
        ("什么导致了超时", "causal"),
        ("retry limit", "generic"),
        ("sync.retry.max_attempts", "generic"),
        ("同步重试上限", "generic"),
    ],
)
def test_kinds(question: str, kind: str) -> None:
    assert classify_intent(question).kind == kind


@pytest.mark.parametrize(
    "question",
    [
        "hi",
        "Hello!",
        "hey there",
        "Thanks!",
        "thank you",
        "help",
        "Help please",
        "What can you do?",
        "How do I use citewise?",
        "你好",
        "您好！",
        "谢谢！",
        "你能做什么？",
    ],
)
def test_non_kb_whitelist(question: str) -> None:
    intent = classify_intent(question)
    assert intent.kind == "non_kb"
    assert intent.subject_terms == ()


@pytest.mark.parametrize(
    "question",
    [
        "Hello, why does sync fail?",
        "help me configure sync",
        "hello world example",
        "thanks to which setting is sync faster?",
        "你好，如何配置端口？",
        "How do I use citewise with PostgreSQL?",
    ],
)
def test_non_kb_is_whole_message_only(question: str) -> None:
    assert classify_intent(question).kind != "non_kb"


@pytest.mark.parametrize(
    ("question", "deep"),
    [
        ("Explain in depth how sync retries work", True),
        ("Analyze the sync failures in 2.4.0", True),
        ("Give a detailed analysis of the port change", True),
        ("请详细解释同步重试机制", True),
        ("深入分析同步失败的原因", True),
        ("What is the retry limit?", False),
        ("如何配置端口", False),
    ],
)
def test_deep_flag(question: str, deep: bool) -> None:
    assert classify_intent(question).deep is deep


def test_deep_does_not_change_kind() -> None:
    assert classify_intent("深入分析同步失败的原因").kind == "causal"
    assert classify_intent("Explain in depth why sync fails").kind == "causal"


def test_cue_explains_the_decision() -> None:
    assert classify_intent("Why is port 8443 closed?").cue == "why"
    assert classify_intent("什么是同步").cue == "什么是"


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("What is the sync service?", "sync service"),
        ("How do I configure the retry limit?", "configure retry limit"),
        ("What is the difference between SQLite and PostgreSQL?", "sqlite postgresql"),
        ("什么是同步重试？", "同步重试"),
        ("同步和异步的区别是什么", "同步 异步"),
        ("为什么同步失败", "同步失败"),
        ("Why does /api/v2/sync return HTTP 503?", "/api/v2/sync return http 503"),
    ],
)
def test_subject_text(question: str, subject: str) -> None:
    assert subject_text(question) == subject


def test_subject_terms_are_key_terms_without_question_words() -> None:
    assert subject_terms("What is the retry limit?") == ("retri", "limit")
    terms = subject_terms("Why does /api/v2/sync return HTTP 503?")
    assert "/api/v2/sync" in terms and "503" in terms
    assert "why" not in terms and "doe" not in terms
    # Chinese: bigrams inside jieba's words, never across them (no 步重)
    assert subject_terms("什么是同步重试？") == ("同步", "重试")
    assert "什么" not in subject_terms("同步重试是什么")
    assert subject_terms("What is it?") == ()
    assert classify_intent("What is the sync service?").subject_terms == ("sync", "servic")


@pytest.mark.parametrize(
    ("question", "profile"),
    [
        ("Explain in depth how sync retries work", "deep"),
        ("Why does sync fail with HTTP 503?", "causal"),
        ("Analyze why sync fails", "deep"),  # a depth request outweighs the kind
        ("全面分析同步失败", "deep"),
        ("为什么同步失败", "causal"),
        ("What is the sync service?", "base"),
        ("How do I configure the retry limit?", "base"),
        ("What is the difference between v1 and v2?", "base"),
        ("Why is v1 better than v2?", "base"),  # compare comes before causal
        ("retry limit", "base"),
        ("hello", "base"),
    ],
)
def test_profile_for_picks_the_evidence_budget(question: str, profile: str) -> None:
    assert profile_for(classify_intent(question)) == profile


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # how a regulation or a paper defines a term: a definition question
        ("How do NASA's age discrimination rules define age?", "definition"),
        ("How does the paper define tail latency?", "definition"),
        ("How is yield defined?", "definition"),
        # the asker defines something: still a how-to
        ("How do I define a boolean flag with an on and an off option?", "how_to"),
        ("How do we define a route with a path parameter?", "how_to"),
    ],
)
def test_how_a_text_defines_a_term(question: str, kind: str) -> None:
    assert classify_intent(question).kind == kind
