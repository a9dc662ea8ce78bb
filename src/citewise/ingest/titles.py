"""Document and section titles as a reader sees them: markup that only styles or
anchors a heading is taken out.

- **attribute lists** (Python-Markdown ``attr_list``, kramdown, Pandoc): a brace group
  that opens with ``:``, ``#`` or ``.`` after optional blanks, such as
  ``{: style="height:80px" align="right"}``, ``{ #create-a-project }``, ``{.lead}``.
  Braces that hold anything else (``/users/{id}``, ``{name}``) are text and stay;
- **HTML**: tags of inline elements (``<img ...>``, ``<small>``, ``</span>``; not
  ``List<T>``) and comments are removed and the text between them kept; character
  references were already decoded by the parser.

The title's range in the document does not change (citations quote the source); only
the name shown and stored as the title and heading path does.
"""

from __future__ import annotations

import re

from citewise.ingest.tree import collapse_ws

_ATTR_LIST = re.compile(r"\{\s*[:#.][^{}\n]*\}")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
#: Elements found inside headings (inline HTML); a name outside this list (``List<T>``)
#: is text, not a tag.
_ELEMENTS = (
    "a|abbr|b|bdi|bdo|big|br|cite|code|data|del|dfn|div|em|font|i|img|ins|kbd|mark|"
    "picture|q|s|samp|small|source|span|strike|strong|sub|sup|svg|time|tt|u|var|wbr"
)
_HTML_TAG = re.compile(rf"</?(?:{_ELEMENTS})(?:\s[^<>]*)?/?>", re.I)


def clean_title(title: str) -> str:
    """``title`` without attribute lists and HTML tags, whitespace collapsed; the
    original (collapsed) when nothing would be left."""
    plain = _HTML_TAG.sub(" ", _HTML_COMMENT.sub(" ", _ATTR_LIST.sub(" ", title)))
    return collapse_ws(plain) or collapse_ws(title)


__all__ = ["clean_title"]
