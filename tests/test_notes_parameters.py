"""Two more kinds of topic on small docs corpora (issue 40): a section title whose term
other pages use and one discusses, and a parameter name the code examples pass as a
keyword argument; on Markdown (click's class of page) and reST (requests' class) alike.
A bare word written as code that no example passes stays a value, and a one-document
heading nobody else uses stays out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citewise.notes.extract import document_pieces
from citewise.notes.topics import discussed_heading, keyword_arguments
from tests.test_notes_openings import _notes, _source

#: A CLI library's page on groups (Markdown): "Groups" titles this page only; another
#: page uses groups too. Its examples pass ``invoke_without_command`` and ``envvar``.
GROUPS_MD = (
    "# Groups\n\n"
    "Commands can be attached to other commands. "
    "This allows arbitrary nesting of scripts.\n\n"
    "```python\n@click.group(invoke_without_command=True)\ndef cli():\n    pass\n"
    "@click.option('--user', envvar='USER')\n```\n\n"
    "A group invokes its callback before the subcommand. "
    "Groups also have a help page listing their subcommands. "
    "Groups can be nested in groups.\n\n"
    "Set `envvar` to read the value from the environment. "
    "The `envvar` may list several names. When `envvar` is a list, the first set wins.\n\n"
    "The `default` is shown. The `default` is read. The `default` is used.\n"
)
COMMANDS_MD = (
    "# Commands\n\n"
    "Commands are collected into groups. "
    "Nested groups form a tree of commands.\n\n"
    "## Lonely Heading\n\n"
    "Here a section explains something. It goes on about it.\n"
)
#: An HTTP client's user guide (reST): a doctest quoted inside an indented block passes
#: ``timeout``; the quickstart writes ``timeout`` in its prose three times.
ADVANCED_RST = (
    "Advanced Usage\n==============\n\n"
    "Timeouts\n--------\n\n"
    "Most requests to external servers should have a timeout attached. "
    "Without a timeout, your code may hang for minutes.\n\n"
    "    >>> r = requests.get('https://example.org', timeout=5)\n\n"
    "The ``timeout`` value applies to the connect and the read phases. "
    "Pass a tuple as ``timeout`` to set them apart. "
    "A ``timeout`` of None waits forever.\n"
)
QUICK_RST = (
    "Quickstart\n==========\n\n"
    "You can tell Requests to stop waiting for a response after a given number of "
    "seconds with the ``timeout`` parameter; see the timeouts section.\n"
)


def test_keyword_arguments_come_from_code_and_interactive_lines() -> None:
    md = [p for p in document_pieces(_source("groups.md", GROUPS_MD))]
    rst = [p for p in document_pieces(_source("advanced.rst", ADVANCED_RST))]
    assert {"invoke_without_command", "envvar"} <= keyword_arguments(md)
    assert "timeout" in keyword_arguments(rst)  # a ">>> " line inside an indented block
    assert "default" not in keyword_arguments(md)  # written as code, never passed


def test_a_heading_other_pages_use_and_one_discusses_is_a_topic() -> None:
    notes = _notes(("groups.md", GROUPS_MD), ("commands.md", COMMANDS_MD))
    assert "groups" in notes
    assert {x.path for x in notes["groups"].lines} == {"groups.md", "commands.md"}  # type: ignore[attr-defined]
    assert "lonely heading" not in notes  # one page's title, nobody else uses it


def test_a_parameter_name_is_a_topic_where_a_bare_value_is_not() -> None:
    md = _notes(("groups.md", GROUPS_MD), ("commands.md", COMMANDS_MD))
    assert "envvar" in md
    assert "default" not in md  # a bare word written as code that no example passes
    rst = _notes(("advanced.rst", ADVANCED_RST), ("quick.rst", QUICK_RST))
    assert "timeout" in rst
    lines = rst["timeout"].lines  # type: ignore[attr-defined]
    assert {x.path for x in lines} == {"advanced.rst", "quick.rst"}


@given(docs=st.integers(0, 50), peak=st.integers(0, 50))
def test_the_heading_rule_is_monotonic(docs: int, peak: int) -> None:
    """More documents or more pieces of one document never unselect a heading."""
    if discussed_heading(docs, peak):
        assert discussed_heading(docs + 1, peak) and discussed_heading(docs, peak + 1)


#: A client library's page (reST, requests' class) and a router page (Markdown,
#: starlette's class): class names written as code with a capital initial.
SESSIONS_RST = (
    "Sessions\n========\n\n"
    "A ``Session`` keeps cookies across requests. "
    "The ``Session`` also pools connections. "
    "Close the ``Session`` when done. "
    "Comparisons return ``True`` or ``None``; ``True`` is kept; ``True`` is shown.\n"
)
ROUTER_MD = "# Routing\n\nEach `Session` of a websocket is separate. A handler may return `True`.\n"


def test_a_capitalised_code_name_is_a_class_and_a_reserved_word_is_not() -> None:
    notes = _notes(("sessions.rst", SESSIONS_RST), ("routing.md", ROUTER_MD))
    assert "session" in notes
    assert notes["session"].topic.title == "Session"  # type: ignore[attr-defined]
    assert "true" not in notes  # Python's reserved word, a value
