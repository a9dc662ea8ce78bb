"""Chinese wording (issue 39): the message catalogue, the reader's language (question,
``--lang``, ``lang``, ``Accept-Language``), the worded answer and its one status line,
through the library, the CLI and HTTP. Replay ids and machine codes never change with
the language; the ledger saves the answer as it was shown, and replay words it alike."""

from __future__ import annotations

import ast
import io
import re
import string
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from citewise.analysis.language import LANGS, from_accept_language, language_of, parse_lang
from citewise.answer.models import Answer
from citewise.answer.wording import status_line
from citewise.cli import output as ui
from citewise.cli.root import app
from citewise.core.messages import CATALOGUE, keys_under, say
from citewise.errors import UsageError
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.models import Reason, Sufficiency
from tests._server import running_server

SRC = Path(__file__).parents[1] / "src" / "citewise"
STATIC = SRC / "server" / "static"

RETRY = "# Retry\n\nThe default retry limit is 5 attempts for every job.\n"
ZH = "# 重试\n\n默认重试次数为每个任务 5 次。\n"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("wording")
    docs = root / "docs"
    docs.mkdir()
    (docs / "retry.md").write_text(RETRY, encoding="utf-8")
    (docs / "zh-retry.md").write_text(ZH, encoding="utf-8")
    with Home.open(root / "home") as home:
        base = home.kb()
        base.add([docs])
        yield base
    mp.undo()


# -- the catalogue ---------------------------------------------------------------------
def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_has_both_languages_with_the_same_fields() -> None:
    for key, entry in CATALOGUE.items():
        assert set(entry) == set(LANGS), key
        assert all(entry[lang].strip() for lang in LANGS), key
        assert _fields(entry["en"]) == _fields(entry["zh"]), key
        assert re.search(r"[\u4e00-\u9fff]", entry["zh"]) or not re.search(
            r"[A-Za-z]{3,} [a-z]{3,}", entry["zh"]
        ), f"{key}: the Chinese text is English"


def test_every_outcome_and_degradation_code_has_words() -> None:
    from typing import get_args

    from citewise.answer.models import Outcome
    from citewise.sufficiency.models import Degradation

    for code in get_args(Outcome):
        assert f"outcome.{code}" in CATALOGUE
    for code in get_args(Degradation):
        assert f"degradation.{code}" in CATALOGUE


#: Modules whose user-facing words all come from the catalogue.
CONVERTED = (SRC / "answer" / "wording.py",)
_ENGLISH_PHRASE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}")


def test_no_english_phrase_outside_the_catalogue_in_converted_modules() -> None:
    for path in CONVERTED:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and id(node) not in docstrings:
                assert not _ENGLISH_PHRASE.search(text), (path.name, text)


def test_the_page_labels_are_all_catalogue_keys() -> None:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    script = "".join(p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js")))
    used = set(re.findall(r'data-label(?:-[a-z]+)?="([\w.]+)"', page))
    used |= set(re.findall(r'"(web\.[a-z_]+)"', script))
    assert used, "the page names no label key"
    assert used <= set(keys_under("web.")), used - set(keys_under("web."))
    assert set(keys_under("web.")) <= used, set(keys_under("web.")) - used


# -- the reader's language -------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("What is the default retry limit?", "en"),
        ("默认重试次数是多少？", "zh"),
        ("Harbor 的默认重试次数是多少？", "zh"),  # a name in Latin letters inside Chinese
        ("デフォルトの再試行回数は？", "en"),  # kana: Japanese, not Chinese
        ("Qu'est-ce que la limite ?", "en"),
    ],
)
def test_the_question_decides_the_language(text: str, lang: str) -> None:
    assert language_of(text) == lang


def test_an_explicit_choice_is_checked() -> None:
    assert parse_lang("zh-CN") == "zh"
    assert parse_lang("EN_gb") == "en"
    with pytest.raises(UsageError, match=r"'en'.*'zh'"):
        parse_lang("fr")


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("en-US,en;q=0.9", "en"),
        ("fr-FR, en;q=0.5, zh;q=0.7", "zh"),
        ("fr", None),
        ("*", None),
        ("zh;q=0", None),
        ("", None),
        (None, None),
    ],
)
def test_accept_language(header: str | None, lang: str | None) -> None:
    assert from_accept_language(header) == lang


@given(st.text(max_size=200))
def test_accept_language_never_fails(header: str) -> None:
    assert from_accept_language(header) in (None, *LANGS)


# -- the status line -------------------------------------------------------------------
def _answer(outcome: str, degradation: str, status: str, *reasons: Reason) -> Answer:
    return Answer(
        outcome=outcome,  # type: ignore[arg-type]
        answer="x",
        citations=(),
        degradation=degradation,  # type: ignore[arg-type]
        sufficiency=Sufficiency(status, degradation, reasons),  # type: ignore[arg-type]
        replay_id="rp_x",
        trace_id="t_x",
        intent="definition",
        kb="default",
        revision=1,
    )


def test_a_degraded_answer_says_what_is_partial_and_never_sufficient() -> None:
    missing = Reason("partial_coverage", "not found: backoff", ("backoff",))
    a = _answer("answered", "partial_coverage", "borderline", missing)
    en, zh = status_line(a, "en"), status_line(a, "zh")
    assert en.startswith("Answered") and "only in part" in en and "backoff" in en
    assert "sufficient" not in en and "borderline" not in en
    assert zh.startswith("已根据文档作答") and "仅部分作答" in zh and "backoff" in zh


def test_outcome_comes_first_then_the_degradation() -> None:
    conflict = _answer("answered", "conflict", "sufficient", Reason("conflict", "1 unresolved"))
    line = status_line(conflict, "en")
    assert line.index("Answered") < line.index("the sources disagree")
    refused = _answer(
        "insufficient_evidence", "insufficient_evidence", "insufficient", Reason("x_y", None)
    )
    assert status_line(refused, "en").startswith("Not answered")
    assert status_line(refused, "zh") == "未作答：知识库中没有足够的证据（其他原因（x_y））。"


# -- through the library, the CLI and HTTP ---------------------------------------------
def test_a_chinese_question_is_worded_in_chinese_with_the_same_replay_id(
    kb: KnowledgeBase,
) -> None:
    question = "Kafka 的分区数是多少？"  # no document names Kafka
    zh = kb.ask(question)
    en = kb.ask(question, lang="en")
    assert zh.outcome == en.outcome == "insufficient_evidence"
    assert zh.replay_id == en.replay_id  # wording is no part of the replay id
    assert zh.sufficiency.reason_texts == en.sufficiency.reason_texts  # codes unchanged
    assert zh.answer.startswith("知识库中没有足够的证据") and "Kafka" in zh.answer
    assert en.answer.startswith("The knowledge base does not hold enough evidence")
    assert zh.to_json()["display"]["lang"] == "zh"
    assert zh.to_json()["display"]["status_line"].startswith("未作答")
    saved = kb.store.ledger.get_answer(zh.trace_id)["answer"]
    assert saved["answer"] == zh.answer and saved["display"] == zh.display  # as shown


def test_quotations_are_never_translated(kb: KnowledgeBase) -> None:
    en = kb.ask("What is the default retry limit?", lang="zh")
    assert en.outcome == "answered"
    assert "The default retry limit is 5 attempts" in en.answer
    assert en.display is not None and en.display["status_line"].startswith("已根据文档作答")


def test_a_greeting_is_answered_in_its_language(kb: KnowledgeBase) -> None:
    assert kb.ask("你好").answer == say("non_kb.reply", "zh")
    assert kb.ask("Hello").answer == say("non_kb.reply", "en")


def test_cli_lang_option(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    home = kb.home.settings.home
    out = io.StringIO()
    monkeypatch.setattr(ui, "out", Console(file=out, width=300, highlight=False))
    result = CliRunner().invoke(
        app, ["ask", "What is the default retry limit?", "--lang", "zh", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert "已根据文档作答" in out.getvalue()
    bad = CliRunner().invoke(app, ["ask", "q?", "--lang", "fr", "--home", str(home)])
    assert isinstance(bad.exception, UsageError) and bad.exception.exit_code == 2
    assert "Unknown language 'fr'" in str(bad.exception) and "'zh'" in str(bad.exception)


@pytest.mark.subprocess
def test_http_accept_language_and_lang(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "retry.md").write_text(RETRY, encoding="utf-8")
    with running_server(tmp_path / "home") as url, httpx.Client(base_url=url, timeout=120) as c:
        files = [("files", ("retry.md", RETRY.encode(), "text/markdown"))]
        assert c.post("/kb/default/documents", files=files).status_code == 201
        ask = "/kb/default/ask"
        q = {"question": "How do I configure Kafka?"}
        assert c.post(ask, json=q).json()["display"]["lang"] == "en"
        zh = c.post(ask, json=q, headers={"Accept-Language": "zh-CN,en;q=0.5"}).json()
        assert zh["display"]["lang"] == "zh" and zh["answer"].startswith("知识库")
        body = {**q, "lang": "en"}  # the body's choice wins over the header
        both = c.post(ask, json=body, headers={"Accept-Language": "zh"}).json()
        assert both["display"]["lang"] == "en"
        assert both["replay_id"] == zh["replay_id"]
        asked_zh = c.post(ask, json={"question": "Kafka 怎么配置？"}).json()
        assert asked_zh["display"]["lang"] == "zh"
        bad = c.post(ask, json={**q, "lang": "xx"})
        assert bad.status_code == 400 and "'zh'" in bad.json()["error"]["message"]
        labels = c.get("/ui/labels", params={"lang": "zh"}).json()
        assert labels["web.ask"] == "提问" and set(labels) == set(keys_under("web."))
        assert (
            c.get("/ui/labels", headers={"Accept-Language": "zh-CN"}).headers["Content-Language"]
            == "zh"
        )


def test_a_worded_answer_replays_to_the_same_answer(kb: KnowledgeBase) -> None:
    from citewise.audit.bundle import export_bundle, replay

    for question, lang in (("Kafka 的分区数是多少？", None), ("Kafka partitions?", "zh")):
        shown = kb.ask(question, lang=lang)
        report = replay(kb.home, export_bundle(kb.home, shown.trace_id))
        assert report["status"] == "reproduced", report
        assert report["same_replay_id"] and report["same_answer"], report


def test_generation_unavailable_is_worded_from_its_codes() -> None:
    from citewise.answer.wording import worded

    a = _answer("generation_unavailable", "none", "sufficient")
    a = Answer(**{**{f: getattr(a, f) for f in a.__dataclass_fields__}, "trace": {}})
    a.trace["llm"] = {"reason": "llm_unreachable: connection refused"}  # type: ignore[typeddict-item]
    zh = worded(a, "zh")
    assert zh.answer.startswith("没有已配置的模型") and "llm_unreachable" in zh.answer
    assert "rp_x" in zh.answer  # the replay id stays in the text
    assert zh.display is not None and zh.display["outcome"] == "未能生成回答"
    assert worded(a, "en").answer == "x"  # English keeps the text the writer gave


def test_a_condition_refusal_names_the_condition_in_words() -> None:
    from citewise.answer.wording import worded

    reason = Reason("condition_missing", " platform", ("platform",))
    base = _answer("insufficient_evidence", "insufficient_evidence", "insufficient", reason)
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    a = Answer(**{**fields, "trace": {"conditions": {"missing_values": ["linux", "windows"]}}})
    zh = worded(a, "zh")
    assert zh.answer == (
        "答案取决于问题中未说明的平台：文档对 linux、windows 的回答各不相同。"
        "请注明其中一项后重新提问。"
    )
    assert zh.display is not None and "平台" in zh.display["status_line"]
    en = worded(a, "en")
    assert en.display is not None
    assert (
        "depends on the platform, which the question does not state" in (en.display["status_line"])
    )


@pytest.mark.parametrize(
    "reason",
    [
        Reason("constraint_unmet", "the closest passage found gives no figure for '多少'"),
        Reason(
            "constraint_unmet",
            "no passage found mentions half of: 监察法, 责令",
            ("监察法", "责令"),
        ),
        Reason("subject_scattered", "no passage holds two of 审计, 日志", ("审计", "日志")),
        Reason("subject_missing", "飞越, 上空", ("飞越", "上空")),
        Reason("near_miss", "the cited text speaks of 'X', not 'Y'"),
        Reason("partial_coverage", "the documents mention a but do not say what it is"),
        Reason("no_direct_evidence", "the best lexical match covers 20% of the key terms"),
        Reason("some_new_gate", "an English sentence from a gate not in the catalogue"),
    ],
)
def test_a_chinese_refusal_holds_no_english_sentence(reason: Reason) -> None:
    from citewise.answer.wording import worded

    a = _answer("insufficient_evidence", "insufficient_evidence", "insufficient", reason)
    zh = worded(a, "zh")
    assert zh.display is not None
    for text in (zh.answer, zh.display["status_line"]):
        assert text.startswith(("知识库", "未作答")), text
        assert not _ENGLISH_PHRASE.search(text), text


def test_mcp_ask_takes_lang(kb: KnowledgeBase) -> None:
    import asyncio
    import json

    from mcp import Client

    from citewise.facade.caller import LOCAL
    from citewise.facade.service import Service
    from citewise.mcp_server import build_server

    server = build_server(Service(kb.home), LOCAL)

    async def ask(args: dict[str, str]) -> dict[str, object]:
        async with Client(server) as client:
            result = await client.call_tool("ask", args)
            out: dict[str, object] = json.loads(result.content[0].text)
            return out

    q = "How do I configure Kafka?"
    zh = asyncio.run(ask({"question": q, "lang": "zh"}))
    en = asyncio.run(ask({"question": q}))
    assert zh["display"]["lang"] == "zh" and str(zh["answer"]).startswith("知识库")  # type: ignore[index]
    assert en["display"]["lang"] == "en"  # type: ignore[index]
    assert zh["replay_id"] == en["replay_id"]


def test_a_gate_sentence_s_quoted_words_carry_into_chinese() -> None:
    """A refusal's gate sentence is English; in Chinese the words it quotes (the
    question's and the passage's own) stay, as a pair for a passage's words in place of
    the question's (the near-miss class) and as a list otherwise."""
    from citewise.answer.wording import reason_words
    from citewise.sufficiency.models import Reason

    pair = Reason("constraint_unmet", "the closest passage found says '十年', not '三十年'")
    zh = reason_words(pair, "zh")
    assert "十年" in zh and "三十年" in zh and zh.index("十年") < zh.index("三十年")
    assert "closest" not in zh
    assert reason_words(pair, "en") == pair.detail
    other = Reason("constraint_unmet", "the closest passage found does not say 'never'")
    assert "“never”" in reason_words(other, "zh")
    plain = Reason("constraint_unmet", "no passage found gives a date")
    assert reason_words(plain, "zh") == say("reason.constraint_unmet", "zh")
