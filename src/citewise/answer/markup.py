"""Documentation markup removed from answer text (the quoted span is never changed).

Real documentation sets write more than CommonMark: MkDocs admonitions (``!!! tip
"Gotcha"``, ``??? note``), MyST roles (``{func}`clear```, ``{ref}`text <target>```),
MyST targets (``(option-flags)=``), Sphinx directive fences (```` ```{note} ````), include
markers (``{* docs_src/app.py hl[3] *}``, ``--8<-- "file"``), raw HTML tags and Markdown
links. A reader of the answer should see the words, not the syntax; the citation keeps
the exact source text and offsets, so nothing is lost.

Everything here is a pure string function used on display text only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citewise.memo import text_memo

__all__ = [
    "ADMONITION_LINE",
    "DIRECTIVE_FENCE",
    "admonition_title",
    "is_scaffolding",
    "prose_only",
    "strip_markup",
]

#: ``!!! note``, ``!!! tip "Gotcha"``, ``???+ warning "Title"`` (MkDocs / pymdownx).
ADMONITION_LINE = re.compile(
    r'^[ \t]*(?:!!!|\?\?\?\+?)[ \t]*([\w-]+)?(?:[ \t]+"([^"\n]*)")?[ \t]*$'
)
_ADMONITION_HEAD = re.compile(
    r'^[ \t]*(?:!!!|\?\?\?\+?)[ \t]*[\w-]*(?:[ \t]+"([^"\n]*)")?[ \t]*\n?'
)
#: ```` ```{name} argument ```` / ```` :::{name} ```` : a MyST or Sphinx directive.
DIRECTIVE_FENCE = re.compile(r"^(?:`{3,}|~{3,}|:{3,})[ \t]*\{([\w:.-]+)\}[ \t]*(.*)$")
_ROLE_WITH_TARGET = re.compile(r"\{[\w:.-]+\}`([^`<]*?)\s*<[^`>]*>`")
_ROLE = re.compile(r"\{[\w:.-]+\}`([^`]*)`")
#: reST (Sphinx) roles: ``:class:`Session <requests.Session>``` shows "Session",
#: ``:meth:`~requests.Response.json``` shows "json" (the tilde asks for the last part).
_RST_ROLE_WITH_TARGET = re.compile(r"(?<![\w`]):(?:[\w-]+:)+`([^`<]*?)\s*<[^`>]*>`")
_RST_ROLE = re.compile(r"(?<![\w`]):(?:[\w-]+:)+`(~?)([^`]*)`")
#: reST hyperlink references: ```Retry <https://...>`_``, ```urllib3.util.Retry`_``.
_RST_LINK = re.compile(r"(?<!`)`([^`<\n]+?)\s*<[^`>\n]*>`__?(?!\w)")
_RST_REF = re.compile(r"(?<!`)`([^`\n]+)`__?(?!\w)")
#: A paragraph ending in ``::`` introduces a literal block: "text::" reads "text:";
#: "text ::" and a lone "::" read as nothing (docutils' rule).
_RST_LITERAL_COLON = re.compile(r"(?<=\S)::[ \t]*$", re.M)
_RST_LITERAL_NONE = re.compile(r"(?:^|[ \t]+)::[ \t]*$", re.M)
#: ``.. note::`` starts a labelled aside; other directive lines (``.. module:: x``,
#: ``.. code-block:: python``) are scaffolding.
_RST_ADMONITION = re.compile(
    r"^[ \t]*\.\.[ \t]+(note|tip|hint|important|warning|caution|danger|attention)::[ \t]*",
    re.M | re.I,
)
_RST_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+[\w:-]+::.*$", re.M)
_MYST_TARGET = re.compile(r"^\(\s*[\w.:-]+\s*\)=\s*$")
#: ``/// tip`` ... ``///`` (pymdownx blocks): the fence lines are markup, the body is prose.
_BLOCK_FENCE = re.compile(r"^/{3,}[ \t]*(?:[\w-]+(?:[ \t]*\|[^\n]*)?)?[ \t]*$")
_INCLUDE = re.compile(r"\{\*.*?\*\}|^-{2}8<-{2}.*$|\{%\s*include.*?%\}", re.M)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HTML_NAMES = (
    "a|abbr|b|blockquote|br|button|center|code|dd|del|details|div|dl|dt|em|figcaption|"
    "figure|font|form|h[1-6]|hr|i|iframe|img|input|ins|kbd|label|li|mark|noscript|ol|p|"
    "path|picture|pre|s|script|section|small|source|span|strong|style|sub|summary|sup|svg|"
    "table|tbody|td|th|thead|tr|u|ul|video"
)
_HTML_TAG = re.compile(rf"</?(?:{_HTML_NAMES})(?:\s+[^<>]*?)?/?>", re.I)
_STAR_EM = re.compile(r"(?<![\w*])\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?![\w*])")
_UNDER_EM = re.compile(r"(?<![\w_])_(?![\s_])([^_\n]+?)(?<![\s_])_(?![\w_])")
_SPACE_PUNCT = re.compile(r"[ \t]+([,.;:!?])(?=\s|$)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_OPTION_LINE = re.compile(r"^[ \t]*:[\w-]+:.*$", re.M)


def admonition_title(line: str) -> str | None:
    """The custom title of an admonition head line (``"Gotcha"``), "" for none, or None
    when ``line`` is not an admonition head."""
    m = ADMONITION_LINE.match(line)
    if not m:
        return None
    return (m.group(2) or "").strip()


@text_memo
def strip_markup(text: str) -> str:
    """``text`` without documentation markup: admonition heads (a custom title is kept
    as a label), roles (their text kept), targets, include markers, directive option
    lines, HTML tags and comments, link and image syntax (the link text kept)."""
    s = text
    head = _ADMONITION_HEAD.match(s)
    if head and (s.lstrip().startswith("!!!") or s.lstrip().startswith("???")):
        title = (head.group(1) or "").strip()
        s = s[head.end() :]
        if title:
            s = f"{title}: {s.lstrip()}"
    s = _HTML_COMMENT.sub(" ", s)
    s = _INCLUDE.sub(" ", s)
    s = _ROLE_WITH_TARGET.sub(r"`\1`", s)
    s = _ROLE.sub(r"`\1`", s)
    if "`" in s or ".." in s or "::" in s:
        s = _rst(s)
    s = _IMAGE.sub(r"\1", s)
    s = _LINK.sub(r"\1", s)
    s = _REF_LINK.sub(r"\1", s)
    s = _outside_code(s, _plain)
    lines = [
        ln
        for ln in s.split("\n")
        if not _MYST_TARGET.match(ln.strip()) and not _BLOCK_FENCE.match(ln.strip())
    ]
    return "\n".join(lines)


def _rst(s: str) -> str:
    """reST markup of prose: roles and link references keep their text, admonition
    directives become their label, other directive lines and literal-block marks go."""
    s = _RST_ROLE_WITH_TARGET.sub(r"`\1`", s)
    s = _RST_ROLE.sub(
        lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", s
    )
    s = _RST_LINK.sub(r"\1", s)
    s = _RST_REF.sub(r"\1", s)
    s = _RST_ADMONITION.sub(lambda m: m.group(1).capitalize() + ": ", s)
    s = _RST_DIRECTIVE.sub("", s)
    return _RST_LITERAL_NONE.sub("", _RST_LITERAL_COLON.sub(":", s))


def _plain(part: str) -> str:
    """Prose outside code: HTML tags and single-character emphasis (``*x*``, ``_x_``)
    removed, no space left before punctuation."""
    part = _UNDER_EM.sub(r"\1", _STAR_EM.sub(r"\1", _HTML_TAG.sub(" ", part)))
    return _SPACE_PUNCT.sub(r"\1", part)


def _outside_code(text: str, fix: Callable[[str], str]) -> str:
    """``fix`` applied to the parts of ``text`` outside inline code spans."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(fix(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(fix(text[pos:]))
    return "".join(out)


_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)


def prose_only(text: str) -> str:
    """``text`` without fenced code blocks and inline code spans: what a reader sees as
    prose (``<job_id>`` inside code is a placeholder, not a tag)."""
    return _CODE_SPAN.sub(" ", _FENCED.sub(" ", text))


@text_memo  # a unit builder asks it of each sentence and again of the sentence before
def is_scaffolding(text: str) -> bool:
    """True when ``text`` is markup only: an admonition head, a MyST target, an include
    marker, a directive option line, a lone HTML tag; nothing a reader could use."""
    s = text.strip()
    if not s:
        return True
    if ADMONITION_LINE.match(s) or _MYST_TARGET.match(s) or _BLOCK_FENCE.match(s):
        return True
    rest = _OPTION_LINE.sub("", _INCLUDE.sub("", _HTML_COMMENT.sub("", s)))
    rest = _HTML_TAG.sub("", rest)
    return not re.search(r"\w", rest)
