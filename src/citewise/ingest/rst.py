"""reStructuredText -> :class:`RawNode` tree, with docutils.

docutils parses the file into a doctree (sections, paragraphs, lists, literal and code
blocks, admonitions, tables). Its line numbers are approximate (a title's line is its
underline, a code block's may be one off), so each block is placed in the source by
matching its rendered words in order, starting no earlier than a few lines before
docutils' line and never before the end of the previous block. A block runs from the
start of the line holding its first word to the end of the line holding its last, so
``text[char_start:char_end]`` is always exact source text.

``search_text`` is the rendered text: role markup (``:ref:`title <target>```,
``:class:`~x.Y```) becomes its title, inline literals lose their backquotes. Sphinx
roles are registered as plain literals; unknown directives (``toctree``, ``autoclass``)
are left out (docutils reports them and we drop the report).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import roles

from citewise.core.records import NodeKind
from citewise.errors import ParseLimitExceeded
from citewise.ingest.decode import LineIndex, trim_range
from citewise.ingest.limits import ParseBudget
from citewise.ingest.tree import Heading, RawNode, collapse_ws, nest_sections

_SETTINGS = {
    "report_level": 5,  # keep docutils quiet; unknown directives are dropped below
    "halt_level": 5,
    "warning_stream": io.StringIO(),
    "file_insertion_enabled": False,  # never read other files (.. include::)
    "raw_enabled": False,
    "doctitle_xform": False,  # keep the first title as a section, not the doc title
    "sectsubtitle_xform": False,
    "input_encoding": "unicode",
}
_SPHINX_ROLES = [
    "ref",
    "doc",
    "class",
    "func",
    "meth",
    "attr",
    "mod",
    "exc",
    "data",
    "obj",
    "term",
    "envvar",
    "option",
    "file",
    "command",
    "program",
    "kbd",
    "abbr",
    "any",
    "numref",
    "download",
    "guilabel",
    "menuselection",
    "samp",
    "keyword",
    "token",
    "const",
    "py:class",
    "py:func",
    "py:meth",
    "py:attr",
    "py:mod",
    "py:exc",
    "py:data",
    "py:obj",
    "py:const",
]
_ADMONITIONS = (nodes.Admonition,)
_SKIP = (
    nodes.system_message,
    nodes.comment,
    nodes.target,
    nodes.substitution_definition,
    nodes.problematic,
    nodes.raw,
)
_ADORN = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_HINT_SLACK = 3
_WORD_GAP = 3
_PUNCT = ".,:;!?()[]{}'\"*`"
_DIRECTIVE = re.compile(r"^\.\. [\w:-]+::")


def _role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """A Sphinx cross-reference role read as its title: ``title <target>`` -> ``title``."""
    plain = utils.unescape(text)
    m = re.match(r"^(.*?)\s*<[^<>]*>$", plain, re.S)
    title = (m.group(1) if m and m.group(1) else plain).lstrip("~!")
    return [nodes.literal(rawtext, title)], []


for _name in _SPHINX_ROLES:
    roles.register_local_role(_name, _role)


def _words(text: str) -> list[str]:
    return text.split()


class _Locator:
    """Places rendered blocks in the source text, in document order."""

    def __init__(self, text: str, index: LineIndex, body_offset: int) -> None:
        self.text = text
        self.index = index
        self.cursor = body_offset
        self.line_offset = index.line_of(body_offset) - 1 if body_offset else 0

    def _line_bounds(self, pos: int) -> tuple[int, int]:
        line = self.index.line_of(pos)
        return self.index.line_start(line), self.index.line_end(line)

    def place(self, rendered: str, line_hint: int | None) -> tuple[int, int] | None:
        words = _words(rendered)
        if not words:
            return None
        lo, hi = self.cursor, len(self.text)
        if line_hint:
            hint_line = max(1, self.line_offset + line_hint - _HINT_SLACK)
            if hint_line <= self.index.line_count:
                lo = max(lo, self.index.line_start(hint_line))
            far = hint_line + 3 * _HINT_SLACK
            if far <= self.index.line_count:
                hi = self.index.line_end(far)
        first, head = -1, words[0]
        # a first word ends in punctuation the markup hides ("`SNI`_," renders "SNI,")
        for head in dict.fromkeys((words[0], words[0].strip(_PUNCT))):
            if not head:
                continue
            first = self.text.find(head, lo, hi)
            if first < 0:
                first = self.text.find(head, self.cursor)
            if first >= 0:
                break
        if first < 0:
            return None
        pos = first + len(head)
        for w in words[1:]:
            # the next word lies close behind (markup and blank lines in between at most)
            stop = self._gap_end(pos)
            for cand in (w, w.strip(_PUNCT)):
                at = self.text.find(cand, pos, stop) if cand else -1
                if at >= 0:
                    pos = at + len(cand)
                    break
        start = max(self._line_bounds(first)[0], self.cursor)
        end = self._line_bounds(max(pos - 1, first))[1]
        start, end = trim_range(self.text, start, end)
        self.cursor = end
        return start, end

    def _gap_end(self, pos: int) -> int:
        """Where the search for a block's next word stops: :data:`_WORD_GAP` lines after
        ``pos``, not counting a lone ``::`` line and the blank lines beside it, so a
        literal block nested in a list item after its own ``::`` line is still found."""
        line = self.index.line_of(pos)
        last = self.index.line_count
        counted = 0
        while line < last and counted < _WORD_GAP:
            line += 1
            body = self._body(line)
            if body == "::" or (not body and "::" in (self._body(line - 1), self._body(line + 1))):
                continue
            counted += 1
        return self.index.line_end(line)

    def _body(self, line: int) -> str:
        if not 1 <= line <= self.index.line_count:
            return ""
        return self.text[self.index.line_start(line) : self.index.line_end(line)].strip()

    def directive_start(self, start: int, floor: int) -> int:
        """Move ``start`` back to the ``.. name::`` line that opens the block, if any."""
        line = self.index.line_of(start) - 1
        while line >= 1 and self.index.line_start(line) >= floor:
            body = self.text[self.index.line_start(line) : self.index.line_end(line)].strip()
            if _DIRECTIVE.match(body):
                return self.index.line_start(line) + self.text[
                    self.index.line_start(line) : self.index.line_end(line)
                ].index(".")
            if body and not body.startswith(":"):  # an option line (:linenos:) is part of it
                return start
            line -= 1
        return start

    def title_range(self, start: int, end: int) -> tuple[int, int]:
        """Extend a section title's range over its underline (and overline)."""
        line = self.index.line_of(start)
        last = self.index.line_of(max(end - 1, start))
        if last + 1 <= self.index.line_count:
            below = self.text[self.index.line_start(last + 1) : self.index.line_end(last + 1)]
            if _ADORN.match(below):
                end = self.index.line_end(last + 1)
        if line > 1:
            above = self.text[self.index.line_start(line - 1) : self.index.line_end(line - 1)]
            if _ADORN.match(above) and self.index.line_start(line - 1) >= self.cursor_floor:
                start = self.index.line_start(line - 1)
        self.cursor = max(self.cursor, end)
        return trim_range(self.text, start, end)

    cursor_floor = 0


def _block(node: nodes.Element) -> tuple[NodeKind, dict[str, Any], str] | None:
    """The kind, attrs and search text of a block element we emit (None: descend)."""
    rendered = collapse_ws(node.astext())
    if isinstance(node, nodes.literal_block | nodes.doctest_block):
        classes = [c for c in node.get("classes", []) if c != "code"]
        return "code", {"language": classes[0] if classes else None}, rendered
    if isinstance(node, _ADMONITIONS):
        name = type(node).__name__
        label = "" if name == "admonition" else name.capitalize() + ": "
        return "blockquote", {"directive": name}, label + rendered
    if isinstance(node, nodes.list_item):
        return "list_item", {}, rendered
    if isinstance(node, nodes.table):
        return "table", {}, rendered
    if isinstance(node, nodes.block_quote):
        return "blockquote", {}, rendered
    if isinstance(
        node, nodes.paragraph | nodes.definition_list_item | nodes.field | nodes.line_block
    ):
        return "paragraph", {}, rendered
    return None


def _iter(node: nodes.Element, depth: int) -> Iterator[tuple[nodes.Element, int]]:
    for child in node.children:
        if not isinstance(child, nodes.Element) or isinstance(child, _SKIP):
            continue
        yield child, depth


#: Directives whose body docutils keeps as literal text (it does not parse it for blocks).
_LITERAL_DIRECTIVE = re.compile(
    r"^\.\.\s+(?:code-block|code|sourcecode|highlight|literalinclude|math|raw|parsed-literal|"
    r"productionlist|doctest|testcode|testoutput)::"
)


def indent_depth(text: str) -> int:
    """How many indentation levels nest in ``text``: docutils opens a nested block (block
    quote, list body, definition) per deeper level and parses it recursively, so this
    bounds its recursion before it starts (tabs count as 8 columns, as docutils reads them).
    The body of a literal block (after ``::``, or of a code or math directive) is text,
    not blocks: its indentation (a diagram, nested code) does not count."""
    stack = [0]
    deepest = 0
    literal_at: int | None = None  # indentation of the line that opened a literal block
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        indent = len(line.expandtabs(8)) - len(stripped.expandtabs(8))
        if literal_at is not None:
            if indent > literal_at:
                continue
            literal_at = None
        while indent < stack[-1]:
            stack.pop()
        if indent > stack[-1]:
            stack.append(indent)
            deepest = max(deepest, len(stack) - 1)
        body = stripped.rstrip()
        literal_mark = body.endswith("::") and not body.startswith(".. ")  # "text::"
        if literal_mark or _LITERAL_DIRECTIVE.match(body):  # or ".. code-block:: python"
            literal_at = indent
    return deepest


def _doctree(source: str, budget: ParseBudget) -> nodes.document:
    """docutils' doctree of ``source`` within ``budget``: nesting past ``max_depth`` is
    refused before parsing; docutils' own parse cannot be interrupted, so its time is
    checked when it returns (it runs in roughly linear time, about 20 µs per byte of
    tables on this project's benchmark machine)."""
    budget.depth(indent_depth(source))
    try:
        tree = publish_doctree(source, settings_overrides=dict(_SETTINGS))
    except RecursionError:  # nesting on one line ("- - - - x") that indentation hides
        raise ParseLimitExceeded(
            f"{budget.name}: blocks nest too deeply for the reStructuredText parser "
            "(past Python's recursion limit).",
            hint="Flatten the nested lists or blocks, or split the file.",
        ) from None
    budget.check_time()
    return tree


def parse_rst(
    text: str, body_offset: int, index: LineIndex | None = None, budget: ParseBudget | None = None
) -> tuple[list[RawNode], str | None]:
    """Parse ``text[body_offset:]``; returns the nodes (offsets into ``text``) and the
    first title. ``budget`` bounds nesting, nodes and time (None: the default limits)."""
    idx = index or LineIndex(text)
    budget = budget or ParseBudget("document.rst")
    tree = _doctree(text[body_offset:], budget)
    loc = _Locator(text, idx, body_offset)
    items: list[Heading | RawNode] = []
    first_title: str | None = None

    def visit(node: nodes.Element, depth: int) -> None:
        nonlocal first_title
        budget.depth(depth)
        for child, d in _iter(node, depth):
            budget.step()
            if isinstance(child, nodes.section):
                title = child.next_node(nodes.title)
                if title is not None:
                    name = collapse_ws(title.astext())
                    loc.cursor_floor = loc.cursor
                    span = loc.place(title.astext(), None)
                    if span is not None:
                        s, e = loc.title_range(*span)
                        items.append(Heading(min(d + 1, 6), s, e, name))
                        first_title = first_title or name
                visit(child, d + 1)
                continue
            if isinstance(child, nodes.title):
                continue
            block = _block(child)
            if block is None:
                visit(child, d)
                continue
            kind, attrs, search = block
            floor = loc.cursor
            span = loc.place(child.astext(), child.line)
            if span is not None and search:
                start = span[0]
                if kind in ("code", "blockquote"):
                    start = loc.directive_start(start, floor)
                items.append(RawNode(kind, start, span[1], search, attrs=attrs))

    visit(tree, 0)
    return nest_sections(text, items), first_title
