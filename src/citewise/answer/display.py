"""How answer units are shown: code fenced with its language, prose with its markup
stripped, list items and tables as lines; and the small text tests the unit builder
(:mod:`citewise.answer.units.structure`) uses to find lead-ins and fenced blocks."""

from __future__ import annotations

import re
import textwrap

from citewise.answer.clean import clean_sentence
from citewise.answer.markup import DIRECTIVE_FENCE, strip_markup

__all__ = [
    "ADMONITION_DIRECTIVES",
    "FENCE",
    "code_display",
    "code_parts",
    "directive_body",
    "fenced_pieces",
    "first_sentence",
    "is_lead_in",
    "prose_display",
    "render_code",
    "render_markdown",
    "row_display",
    "strip_marker",
    "table_display",
]

FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^`\s]*)[^\n]*$")
ADMONITION_DIRECTIVES = frozenset(
    (  # noqa: SIM905 - a readable list
        "note tip hint important warning caution danger attention error seealso admonition "
        "versionadded versionchanged deprecated todo"
    ).split()
)
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
#: A reST directive line (``.. currentmodule:: click``) or one of its option lines.
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]+::|^\s+:[\w-]+:")


def render_code(body: str, language: str | None) -> str:
    """A code block as the answer shows it: fenced, with its language."""
    return f"```{language or ''}\n{body.rstrip()}\n```"


def code_parts(text: str) -> tuple[str | None, str]:
    """(language, body) of a code node's text: fenced or indented."""
    lines = text.split("\n")
    m = FENCE.match(lines[0])
    if m:
        end = len(lines) - 1 if len(lines) > 1 and FENCE.match(lines[-1]) else len(lines)
        return (m.group(3) or None), textwrap.dedent("\n".join(lines[1:end]))
    return None, textwrap.dedent("\n".join(lines))


def prose_display(text: str) -> str:
    return clean_sentence(strip_markup(text))


def render_markdown(text: str) -> str:
    """Display of a multi-block piece (a list item with code): prose lines cleaned, fenced
    code kept with its language, nested items on their own lines."""
    out: list[str] = []
    para: list[str] = []
    lines = textwrap.dedent(text).split("\n")
    i = 0

    def flush() -> None:
        if para:
            shown = prose_display("\n".join(para))
            if shown and re.match(r"^\s*[-*+]\s", para[0]) and out:
                shown = f"- {shown}"
            if shown:
                out.append(shown)
            para.clear()

    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(m.group(2)):
                j += 1
            body = textwrap.dedent("\n".join(lines[i + 1 : j]))
            out.append(render_code(body, m.group(3) or None))
            i = j + 1
            continue
        if not line.strip():
            flush()
        elif re.match(r"^\s+(?:[-*+]|\d{1,3}[.)])\s", line) and para:
            flush()
            para.append(line)
        else:
            para.append(line)
        i += 1
    flush()
    return "\n".join(out)


def is_lead_in(text: str) -> bool:
    return strip_markup(text).rstrip().rstrip("*_`").endswith((":", "："))


def first_sentence(display: str) -> str:
    first = display.split("\n", 1)[0]
    m = re.search(r"[.!?](?:\s|$)", first)
    return first[: m.end()] if m else first


def table_display(text: str) -> str:
    """A Markdown table as lines of cells joined by `` | ``, header first."""
    rows = [
        row_display(r) for r in text.split("\n") if r.strip() and not re.fullmatch(r"[\s|:-]+", r)
    ]
    return "\n".join(rows)


def row_display(row: str) -> str:
    """A table row's cells joined by `` | `` (an escaped ``\\|`` stays inside its cell)."""
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = [
        clean_sentence(strip_markup(c.replace("\\|", "|"))) for c in re.split(r"(?<!\\)\|", body)
    ]
    return " | ".join(c for c in cells if c)


def strip_marker(text: str) -> str:
    return re.sub(r"^\s*(?:[-*+]|>)\s+", "", text, count=1)


def fenced_pieces(text: str) -> list[tuple[int, int, bool]]:
    """``text`` cut into (start, end, is_code) pieces: prose between fenced code blocks,
    and the fenced blocks themselves (offsets into ``text``)."""
    pieces: list[tuple[int, int, bool]] = []
    lines = text.split("\n")
    offset, i, prose_start = 0, 0, 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(m.group(2)):
                j += 1
            code_start = offset
            code_end = offset + sum(len(x) + 1 for x in lines[i : j + 1]) - 1
            pieces.append((prose_start, code_start, False))
            pieces.append((code_start, min(code_end, len(text)), True))
            offset = code_end + 1
            prose_start = offset
            i = j + 1
            continue
        offset += len(lines[i]) + 1
        i += 1
    pieces.append((prose_start, len(text), False))
    return pieces


def code_display(text: str) -> str | None:
    """The code display of a code node's text, or None when it is not code (a directive
    holding prose, or an admonition body)."""
    lang, body = code_parts(text)
    first = text.split("\n", 1)[0]
    d = DIRECTIVE_FENCE.match(first.strip())
    if d:
        name, arg = d.group(1).lower(), d.group(2).strip()
        if name not in _CODE_DIRECTIVES and name != "eval-rst":
            return None
        if name == "eval-rst" and _sphinx_scaffolding(body):
            return None
        lang = "rst" if name == "eval-rst" else arg.split()[0] if arg else None
        body = "\n".join(ln for ln in body.split("\n") if not re.match(r"^\s*:[\w-]+:", ln))
        body = body.lstrip("\n")  # the blank line that ends a directive's options
    if not body.strip():
        return None
    return render_code(body, lang)


def _sphinx_scaffolding(body: str) -> bool:
    """True when an ``{eval-rst}`` block holds only reST directives and their options
    (``.. currentmodule:: click.testing``, ``.. autoclass:: CliRunner``): instructions to
    the documentation builder, not an example a reader could use."""
    lines = [ln for ln in body.split("\n") if ln.strip()]
    return all(_RST_DIRECTIVE.match(ln) for ln in lines)


def directive_body(text: str) -> tuple[int, int]:
    """[start, end) offsets into a fenced directive's ``text`` of its body: after the
    opening fence line and its ``:option:`` lines, before the closing fence."""
    first = text.split("\n", 1)[0]
    start = len(first) + 1
    last_nl = text.rstrip().rfind("\n")
    end = last_nl if last_nl > len(first) else len(text)
    for ln in text[start:end].split("\n"):
        if not re.match(r"^\s*:[\w-]+:", ln):
            break
        start += len(ln) + 1
    return start, end
