"""Sections that open by naming their subject (issue 40): the heading is a topic even in
one document, on Markdown and reST docs alike; a how-to title, an instruction opening and a
heading its document repeats are not."""

from __future__ import annotations

import pytest

from citewise.config import Settings
from citewise.ingest.parse import parse_document
from citewise.notes.compile import Compiler
from citewise.notes.extract import Source, document_pieces
from citewise.notes.mentions import MentionIndex
from citewise.notes.openings import OPENS, section_openings, term_forms
from citewise.notes.topics import api_name, select_topics

#: A framework's API reference page (Markdown, the class of starlette's and click's pages):
#: sections headed by a class name or a term, each opening with a sentence about it.
API_MD = (
    "# Reference\n\n"
    "## Endpoint Classes\n\n"
    "Endpoint classes are ASGI applications that dispatch on the request method. "
    "An endpoint class defines one method per HTTP verb.\n\n"
    "## WidgetEndpoint\n\n"
    "The `WidgetEndpoint` class wraps a websocket session. "
    "A `WidgetEndpoint` closes the session when the handler returns.\n\n"
    "## Exit Codes\n\n"
    "When a command fails, an exit code greater than zero is returned. "
    "The exit code 2 means the command line could not be parsed.\n\n"
    "## Command Chaining\n\n"
    "It is useful to invoke more than one subcommand in one call. "
    "Command chaining is enabled per group.\n\n"
    "## Install\n\n"
    "Install from the package index with pip. Install the extras when needed.\n\n"
    "## Lonely Term\n\n"
    "A lonely term is mentioned once here and nowhere else.\n"
)
#: A library's user guide in reStructuredText (the class of requests' pages), and its
#: changelog, where every release repeats the same section titles.
GUIDE_RST = (
    "Advanced Usage\n==============\n\n"
    "Session Objects\n---------------\n\n"
    "The Session object allows you to persist certain parameters across requests.\n\n"
    "A Session object has all the methods of the main API.\n\n"
    "Proxies\n-------\n\n"
    "Each proxy is configured with the ``proxies`` argument of a request. "
    "A proxy URL may carry credentials.\n"
)
CHANGES_MD = (
    "# Changes\n\n## 1.1\n\n### Added\n\n- Added a widget option that is added to every "
    "command.\n- Added a flag.\n\n## 1.0\n\n### Added\n\n- Added the first widget that was "
    "added.\n- Added a thing.\n"
)


def _source(name: str, text: str) -> Source:
    parsed = parse_document(
        text.encode("utf-8"),
        name=name,
        kb="default",
        doc_path=name,
        config=Settings.resolve(None).ingest,
    )
    return Source(name, f"d-{name}", 1, 1, parsed.text, tuple(parsed.nodes), {})


def _notes(*docs: tuple[str, str]) -> dict[str, object]:
    sources = {name: _source(name, text) for name, text in docs}
    pieces = [p for s in sources.values() for p in document_pieces(s)]
    index = MentionIndex(pieces)
    compiler = Compiler(sources, pieces, index)
    topics = select_topics(pieces, index, {}, openings=compiler.openings)
    return {t.key: n for t in topics if (n := compiler.note(t))}


@pytest.mark.parametrize(
    ("key", "forms"),
    [
        ("exit codes", ("exit codes", "exit code")),
        ("proxies", ("proxies", "proxy")),
        ("class", ("class",)),  # "ss" is no plural
        ("widgetendpoint", ("widgetendpoint",)),
        ("个人信息", ("个人信息",)),
    ],
)
def test_term_forms_add_the_singular_of_an_english_plural(key: str, forms: tuple[str]) -> None:
    assert term_forms(key) == forms


def test_openings_that_name_the_heading_in_markdown_and_rest() -> None:
    api = document_pieces(_source("api.md", API_MD))
    guide = document_pieces(_source("guide.rst", GUIDE_RST))
    got = set(section_openings(api)) | set(section_openings(guide))
    assert {"endpoint classes", "widgetendpoint", "exit codes", "session objects"} <= got
    assert "proxies" in got  # "Each proxy ...": the singular of a -ies plural
    assert "command chaining" not in got  # the opening is about something else


def test_an_instruction_opening_and_a_repeated_heading_are_no_openings() -> None:
    api = document_pieces(_source("api.md", API_MD))
    assert "install" in section_openings(api)
    assert "install" not in section_openings(api, skip=lambda t: t.startswith("Install"))
    changes = document_pieces(_source("changes.md", CHANGES_MD))
    assert "added" not in section_openings(changes)  # "### Added" under every release


def test_a_section_opening_gives_a_note_in_one_document() -> None:
    notes = _notes(("api.md", API_MD), ("guide.rst", GUIDE_RST), ("changes.md", CHANGES_MD))
    for key, doc in [("widgetendpoint", "api.md"), ("session objects", "guide.rst")]:
        note = notes[key]
        opening = [x for x in note.lines if x.detail == OPENS]  # type: ignore[attr-defined]
        assert [(x.path, x.section) for x in opening] == [(doc, "discussed")]
        prose = [x for x in note.lines if x.excerpt != x.heading_path[-1]]  # type: ignore[attr-defined]
        assert len(prose) >= 2
    # "an exit code" in the next sentence is the same term as the heading's plural
    assert any("exit code 2" in x.excerpt for x in notes["exit codes"].lines)  # type: ignore[attr-defined]
    assert "command chaining" not in notes  # a how-to title, not a term
    assert "install" not in notes  # an instruction opens the section
    assert "added" not in notes  # a changelog's repeated section title
    assert "lonely term" not in notes  # one quoted line besides its title is no note


# -- API names written as code in one document ---------------------------------------------
#: A CLI library's options page (click's class) and an HTTP client's quickstart (requests'
#: class, reST literals): each API name is written as code in this one page only.
OPTIONS_MD = (
    "# Options\n\n## Flags\n\n"
    "Set `flag_value` to pass a value when the flag is given. "
    "The `flag_value` is used instead of `True`. "
    "Without `flag_value` the flag is a boolean. "
    "Save the example as `hello.py`. Then run `hello.py` with Python.\n\n"
    "Run `hello.py` again with `--shout`.\n"
)
QUICK_RST = (
    "Quickstart\n==========\n\n"
    "We can read the content of the server's response with ``r.text``. "
    "Requests decodes ``r.text`` from the guessed encoding. "
    "You can change the encoding before reading ``r.text``. "
    "The ``value`` is kept. The ``value`` is read. The ``value`` is shown.\n"
)
ELSEWHERE_MD = (
    "# Recipes\n\nA recipe sets flag_value and reads r.text of the response. "
    "It runs hello.py and checks the value.\n"
)


@pytest.mark.parametrize(
    ("key", "api"),
    [
        ("click.option", True),
        ("flag_value", True),
        ("r.status_code", True),
        ("request.url_for", True),
        ("r.json", True),  # a JSON type, but no source file
        ("hello.py", False),  # an example file of the page
        ("main.py", False),
        ("value", False),  # a bare word
        ("--help", False),
    ],
)
def test_api_names_are_dotted_or_snake_case_and_no_source_file(key: str, api: bool) -> None:
    assert api_name(key) is api


def test_an_api_name_one_document_discusses_is_a_topic() -> None:
    notes = _notes(("options.md", OPTIONS_MD), ("quick.rst", QUICK_RST), ("r.md", ELSEWHERE_MD))
    assert {"flag_value", "r.text"} <= set(notes)
    assert notes["r.text"].topic.kinds == ("named",)  # type: ignore[attr-defined]
    assert "hello.py" not in notes  # a source file's name
    assert "value" not in notes  # a bare lowercase word written as code


def test_a_one_document_api_note_needs_two_lines_besides_titles() -> None:
    """No second document and no definition: the note stands on two quoted lines."""
    notes = _notes(("options.md", OPTIONS_MD), ("quick.rst", QUICK_RST))
    lines = notes["flag_value"].lines  # type: ignore[attr-defined]
    assert {x.path for x in lines} == {"options.md"} and len(lines) >= 2
    thin = "# Thin\n\nThe `max_depth` is read. The `max_depth` is kept. The `max_depth` is set.\n"
    assert "max_depth" not in _notes(("thin.md", thin), ("quick.rst", QUICK_RST))
