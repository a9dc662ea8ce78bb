"""Answer units follow the document's structure (issue 15): a lead-in carries its block,
list items keep their values, headings give context, markup never reaches the answer
text, and every citation stays exact."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.display import prose_display
from citewise.answer.markup import is_scaffolding, strip_markup
from citewise.answer.models import Citation, Claim
from citewise.answer.units.structure import Unit, document_units
from citewise.config import IngestConfig
from citewise.ingest.parse import parse_document
from citewise.kb import Home, KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures" / "answers"


def _units(name: str) -> tuple[str, list[Unit]]:
    text = (FIXTURES / name).read_text("utf-8")
    doc = parse_document(text.encode(), name=name, kb="k", doc_path=name, config=IngestConfig())
    return text, document_units(list(doc.nodes))


def _unit(units: list[Unit], needle: str, kind: str | None = None) -> Unit:
    found = [u for u in units if needle in u.display and (kind is None or u.kind == kind)]
    assert found, f"no unit shows {needle!r}"
    return found[0]


def test_every_unit_is_the_exact_source_text_at_its_offsets() -> None:
    for name in ("widgets.md", "upgrade.md", "sessions.md"):
        text, units = _units(name)
        assert units
        for u in units:
            assert text[u.start : u.end] == u.text
            if u.heading is not None:
                assert text[u.heading.start : u.heading.end] == u.heading.text


def test_a_lead_in_sentence_carries_the_code_block_it_introduces() -> None:
    _, units = _units("widgets.md")
    lead = _unit(units, "You can install the extra using pip:")
    assert lead.kind == "lead"
    assert lead.display.endswith("```shell\npip install widget-server[render]\n```")
    assert lead.text.startswith("You can install") and lead.text.endswith("```")


def test_a_lead_in_carries_the_list_it_introduces() -> None:
    _, units = _units("widgets.md")
    lead = _unit(units, "The following arguments are supported:")
    assert lead.kind == "lead"
    for value in ("(Default 4)", "(Default 8)", "Defaults to `30`"):
        assert value in lead.display


def test_a_parenthetical_value_on_the_next_line_stays_with_its_item() -> None:
    _, units = _units("widgets.md")
    item = _unit(units, "`workers`", kind="item")
    assert item.display == "`workers` - number of render workers. (Default 4)"
    assert "(Default 8)" not in item.display


def test_a_parenthetical_sentence_joins_the_sentence_before_it() -> None:
    text = "# T\n\nThe pool holds idle connections.\n(Default 10)\n\nAnother paragraph.\n"
    doc = parse_document(text.encode(), name="t.md", kb="k", doc_path="t.md", config=IngestConfig())
    shown = [u.display for u in document_units(list(doc.nodes))]
    assert "The pool holds idle connections. (Default 10)" in shown


def test_a_sentence_that_refers_to_its_heading_gets_the_heading_as_context() -> None:
    text, units = _units("widgets.md")
    u = _unit(units, "If this environment variable is set")
    assert u.heading is not None and u.heading_text == "WIDGET_NO_COLOR"
    assert text[u.heading.start : u.heading.end] == "## WIDGET_NO_COLOR"
    plain = _unit(units, "The widget server is a Python package.")
    assert plain.heading is None  # no back-reference, no context prefix


def test_numbered_steps_keep_the_commands_of_their_code_blocks() -> None:
    _, units = _units("upgrade.md")
    step = _unit(units, "2. Install the new release.")
    assert step.kind == "item"
    assert "```bash\npip install --upgrade widget-server==3.2.0\n```" in step.display


def test_admonitions_directives_roles_and_html_do_not_reach_the_display() -> None:
    _, units = _units("widgets.md")
    shown = "\n".join(u.display for u in units)
    for leak in ("!!!", "tip Gotcha", "{func}", "{warning}", "<span", "(render-cache)="):
        assert leak not in shown
    assert "Gotcha: The extra needs a C compiler on the build machine." in shown
    assert "Wheels are published for Linux and macOS only." in shown  # body after a blank
    assert "Purging the render cache makes the next render slow." in shown  # MyST warning
    assert "`--cache <dir>`" in shown  # a placeholder inside code is not an HTML tag
    assert "the `purge` helper new, or pass" in shown


def test_strip_markup_and_scaffolding_cases() -> None:
    assert strip_markup('!!! warning "Deprecated"\n    Use v2.') == "Deprecated: Use v2."
    assert strip_markup("see {ref}`the guide <guide-target>` now") == "see `the guide` now"
    assert strip_markup("read [the docs](https://x.example/a_(b)) first") == "read the docs first"
    assert is_scaffolding("{* docs_src/app/tutorial001.py hl[3] *}")
    assert is_scaffolding("(option-boolean-flag)=")
    assert is_scaffolding("!!! note")
    assert not is_scaffolding("Run {func}`clear` first.")


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES, corpus)
    base = Home.open(tmp_path / "home").kb()
    assert base.add([corpus]).ok
    return base


def _exact(kb: KnowledgeBase, answer: object) -> None:
    for c in answer.citations:  # type: ignore[attr-defined]
        text = kb.store.get_document_text(kb.name, c.doc_id, c.version_id)
        assert text[c.char_start : c.char_end] == c.excerpt
        assert kb.resolve(c.id).text == c.excerpt


def test_how_to_answer_quotes_the_code_block_after_its_lead_in(kb: KnowledgeBase) -> None:
    a = kb.ask("How do I install the render extra of the widget server?")
    assert a.outcome == "answered", a.answer
    assert "pip install widget-server[render]" in a.answer
    assert "```shell" in a.answer
    assert any("pip install widget-server[render]" in c.excerpt for c in a.citations)
    _exact(kb, a)


def test_procedure_answer_includes_each_steps_command(kb: KnowledgeBase) -> None:
    a = kb.ask("How do I upgrade the widget server?")
    assert a.outcome == "answered", a.answer
    for cmd in ("widgetctl queue stop --drain", "widget-server==3.2.0", "widgetctl queue start"):
        assert cmd in a.answer
    _exact(kb, a)


def test_parameter_answer_keeps_its_own_default(kb: KnowledgeBase) -> None:
    a = kb.ask("What is the default number of render workers?")
    assert a.outcome == "answered", a.answer
    assert "(Default 4)" in a.answer
    _exact(kb, a)


def test_heading_context_is_shown_and_cited(kb: KnowledgeBase) -> None:
    a = kb.ask("What happens when WIDGET_NO_COLOR is set?")
    assert a.outcome == "answered", a.answer
    assert "WIDGET_NO_COLOR: If this environment variable is set" in a.answer
    assert any(c.excerpt == "## WIDGET_NO_COLOR" for c in a.citations)
    _exact(kb, a)


def test_markup_is_stripped_from_the_answer_but_not_from_the_citation(kb: KnowledgeBase) -> None:
    a = kb.ask("What does the extra need on the build machine?")
    assert a.outcome == "answered", a.answer
    assert "C compiler" in a.answer and "!!!" not in a.answer
    assert any(c.excerpt.startswith('!!! tip "Gotcha"') for c in a.citations)
    _exact(kb, a)


def test_same_question_same_answer_and_replay_id(kb: KnowledgeBase) -> None:
    q = "How do I install the render extra of the widget server?"
    a, b = kb.ask(q), kb.ask(q)
    assert (a.answer, a.replay_id) == (b.answer, b.replay_id)
    assert [c.id for c in a.citations] == [c.id for c in b.citations]


def test_llm_frozen_set_holds_the_unit_that_reaches_past_its_fragment(kb: KnowledgeBase) -> None:
    from citewise.answer.ranking import units_reader
    from citewise.evidence.whole import node_fragment
    from citewise.llm.frozen import unit_items

    doc = kb.document("widgets.md")
    nodes = kb.nodes("widgets.md")
    para = next(n for n in nodes if n.text.startswith("The widget server is a Python package."))
    frag = node_fragment(
        para,
        role="direct_support",
        doc_id=doc.doc_id,
        path="widgets.md",
        revision=kb.info().revision,
        version_id=doc.version_id,
        reason="test",
    )
    units = units_reader(lambda path, vid: kb.store.nodes_of_version(kb.name, path, vid))(frag)
    lead = next(u for u in units if u.kind == "lead")
    assert lead.end > frag.char_end  # the code block lies outside the fragment
    pool, required = unit_items(
        [frag],
        [(frag, lead.start, lead.end, lead.text)],
        lambda path, vid: kb.store.nodes_of_version(kb.name, path, vid),
    )
    item = next(f for f in pool if f.citation_id == required[0])
    assert "pip install widget-server[render]" in item.text
    text = kb.store.get_document_text(kb.name, item.doc_id, item.version_id)
    assert text[item.char_start : item.char_end] == item.text
    assert kb.resolve(item.citation_id).text == item.text
    # a unit too long for one item falls back to its fragment: the set is never refused
    _, fallback = unit_items(
        [frag],
        [(frag, lead.start, lead.end, lead.text)],
        lambda path, vid: kb.store.nodes_of_version(kb.name, path, vid),
        item_chars=10,
    )
    assert fallback == (frag.citation_id,)


def test_comparison_keeps_the_table_of_compared_figures(kb: KnowledgeBase) -> None:
    a = kb.ask("What is the difference between batch mode and live mode?")
    assert a.outcome == "answered", a.answer
    for figure in ("up to 60 minutes", "under 2 seconds"):
        assert figure in a.answer
    assert any(c.excerpt.startswith("| Aspect | Batch mode | Live mode |") for c in a.citations)
    _exact(kb, a)


def test_single_emphasis_is_removed_outside_code_only() -> None:
    assert (
        strip_markup("increase the number of _tokens_ now") == "increase the number of tokens now"
    )
    assert strip_markup("a *CLI option* here") == "a CLI option here"
    assert (
        strip_markup("keep `snake_case_name` and `*args`") == "keep `snake_case_name` and `*args`"
    )
    assert strip_markup("use my_var_name as is") == "use my_var_name as is"


def test_a_short_paragraph_keeps_the_value_in_its_next_sentence() -> None:
    text = (
        "# Exit\n\n## Codes\n\n`widget.Exit()` takes an optional `code` parameter. "
        "By default, `code` is `0`, meaning there was no error.\n"
    )
    doc = parse_document(text.encode(), name="t.md", kb="k", doc_path="t.md", config=IngestConfig())
    paras = [u for u in document_units(list(doc.nodes)) if u.kind == "para"]
    assert [p.display for p in paras] == [
        "`widget.Exit()` takes an optional `code` parameter. "
        "By default, `code` is `0`, meaning there was no error."
    ]
    assert text[paras[0].start : paras[0].end] == paras[0].text


def test_heading_context_only_for_a_back_reference_in_the_opening() -> None:
    text = (
        "# Guide\n\n## Using middleware\n\n"
        "Every application includes two middleware classes by default:\n\n"
        "* `Errors` - renders a page. These types of pages are plain.\n"
        "* `Handlers` - so that particular types of exception are handled.\n"
    )
    doc = parse_document(text.encode(), name="t.md", kb="k", doc_path="t.md", config=IngestConfig())
    units = document_units(list(doc.nodes))
    assert units and all(u.heading is None for u in units)


def test_a_placeholder_inside_code_is_not_raw_markup() -> None:
    from citewise.answer.markup import prose_only
    from citewise.answer.review import release_review

    text = "Cancel it with `job cancel <job_id>`:\n```html\n<div>ok</div>\n```"
    assert "<" not in prose_only(text)
    excerpt = text
    cite = citation(excerpt)
    kept = release_review([claim(text)], [cite])
    assert kept[0].kept, kept[0].reason
    bad = release_review([claim('Click <img src=x onerror="go()"> here')], [cite])
    assert not bad[0].kept and bad[0].reason == "raw markup"


_CODE_ONLY = """# Flags

## Repeated flags

A flag can be repeated on the command line and every value is kept in a tuple.

```python
@tool.flag("--tag", "-t", repeat=True)
def run(tag):
    print(tag)
```

## Other

Unrelated prose about colours.
"""


def test_how_to_whose_evidence_is_only_the_sections_code_block_quotes_the_code() -> None:
    from citewise.answer.composition.compose import compose
    from citewise.evidence.models import Fragment

    doc = parse_document(
        _CODE_ONLY.encode(), name="f.md", kb="k", doc_path="f.md", config=IngestConfig()
    )
    units = document_units(list(doc.nodes))
    start = _CODE_ONLY.index("```python")
    end = _CODE_ONLY.index("```\n\n## Other") + 3
    line = _CODE_ONLY[:start].count("\n") + 1
    frag = Fragment(
        "direct_support", "d1", "f.md", 1, 1, ("n1",), line, line + 4, start, end,
        ("Flags", "Repeated flags"), _CODE_ONLY[start:end], 30, False, "c1", kind="code",
    )  # fmt: skip
    chosen = compose(
        analyse("How do I let a flag be given several times?"),
        "how_to",
        [frag],
        units_of=lambda f: units,
    )
    assert chosen, "the section's code block is the answer, not nothing"
    assert any("repeat=True" in c.clean for c in chosen)
    assert all(_CODE_ONLY[c.span.start : c.span.end] in _CODE_ONLY for c in chosen)


_RC = """# Completion

## Enabling completion

To enable completion, the user registers a function with their shell.

```text
Add this to ~/.toolrc:

    eval "$(_TOOL_COMPLETE=source tool)"
```
"""


def test_a_code_block_alone_holding_the_questions_literal_is_quoted() -> None:
    from citewise.answer.composition.compose import compose
    from citewise.evidence.models import Fragment

    doc = parse_document(_RC.encode(), name="c.md", kb="k", doc_path="c.md", config=IngestConfig())
    units = document_units(list(doc.nodes))
    start = _RC.index("To enable")
    frag = Fragment(
        "direct_support", "d1", "c.md", 1, 1, ("n1",), 5, 11, start, len(_RC),
        ("Completion", "Enabling completion"), _RC[start:], 40, False, "c1",
    )  # fmt: skip
    chosen = compose(
        analyse("What do I add to ~/.toolrc to enable completion?"),
        "generic",
        [frag],
        units_of=lambda f: units,
    )
    assert any("~/.toolrc" in c.clean for c in chosen), [c.clean for c in chosen]
    asked = analyse("What does the user register to enable completion?")
    prose_only = compose(asked, "generic", [frag], units_of=lambda f: units)
    assert all(c.kind != "code" for c in prose_only)


def citation(excerpt: str) -> Citation:
    return Citation(
        number=1,
        id="n:0-1",
        path="p.md",
        doc_id="d",
        revision=1,
        version_id=1,
        node_ids=("n",),
        line_start=1,
        line_end=4,
        char_start=0,
        char_end=1,
        excerpt=excerpt,
        sha256="",
        role="direct_support",
    )


def claim(text: str) -> Claim:
    return Claim(text=text, citations=(1,), support=0.0, verdict="", kept=True)


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        (
            "within a Requests :class:`Session <requests.Session>` using the "
            "`urllib3.util.Retry`_ class::",
            "within a Requests `Session` using the urllib3.util.Retry class:",
        ),
        ("the :meth:`~requests.Response.json` method", "the `json` method"),
        ("See `keep-alive <https://example.org/ka>`_ here.", "See keep-alive here."),
        (".. note:: Neither timeout is a wall clock.", "Neither timeout is a wall clock."),
        ("Run it like this ::", "Run it like this"),
        ("std::vector and a::b stay", "std::vector and a::b stay"),
        ("Markdown `code` and [a link](https://x.org) too.", "Markdown `code` and a link too."),
    ],
)
def test_rest_markup_is_shown_as_its_words(source: str, shown: str) -> None:
    """reST roles, link references, admonition directives and literal-block marks are
    display markup: the answer shows the words (the citation keeps the source)."""
    assert prose_display(source) == shown
