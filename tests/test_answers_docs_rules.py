"""Rules for right, complete answers on documentation (issue 15, second round): evidence
spans are chosen by the question's distinctive terms,
change records weigh below the reference, answers complete their distinctive terms, and
a sibling compound ("thread pool" for "process pool") is a near miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.composition.compose import Candidate, complete_terms
from citewise.answer.doc_role import (
    CHANGE_RECORD_FACTOR,
    asks_about_change,
    is_change_record,
    role_factor,
)
from citewise.config import IngestConfig
from citewise.evidence.docview import DocView
from citewise.evidence.models import Fragment
from citewise.evidence.sentences import Span
from citewise.evidence.spans import select_spans
from citewise.ingest.parse import parse_document
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.compounds import sibling_compound
from citewise.sufficiency.presence import profile_terms


def _kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> KnowledgeBase:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in files.items():
        (corpus / name).write_text(text, encoding="utf-8")
    base = Home.open(tmp_path / "home").kb()
    assert base.add([corpus]).ok
    return base


# -- spans by distinctive terms --------------------------------------------------------

_SPLIT = (
    "# Options\n\n## Values from the environment\n\n"
    "Options can take multiple values from environment variables in Click. "
    "The default splits on whitespace. "
    "On Unix the Path type splits on every colon.\n"
)


def _view(text: str) -> DocView:
    doc = parse_document(text.encode(), name="o.md", kb="k", doc_path="o.md", config=IngestConfig())
    return DocView("d", "o.md", 1, 1, text, list(doc.nodes))


def test_spans_prefer_the_distinctive_terms_over_the_common_ones() -> None:
    view = _view(_SPLIT)
    para = next(n for n in view.units if n.kind == "paragraph")
    terms = ["click", "split", "environ", "variabl", "multipl", "valu", "path", "option", "unix"]
    weights = {t: 1.0 for t in terms} | {"path": 4.0, "unix": 5.0, "split": 3.0}

    def chosen(w: dict[str, float] | None) -> list[str]:
        found = select_spans(view, [para], terms, max_spans=1, min_coverage=0.3, weights=w)
        return [_SPLIT[s.start : s.end] for s in found]

    assert chosen(None) == ["Options can take multiple values from environment variables in Click."]
    assert chosen(weights) == ["On Unix the Path type splits on every colon."]


def test_a_second_span_adds_new_terms_rather_than_repeat_the_first() -> None:
    text = (
        "# Guide\n\nThe zebra ledger keeps zebra ledger entries. "
        "Each zebra ledger entry is a zebra ledger row. "
        "Rotation of the ledger happens nightly.\n"
    )
    view = _view(text)
    para = next(n for n in view.units if n.kind == "paragraph")
    terms = ["zebra", "ledger", "rotat"]
    weights = {"zebra": 1.0, "ledger": 1.0, "rotat": 3.0}
    found = select_spans(view, [para], terms, max_spans=2, min_coverage=0.3, weights=weights)
    texts = " ".join(text[s.start : s.end] for s in found)
    assert "Rotation of the ledger" in texts


# -- document roles --------------------------------------------------------------------


def test_change_records_are_recognised_by_name_or_title() -> None:
    for path in ("docs/release-notes.md", "CHANGES.md", "docs/changelog.rst", "HISTORY.md"):
        assert is_change_record(path)
    assert is_change_record("docs/upgrade-guides.md")
    assert is_change_record("docs/page.md", "What's New in 2.0")
    for path in ("docs/install.md", "docs/exchanges.md", "docs/changing-colors.md"):
        assert not is_change_record(path)


def test_change_records_weigh_less_unless_the_question_asks_about_change() -> None:
    q = "Which extra packages does typer come with by default?"
    assert not asks_about_change(analyse(q))
    assert role_factor(analyse(q), "docs/release-notes.md") == CHANGE_RECORD_FACTOR < 1.0
    assert role_factor(analyse(q), "docs/install.md") == 1.0
    for asked in ("What changed in 0.12?", "Which release added typer-slim?", "Is X deprecated?"):
        assert asks_about_change(analyse(asked))
        assert role_factor(analyse(asked), "docs/release-notes.md") == 1.0


def test_the_reference_page_answers_before_the_release_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _kb(
        tmp_path,
        monkeypatch,
        {
            "release-notes.md": "# Release Notes\n\n## 2.1\n\n"
            "* Now the gizmo package comes with the spark and flint extras by default.\n",
            "install.md": "# Install\n\n"
            "By default, the gizmo package comes with the spark and flint extras.\n",
        },
    )
    ans = kb.ask("Which extras does the gizmo package come with by default?")
    assert ans.outcome == "answered"
    assert ans.citations[0].path == "install.md"


# -- complete answers ------------------------------------------------------------------


def _cand(text: str, score: float, start: int, section: str = "") -> Candidate:
    frag = Fragment(
        "direct_support",
        "d",
        "p.md",
        1,
        1,
        ("n",),
        1,
        1,
        0,
        500,
        (),
        "x" * 500,
        10,
        False,
        "n:0-500",
    )
    return Candidate(
        frag, Span(start, start + len(text), text), text, score, (0, start), (), "sentence", section
    )


def test_an_answer_adds_the_unit_that_holds_a_missing_distinctive_term() -> None:
    lead = _cand("Options take multiple values from environment variables.", 0.8, 0)
    unix = _cand("On Unix the Path type splits on every colon.", 0.4, 100)
    weak = _cand("Unix is mentioned here too.", 0.1, 200)
    other = _cand("Flags read environment variables as booleans.", 0.5, 300)
    pool = [lead, other, unix, weak]
    assert complete_terms([lead], pool, ("path", "unix")) == [lead, unix]
    assert complete_terms([lead], pool, ()) == [lead]
    # a unit far below the best is no completion
    assert complete_terms([lead], [lead, weak], ("unix",)) == [lead]


def test_needed_terms_are_the_required_distinctive_ones() -> None:
    df = {"path": 3, "unix": 2, "split": 5, "option": 80, "click": 200}
    prof = profile_terms(
        analyse("How does Click split values for Path options on Unix?"),
        ["click", "split", "valu", "path", "option", "unix"],
        lambda t: df.get(t, 0),
        200,
    )
    assert {"path", "unix"} <= set(prof.needed)
    assert "click" not in prof.needed and "option" not in prof.needed


# -- sibling compounds -----------------------------------------------------------------


def test_a_sibling_compound_in_the_cited_text_is_a_near_miss() -> None:
    cited = ["The default thread pool size is only 40 tokens.", "Thread Pool"]
    sib = sibling_compound(analyse("What is the default size of the process pool?"), cited)
    assert sib is not None and (sib.asked, sib.cited) == ("process pool", "thread pool")
    sib = sibling_compound(
        analyse("How do I generate a man page?"),
        ["Click generates help pages for you.", "Help Pages"],
    )
    assert sib is not None and sib.cited == "help pages"


def test_no_sibling_when_the_head_stands_alone_or_the_modifier_is_generic() -> None:
    cited = ["Used to add multiple background tasks to a response."]
    assert (
        sibling_compound(
            analyse("How do I attach several background tasks to a single response?"), cited
        )
        is None
    )
    assert (
        sibling_compound(analyse("What is the thread pool size?"), ["The thread pool size is 40."])
        is None
    )
    # the asked modifier is in the cited text: not a sibling
    assert (
        sibling_compound(
            analyse("How big is the process pool?"), ["A process uses the thread pool."]
        )
        is None
    )
    # a compound met once is a passing phrase, not the thing the text is about
    assert (
        sibling_compound(analyse("What is the process pool?"), ["The thread pool has 40."]) is None
    )
    # two different modifiers before the head: no fixed compound
    assert (
        sibling_compound(
            analyse("What does the secret parameter do?"),
            ["The help parameter sets help.", "The hidden parameter hides it."],
        )
        is None
    )


def test_a_sibling_compound_answer_abstains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _kb(
        tmp_path,
        monkeypatch,
        {
            "pool.md": "# Thread Pool\n\nThe default thread pool size is 40 tokens. "
            "You can raise the thread pool size with a limiter.\n"
        },
    )
    ans = kb.ask("What is the default size of the process pool?")
    assert ans.outcome == "insufficient_evidence"
    assert "thread pool" in ans.answer
    assert kb.ask("What is the default size of the thread pool?").outcome == "answered"


def test_no_sibling_for_a_verb_and_its_object_or_a_word_of_the_same_family() -> None:
    assert (
        sibling_compound(
            analyse("How do I keep part of a command's docstring out of the help text?"),
            ["You can include part of the docstring."],
        )
        is None
    )
    assert (
        sibling_compound(
            analyse("How do I disable Rich with an environment variable?"),
            ["Set the environmental variable TYPER_USE_RICH to False."],
        )
        is None
    )


def test_a_completion_comes_from_a_source_the_answer_already_quotes() -> None:
    lead = _cand("Options take multiple values from environment variables.", 0.8, 0)
    elsewhere = _cand("On Unix the Path type splits on every colon.", 0.7, 100)
    elsewhere = Candidate(
        Fragment(
            "direct_support", "e", "q.md", 1, 1, ("m",), 1, 1, 0, 500, (), "y" * 500, 10,
            False, "m:0-500",
        ),
        elsewhere.span, elsewhere.clean, elsewhere.score, (1, 100),
    )  # fmt: skip
    assert complete_terms([lead], [lead, elsewhere], ("unix",)) == [lead]


# -- recall rank as a prior -----------------------------------------------------------


def test_units_of_the_best_recall_hit_weigh_most() -> None:
    from citewise.answer.ranking import RANK_FLOOR, rank_prior

    # Fragment.rank is the hit's rank times 100 plus a tie-breaker; 1000+ for chunks no
    # hit retrieved
    assert rank_prior(149.0) == 1.0
    assert rank_prior(249.0) < rank_prior(149.0)
    assert rank_prior(349.0) < rank_prior(249.0)
    assert rank_prior(1049.0) == RANK_FLOOR == rank_prior(20049.0)
    assert rank_prior(0.0) == 1.0  # an unranked fragment is not penalised


# -- how-to structure ------------------------------------------------------------------


def test_a_lead_in_without_a_block_still_joins_its_paragraph() -> None:
    from citewise.answer.units.structure import document_units

    text = (
        "# Commands\n\n## Suggest Commands\n\n"
        "Typer suggests mistyped command names. This is enabled by default, but you can "
        "disable it with the parameter `suggest_commands=False`:\n\n"
        "{* docs_src/commands/tutorial005.py hl[3] *}\n"
    )
    doc = parse_document(text.encode(), name="h.md", kb="k", doc_path="h.md", config=IngestConfig())
    paras = [u for u in document_units(list(doc.nodes)) if u.kind == "para"]
    assert len(paras) == 1
    assert "mistyped" in paras[0].display and "suggest_commands=False" in paras[0].display
    assert text[paras[0].start : paras[0].end] == paras[0].text


_GENERATE = (
    "# Tool command\n\n## Run a script\n\nRun a script with the tool command.\n\n"
    "```console\n$ tool run script.py\n```\n\n"
    "## Generate docs\n\n"
    "You can also use the tool command to generate Markdown documentation for your app.\n\n"
    "### Sample script\n\nFor example, you could have a script like this one.\n\n"
    "### Generate docs with the tool command\n\n"
    "Then you could generate docs for it with the subcommand.\n\n"
    "```console\n$ tool some_script.py utils docs\n```\n\n"
    "## Other things\n\nSomething else entirely.\n\n```console\n$ tool other\n```\n"
)


def test_a_how_to_whose_section_only_says_what_quotes_its_subsections_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _kb(tmp_path, monkeypatch, {"tool.md": _GENERATE})
    ans = kb.ask("How do I generate Markdown documentation for my app?")
    assert ans.outcome == "answered"
    assert "tool some_script.py utils docs" in ans.answer
    assert "tool other" not in ans.answer
    for c in ans.citations:
        assert kb.resolve(c.id).text == c.excerpt


_ACCEPT = (
    "# Bool options\n\n## Alternative names\n\n"
    "Now let's imagine we have a CLI option `--accept`.\n\n"
    "And we want to allow setting `--accept` or the contrary, but `--no-accept` looks ugly.\n\n"
    "We might want to instead have `--accept` and `--reject`.\n\n"
    "We can do that by passing a single `str` with the 2 names for the option, the second "
    "being `--reject`.\n"
)


def test_a_how_to_quotes_the_sentence_that_gives_the_means(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import citewise.answer.composition.profiles as profiles

    kb = _kb(tmp_path, monkeypatch, {"bool.md": _ACCEPT})
    q = "How can an option use --accept and --reject instead of --no-accept?"
    # the means sentence scores 0.4 of the best unit (term overlap alone): under a bar of
    # 0.45 for prose it is quoted only because it gives the means
    monkeypatch.setattr(profiles, "PROSE_SHARE", 0.45)
    monkeypatch.setattr(profiles, "MEANS_SHARE", 0.3)
    assert "by passing a single" in kb.ask(q).answer
    monkeypatch.setattr(profiles, "MEANS_SHARE", 0.45)
    assert "by passing a single" not in kb.ask(q).answer
    assert profiles.MEANS.search("You can disable it with the parameter `x=False`:")
    assert not profiles.MEANS.search("You can also run the app.")


def test_a_how_to_answers_from_the_section_where_several_units_answer() -> None:
    from citewise.answer.composition.profiles import best_section

    def cand(text: str, score: float, start: int, path: tuple[str, ...]) -> Candidate:
        frag = Fragment(
            "direct_support", "d", "p.md", 1, 1, ("n",), 1, 1, 0, 900, path, "x" * 900, 10,
            False, "n:0-900",
        )  # fmt: skip
        return Candidate(frag, Span(start, start + len(text), text), text, score, (0, start))

    env = ("Exceptions", "Standard tracebacks")
    local = ("Exceptions", "Show local variables")
    pool = [
        cand("You could also achieve the same with an environment variable.", 0.75, 600, env),
        cand("It could be a problem to show those local variables.", 0.56, 100, local),
        cand("You can set the parameter `show_locals=True`:", 0.55, 200, local),
        cand("Rich prints the values of the local variables.", 0.54, 0, local),
        cand("It could be a problem to show those local variables. Really.", 0.57, 100, local),
    ]
    pool.sort(key=lambda c: -c.score)
    assert best_section(pool) == ("d", local)
    # one strong unit alone, with no other unit in its section to support it: it wins
    assert best_section([pool[0], *[c for c in pool if c.score < 0.3]]) == ("d", env)


# -- the attribute a value question asks for -------------------------------------------


def test_the_attribute_a_value_question_asks_for() -> None:
    from citewise.sufficiency.asked import asked_attribute, attribute_cited

    assert asked_attribute(analyse("What is the default page size of Click's pager?")) == "size"
    assert asked_attribute(analyse("Which color does click.secho use for warnings?")) == "color"
    assert (
        asked_attribute(analyse("Which UUID version does Typer generate by default?")) == "version"
    )
    assert (
        asked_attribute(analyse("Which status code does RedirectResponse use by default?"))
        == "code"
    )
    # no single attribute: a thing, a value, a name, or another shape of question
    for q in (
        "Which option of typer utils docs writes the docs to a file?",
        "What is the default value of the step parameter?",
        "Which Typer version added this?",
        "How do I clear the screen?",
        "What does click.edit return when the editor is closed?",
    ):
        assert asked_attribute(analyse(q)) is None, q
    assert attribute_cited("size", ["The default thread pool size is 40."])
    assert attribute_cited("size", ["Sizes are given in bytes."])
    assert not attribute_cited("size", ["The pager writes to a file-like object."])
    # a numeric attribute is stated by a number in prose, not by one inside code
    assert attribute_cited("code", ["By default 403 responses will be returned."])
    assert not attribute_cited("size", ["Write to it:\n```python\nfor i in range(500): ...\n```"])
    assert not attribute_cited("color", ["It has 3 settings."])


_PAGER = (
    "# Utilities\n\n## Pager support\n\n"
    "In some situations, you might want to show long texts on the terminal and let a user "
    "scroll through it. This can be achieved by using the echo_via_pager function. "
    "The pager wraps lines at a default width of the terminal.\n"
)


def test_a_value_question_whose_attribute_the_cited_text_never_names_abstains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _kb(tmp_path, monkeypatch, {"utils.md": _PAGER})
    ans = kb.ask("What is the default page size of the pager?")
    assert ans.outcome == "insufficient_evidence"
    assert "size" in ans.answer
    assert kb.ask("What is the default width of the pager?").outcome == "answered"


def test_a_relation_or_a_thing_is_no_attribute() -> None:
    from citewise.sufficiency.asked import asked_attribute

    assert asked_attribute(analyse("What is the successor of the Helix-7?")) is None
    assert asked_attribute(analyse("Which shells does Click support?")) is None
    assert asked_attribute(analyse("Which sizes does the pager accept?")) == "sizes"


_TESTING = (
    "# Testing Tool Applications\n\n"
    "```{eval-rst}\n.. currentmodule:: tool.testing\n```\n\n"
    "Tool provides the testing module to help you invoke command line applications and "
    "check their behavior.\n\n"
    "The examples use pytest style tests.\n\n"
    "## Basic Example\n\n"
    "The key pieces are the runner and the result.\n\n"
    "```{code-block} python\n:caption: hello.py\n\nimport tool\n\n@tool.command()\n"
    "def hello(name):\n    tool.echo(name)\n```\n\n"
    "```{code-block} python\n:caption: test_hello.py\n\nfrom tool.testing import Runner\n"
    "from hello import hello\n\ndef test_hello_world():\n    runner = Runner()\n"
    "    result = runner.invoke(hello, ['Peter'])\n    assert result.exit_code == 0\n```\n"
)


def test_a_how_to_quotes_the_example_not_a_sphinx_directive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "```{eval-rst} .. currentmodule:: ...```" tells the documentation builder where
    # names live; it is no example. The subsection's example is the program and, when it
    # answers the question better, the test right after it.
    kb = _kb(tmp_path, monkeypatch, {"testing.md": _TESTING})
    ans = kb.ask("How do I test a tool command from pytest?")
    assert ans.outcome == "answered"
    assert "currentmodule" not in ans.answer
    assert "runner = Runner()" in ans.answer
    assert ans.answer.index("def hello(name)") < ans.answer.index("from tool.testing import")
    for c in ans.citations:
        assert kb.resolve(c.id).text == c.excerpt


def test_an_eval_rst_block_of_directives_only_is_no_code_unit() -> None:
    from citewise.answer.display import code_display

    assert code_display("```{eval-rst}\n.. currentmodule:: tool\n```") is None
    assert code_display("```{eval-rst}\n.. autoclass:: Runner\n   :members:\n```") is None
    shown = code_display("```{eval-rst}\n.. tool:example::\n\n    import tool\n```")
    assert shown is not None and "import tool" in shown
    assert code_display("```{code-block} py\n:caption: a.py\n\nx = 1\n```") == "```py\nx = 1\n```"


_DMCA = (
    "# Title II: liability limitation\n\n"
    "Title II adds a new section to create four new limitations on liability for "
    "copyright infringement by online service providers and their conduct categories. "
    "The limitations are based on the following four categories of conduct:\n\n"
    "1. Transitory communications;\n2. System caching;\n"
    "3. Storage of information at direction of users; and\n4. Information location tools.\n\n"
    "New section 512 also includes special rules for educational institutions.\n"
)


def test_a_counted_list_question_gets_the_lead_in_with_its_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _kb(tmp_path, monkeypatch, {"dmca.md": _DMCA})
    ans = kb.ask(
        "Which four categories of service provider conduct do the online liability "
        "limitations cover?"
    )
    assert ans.outcome == "answered"
    for item in ("Transitory communications", "System caching", "Information location tools"):
        assert item in ans.answer
    from citewise.answer.composition.lists import asked_count

    assert asked_count(analyse("What are the three main types of joins?")) == 3
    assert asked_count(analyse("Which 12 steps are listed?")) == 12
    assert asked_count(analyse("Which categories are covered?")) is None
    assert asked_count(analyse("What is the one rule?")) is None
