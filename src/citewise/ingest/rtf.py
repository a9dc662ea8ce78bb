"""RTF -> plain text with striprtf, then paragraphs as for a plain-text file.

RTF is 7-bit text with escapes (``\\'e9``, ``\\u8364?``); the bytes are read as
Windows-1252 (RTF's default code page, which never fails to decode) and striprtf turns
control words and groups into text, one line per paragraph. The extracted text is that
plain text, so citations quote what a reader sees, not the markup. The ``\\title`` of
the ``\\info`` group, when it is plain text, is the document's title.

Budget: before striprtf runs, one pass counts group nesting (unescaped ``{``/``}``) and
reports it to the parse budget (``max_depth``), so a file of deeply nested groups stops
with ``PARSE_LIMIT`` instead of costing striprtf's time; the paragraphs count as nodes.
"""

from __future__ import annotations

import re

from citewise.errors import BrokenFile, EmptyFile, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget
from citewise.ingest.text import parse_text

#: The ``{\\info ... {\\title ...}}`` group's plain text (no nested groups inside it).
_TITLE = re.compile(r"\{\\title\s+([^{}\\]*)\}")
#: An escaped brace or backslash (text, not a group), or a group brace.
_BRACE = re.compile(r"\\[\\{}]|[{}]")


def group_depth(source: str, budget: ParseBudget) -> int:
    """The deepest group nesting, reported to ``budget`` as it grows."""
    depth = deepest = 0
    for m in _BRACE.finditer(source):
        token = m.group()
        if token == "{":
            depth += 1
            if depth > deepest:
                deepest = depth
                budget.depth(depth)
        elif token == "}":
            depth = max(depth - 1, 0)
        budget.step()
    return deepest


def parse_rtf(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    budget = budget or ParseBudget(name)
    source = raw.decode("cp1252", errors="replace")
    if not source.lstrip().startswith("{\\rtf"):
        raise BrokenFile(
            f"{name}: not an RTF file (it does not start with '{{\\rtf').",
            hint="Check the file (a renamed .doc or .txt is not RTF); save it as RTF again.",
        )
    group_depth(source, budget)
    try:
        from striprtf.striprtf import rtf_to_text

        text = str(rtf_to_text(source, errors="replace"))  # type: ignore[no-untyped-call]
    except IngestError:
        raise
    except Exception as exc:  # striprtf raises plain ValueError/IndexError on bad input
        raise BrokenFile(
            f"{name}: the RTF could not be read ({exc}).",
            hint="Open and save the file again in a word processor.",
        ) from exc
    budget.check_time()
    if not text.strip():
        raise EmptyFile(f"{name}: the RTF has no text.", hint="Check the file.")
    found = _TITLE.search(source)
    title = " ".join(found.group(1).split()) if found else ""
    return Extracted(text, parse_text(text, 0, budget), title or None)


__all__ = ["group_depth", "parse_rtf"]
