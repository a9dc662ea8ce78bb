"""Evidence shown as the reader sees it (issue 36): the web page's evidence panel renders
a Markdown excerpt as HTML and reflows a PDF excerpt's line breaks, while the citation
view keeps the exact source text.

Safety: Markdown goes through markdown-it-py (CommonMark, the maintained parser the ingest
stage already uses) with raw HTML turned off, so any tag in the source is escaped text;
markdown-it's link check refuses ``javascript:``, ``vbscript:``, ``file:`` and ``data:``
targets; images are rendered as their alt text (the page never fetches an address found
in a document: it runs offline and must not leak that it was read); every link opens in
a new tab with ``rel="noopener noreferrer nofollow"``. Plain text is escaped. The page
receives not HTML but a tree of allowed elements (:func:`to_tree`), which it builds with
``createElement``/``textContent``: a second wall if the renderer ever emitted more. These
are pure functions; the HTTP route is routes_display.py.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import PurePosixPath
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

Shape = Literal["markdown", "pdf", "text"]

#: File suffixes whose text is Markdown source.
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mdx"})
#: A line break inside a paragraph: one newline between two non-blank lines.
_SOFT_BREAK = re.compile(r"(?<=\S)[ \t]*\n[ \t]*(?=\S)")
#: Runs of blank lines (a paragraph break) collapse to one.
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n+")


def shape_of(path: str, locator: dict[str, Any] | None = None) -> Shape:
    """How an excerpt of ``path`` is shown: Markdown source is rendered, PDF text (a
    ``.pdf`` path or a locator with a page) is reflowed, anything else stays as written."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix == ".pdf" or (locator is not None and "page" in locator):
        return "pdf"
    return "text"


def reflow(text: str) -> str:
    """PDF text with the page's line breaks inside paragraphs joined: a line ending in a
    hyphen joins the next line without a space ("well-\\nknown" → "well-known"; the hyphen
    is kept because a PDF does not say whether it was a soft one), any other line break
    becomes a space; blank lines still separate paragraphs."""
    paragraphs = _PARAGRAPH_BREAK.split(text.strip())
    out = []
    for p in paragraphs:
        joined = re.sub(r"-[ \t]*\n[ \t]*(?=\S)", "-", p)
        out.append(_SOFT_BREAK.sub(" ", joined))
    return "\n\n".join(out)


def _image_as_alt(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    alt = self.renderInlineAsText(tokens[idx].children or [], options, env)
    return f'<span class="img-alt">[{html.escape(alt)}]</span>'


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.add_render_rule("image", _image_as_alt)

    def link_open(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        tokens[idx].attrSet("target", "_blank")
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


def to_html(text: str, shape: Shape) -> str:
    """``text`` as safe HTML for the evidence panel (module docstring)."""
    if shape == "markdown":
        rendered: str = _markdown().render(text)
        return rendered
    if shape == "pdf":
        return "".join(f"<p>{html.escape(p)}</p>" for p in reflow(text).split("\n\n") if p)
    return f"<pre>{html.escape(text)}</pre>"


#: Elements the evidence panel builds, and the attributes each may carry. Anything else
#: the renderer could emit is dropped with its tag (its text stays).
ALLOWED: dict[str, frozenset[str]] = {
    **{t: frozenset() for t in ("p", "strong", "em", "code", "pre", "ul", "ol", "li")},
    **{t: frozenset() for t in ("blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "br")},
    **{t: frozenset() for t in ("hr", "table", "thead", "tbody", "tr", "th", "td")},
    "a": frozenset({"href"}),
    "span": frozenset({"class"}),
    "ol": frozenset({"start"}),
}
_VOID = frozenset({"br", "hr"})
#: Link targets the page may follow: the web, mail, and in-page anchors.
_SAFE_HREF = re.compile(r"^(?:https?:|mailto:|#)", re.IGNORECASE)

Tree = list["str | dict[str, Any]"]


class _TreeBuilder(HTMLParser):
    """HTML → a tree of allowed elements and text (the page builds it with
    ``createElement`` and ``textContent``, never by parsing HTML)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: Tree = []
        self.stack: list[tuple[str, Tree]] = [("", self.root)]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED:
            return
        keep = {k: v or "" for k, v in attrs if k in ALLOWED[tag]}
        if "href" in keep and not _SAFE_HREF.match(keep["href"]):
            del keep["href"]
        node: dict[str, Any] = {"t": tag, "a": keep, "c": []}
        self.stack[-1][1].append(node)
        if tag not in _VOID:
            self.stack.append((tag, node["c"]))

    def handle_endtag(self, tag: str) -> None:
        if tag in ALLOWED and tag not in _VOID and any(t == tag for t, _ in self.stack[1:]):
            while self.stack[-1][0] != tag:
                self.stack.pop()
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1][1].append(data)


def to_tree(text: str, shape: Shape) -> Tree:
    """``text`` as a tree of allowed elements (:data:`ALLOWED`) and strings."""
    builder = _TreeBuilder()
    builder.feed(to_html(text, shape))
    builder.close()
    return builder.root
