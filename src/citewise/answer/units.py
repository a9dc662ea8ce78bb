"""Answer units that follow the document's structure.

A sentence is the wrong unit for documentation: "You can install the extra using pip:"
means nothing without the code block after it, a parameter item loses its "Defaults to
600." when it is cut at the full stop, and "If this variable is set ..." needs the section
heading that names the variable. :func:`document_units` reads one document version's
parsed nodes and returns the units an answer may quote, each one exact, contiguous span of
the source (so its citation is exact) with a display form for the answer text:

* ``sentence`` - a sentence of a paragraph; a parenthetical that follows on its own
  ("(Default 4)") stays with it;
* ``para`` - a short paragraph (two or three sentences, up to :data:`PARA_CAP`
  characters) as a whole, besides its sentences: "X takes a code. By default, code is 0.";
* ``item`` - a whole list item or blockquote (up to :data:`ITEM_CAP` characters; longer
  ones are read piece by piece like a paragraph, code blocks inside kept whole);
* ``lead`` - a lead-in sentence ending in ":" together with the block it introduces: the
  code block, the list (its consecutive items), the table or the nested list or code right
  after it, up to :data:`BLOCK_CAP` characters;
* ``code`` - a code block alone, shown fenced with its language;
* ``row`` - a table row (the header row is not a unit);
* ``table`` - a whole table up to :data:`BLOCK_CAP` characters, header first (offered to
  comparisons and definitions, which want the compared figures or key properties).

Markup is handled on the way: MkDocs admonition heads and MyST targets or include markers
are not units; an admonition body that CommonMark reads as indented code, and the body of
a MyST admonition directive (```` ```{note} ````), are prose; a ```` ```{code-block} py ````
directive is code in language ``py``. :attr:`Unit.heading` is set for a sentence that
refers back to its section ("this variable", "this option") without naming it: the
answer shows the heading before it and cites the heading line as well.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from citewise.analysis.tokenize import key_terms, tokenize
from citewise.answer.clean import clean_sentence
from citewise.answer.markup import (
    DIRECTIVE_FENCE,
    admonition_title,
    is_scaffolding,
    strip_markup,
)
from citewise.evidence.sentences import Span, split_sentences
from citewise.ingest.chunking import chunk_members
from citewise.ingest.models import Node

__all__ = ["BLOCK_CAP", "ITEM_CAP", "Unit", "document_units", "refers_back", "render_code"]

#: A list item or blockquote up to this many characters is quoted whole.
ITEM_CAP = 900
#: A lead-in carries at most this many characters of the block after it.
BLOCK_CAP = 1500
#: A paragraph of two or three sentences up to this many characters is also one unit.
PARA_CAP = 360

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^`\s]*)[^\n]*$")
_ADMONITION_DIRECTIVES = frozenset(
    (  # noqa: SIM905 - a readable list
        "note tip hint important warning caution danger attention error seealso admonition "
        "versionadded versionchanged deprecated todo"
    ).split()
)
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
_NESTED = re.compile(r"\n[ \t]+(?:[-*+]|\d{1,3}[.)])[ \t]")
_ANAPHORA = re.compile(
    r"\b(?:this|these)\s+(?:\w+\s+)?(?:variables?|options?|settings?|parameters?|"
    r"flags?|fields?|keys?|values?|arguments?|commands?|functions?|methods?|class(?:es)?|"
    r"attributes?|propert(?:y|ies)|modes?|features?|hooks?|callbacks?|decorators?|types?|"
    r"headers?|endpoints?|files?|directives?|switch(?:es)?)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Unit:
    """One quotable unit: ``doc_text[start:end] == text``; ``display`` is what an answer
    shows. ``heading`` is the section heading line (exact span) to show and cite before
    the unit, when the unit refers to it."""

    start: int
    end: int
    text: str
    display: str
    kind: str  # sentence | para | item | lead | code | row | table
    heading: Span | None = None
    heading_text: str = ""
    #: A ``lead`` unit's lead-in sentence as shown (relevance weighs it on its own too).
    lead_in: str = ""
    #: The heading of the unit's own section (shown or not), e.g. "Checks after each node".
    section: str = ""
    #: That heading's line (exact span), whether or not the unit shows it.
    section_line: Span | None = None

    def span(self) -> Span:
        if self.kind == "row":
            return Span(self.start, self.end, self.text, "table_row")
        if self.kind == "item":
            return Span(self.start, self.end, self.text, "list_item")
        return Span(self.start, self.end, self.text, "sentence")


@dataclass(frozen=True, slots=True)
class _Doc:
    text: str
    base: int

    def slice(self, start: int, end: int) -> str:
        return self.text[start - self.base : end - self.base]


def render_code(body: str, language: str | None) -> str:
    """A code block as the answer shows it: fenced, with its language."""
    return f"```{language or ''}\n{body.rstrip()}\n```"


def _code_parts(text: str) -> tuple[str | None, str]:
    """(language, body) of a code node's text: fenced or indented."""
    lines = text.split("\n")
    m = _FENCE.match(lines[0])
    if m:
        end = len(lines) - 1 if len(lines) > 1 and _FENCE.match(lines[-1]) else len(lines)
        return (m.group(3) or None), textwrap.dedent("\n".join(lines[1:end]))
    return None, textwrap.dedent("\n".join(lines))


def _prose_display(text: str) -> str:
    return clean_sentence(strip_markup(text))


def _render_markdown(text: str) -> str:
    """Display of a multi-block piece (a list item with code): prose lines cleaned, fenced
    code kept with its language, nested items on their own lines."""
    out: list[str] = []
    para: list[str] = []
    lines = textwrap.dedent(text).split("\n")
    i = 0

    def flush() -> None:
        if para:
            shown = _prose_display("\n".join(para))
            if shown and re.match(r"^\s*[-*+]\s", para[0]) and out:
                shown = f"- {shown}"
            if shown:
                out.append(shown)
            para.clear()

    while i < len(lines):
        line = lines[i]
        m = _FENCE.match(line)
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


def _sentences(doc: _Doc, start: int, end: int) -> list[Span]:
    """Sentences of prose ``[start, end)``; a parenthetical alone joins its sentence."""
    spans = split_sentences(doc.slice(start, end), start, blocks=False)
    out: list[Span] = []
    for s in spans:
        if out and s.text.startswith("(") and len(s.text) <= 80:
            prev = out.pop()
            s = Span(prev.start, s.end, doc.slice(prev.start, s.end))
        out.append(s)
    return out


def _is_lead_in(text: str) -> bool:
    return strip_markup(text).rstrip().rstrip("*_`").endswith((":", "："))


def _heading_of(section: Node | None) -> tuple[Span | None, str]:
    if section is None:
        return None, ""
    line = section.text.split("\n", 1)[0]
    shown = clean_sentence(strip_markup(line)).strip()
    if not shown or not line.lstrip().startswith("#"):
        return None, ""
    return Span(
        section.char_start, section.char_start + len(line.rstrip()), line.rstrip(), "heading"
    ), shown


def _first_sentence(display: str) -> str:
    first = display.split("\n", 1)[0]
    m = re.search(r"[.!?](?:\s|$)", first)
    return first[: m.end()] if m else first


def refers_back(display: str, heading: str) -> bool:
    """The unit points at its section ("this variable") without naming the heading."""
    if not heading or not _ANAPHORA.search(display):
        return False
    named = set(tokenize(display))
    terms = key_terms(heading)
    return bool(terms) and not all(t in named for t in terms)


class _Builder:
    def __init__(self, nodes: Sequence[Node]) -> None:
        root = next((n for n in nodes if n.kind == "document"), None)
        if root is None:
            root = min(nodes, key=lambda n: (n.char_start, -n.char_end))
        self.doc = _Doc(root.text, root.char_start)
        self.by_id = {n.id: n for n in nodes}
        self.children: dict[str, list[Node]] = {}
        for n in nodes:
            if n.parent_id is not None:
                self.children.setdefault(n.parent_id, []).append(n)
        self.members = chunk_members(nodes)
        self.out: list[Unit] = []

    def add(
        self,
        start: int,
        end: int,
        display: str,
        kind: str,
        section: Node | None,
        lead_in: str = "",
    ) -> None:
        if not display.strip() or end <= start:
            return
        heading, htext = _heading_of(section)
        opening = lead_in or _first_sentence(display)
        refers = (
            heading is not None
            and kind in ("sentence", "para", "item", "lead")
            and refers_back(opening, htext)
        )
        self.out.append(
            Unit(
                start,
                end,
                self.doc.slice(start, end),
                display,
                kind,
                heading if refers else None,
                htext if refers else "",
                lead_in,
                htext,
                heading,
            )
        )

    # -- the block that a lead-in introduces ------------------------------------------
    def _block_after(self, k: int) -> tuple[int, str] | None:
        """(end, display) of the block right after member ``k`` in its section."""
        if k + 1 >= len(self.members):
            return None
        node, sec = self.members[k]
        nxt, nsec = self.members[k + 1]
        if nsec != sec or nxt.heading_path != node.heading_path:
            return None
        if nxt.kind == "code" or nxt.kind == "mermaid":
            shown = self._code_display(nxt)
            if shown is None or nxt.char_end - nxt.char_start > BLOCK_CAP:
                return None
            return nxt.char_end, shown
        if nxt.kind == "table":
            if nxt.char_end - nxt.char_start > BLOCK_CAP:
                return None
            return nxt.char_end, _table_display(nxt.text)
        if nxt.kind == "list_item":
            end, lines = nxt.char_start, list[str]()
            for item, isec in self.members[k + 1 :]:
                if item.kind != "list_item" or isec != sec:
                    break
                if lines and (
                    item.char_end - nxt.char_start > BLOCK_CAP
                    or self.doc.slice(end, item.char_start).count("\n") > 2
                ):
                    break
                body = _render_markdown(_strip_marker(item.text)).replace("\n", "\n  ")
                lines.append(body if re.match(r"\d{1,3}[.)]", body) else f"- {body}")
                end = item.char_end
            return (end, "\n".join(lines)) if lines else None
        return None

    def _code_display(self, node: Node) -> str | None:
        """The code display of a code node, or None when it is not code (a directive
        holding prose, or an admonition body)."""
        lang, body = _code_parts(node.text)
        first = node.text.split("\n", 1)[0]
        d = DIRECTIVE_FENCE.match(first.strip())
        if d:
            name, arg = d.group(1).lower(), d.group(2).strip()
            if name not in _CODE_DIRECTIVES and name != "eval-rst":
                return None
            lang = "rst" if name == "eval-rst" else arg.split()[0] if arg else None
            body = "\n".join(ln for ln in body.split("\n") if not re.match(r"^\s*:[\w-]+:", ln))
        if not body.strip():
            return None
        return render_code(body, lang)

    # -- members ----------------------------------------------------------------------
    def build(self) -> list[Unit]:
        admonition: str | None = None
        for k, (node, sec_id) in enumerate(self.members):
            section = self.by_id.get(sec_id) if sec_id else None
            after_head, admonition = admonition, None
            if node.kind == "paragraph":
                title = admonition_title(node.text.split("\n", 1)[0])
                if title is not None and "\n" not in node.text.strip():
                    admonition = title
                    continue
                if is_scaffolding(node.text):
                    continue
                self._prose(node.char_start, node.char_end, section, k)
            elif node.kind in ("list_item", "blockquote"):
                self._item(node, section)
            elif node.kind == "code":
                self._code(node, section, after_head)
            elif node.kind == "table":
                if node.char_end - node.char_start <= BLOCK_CAP:
                    self.add(
                        node.char_start, node.char_end, _table_display(node.text), "table", section
                    )
                for row in self.children.get(node.id, []):
                    if row.kind == "table_row":
                        self.add(
                            row.char_start,
                            row.char_end,
                            _row_display(row.text),
                            "row",
                            section,
                        )
        return self.out

    def _prose(
        self, start: int, end: int, section: Node | None, k: int | None, prefix: str = ""
    ) -> None:
        sentences = _sentences(self.doc, start, end)
        for i, s in enumerate(sentences):
            shown = _prose_display(s.text)
            if prefix and i == 0:
                shown = f"{prefix}: {shown}"
            if is_scaffolding(s.text) or not shown:
                continue
            last = i == len(sentences) - 1
            block = self._block_after(k) if last and k is not None and _is_lead_in(s.text) else None
            if block is not None:
                self.add(s.start, block[0], f"{shown}\n{block[1]}", "lead", section, shown)
            else:
                self.add(s.start, s.end, shown, "sentence", section)
        # A short paragraph is also one unit: the value often sits in the sentence after
        # the one that names the subject ("X takes a code. By default, code is 0.").
        if (
            2 <= len(sentences) <= 3
            and end - start <= PARA_CAP
            and not prefix
            and not _is_lead_in(sentences[-1].text)
        ):
            first, last_s = sentences[0], sentences[-1]
            shown = _prose_display(self.doc.slice(first.start, last_s.end))
            if shown:
                self.add(first.start, last_s.end, shown, "para", section)

    def _item(self, node: Node, section: Node | None) -> None:
        if node.char_end - node.char_start <= ITEM_CAP:
            structured = "```" in node.text or "~~~" in node.text or _NESTED.search(node.text)
            shown = (
                _render_markdown(_strip_marker(node.text))
                if structured
                else _prose_display(node.text)
            )
            self.add(node.char_start, node.char_end, shown, "item", section)
            return
        # A long item: its prose sentence by sentence, its code blocks whole (a lead-in
        # sentence right before a code block carries it).
        pos, text = node.char_start, node.text
        pieces: list[tuple[int, int, bool]] = []  # (start, end, is_code)
        lines = text.split("\n")
        offset, i, prose_start = 0, 0, 0
        while i < len(lines):
            m = _FENCE.match(lines[i])
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
        for n, (a, b, code) in enumerate(pieces):
            a, b = a + pos, min(b + pos, node.char_end)
            if b <= a or not self.doc.slice(a, b).strip():
                continue
            if code:
                continue  # carried by the lead-in before it, or quoted alone below
            spans = split_sentences(self.doc.slice(a, b), a, blocks=True)
            for si, s in enumerate(spans):
                shown = _prose_display(s.text)
                if not shown or is_scaffolding(s.text):
                    continue
                nxt = pieces[n + 1] if n + 1 < len(pieces) else None
                if si == len(spans) - 1 and nxt is not None and nxt[2] and _is_lead_in(s.text):
                    ca, cb = nxt[0] + pos, min(nxt[1] + pos, node.char_end)
                    lang, body = _code_parts(self.doc.slice(ca, cb).strip())
                    if cb - ca <= BLOCK_CAP:
                        self.add(
                            s.start,
                            cb,
                            f"{shown}\n{render_code(body, lang)}",
                            "lead",
                            section,
                            shown,
                        )
                        continue
                self.add(
                    s.start, s.end, shown, "item" if s.kind == "list_item" else "sentence", section
                )

    def _code(self, node: Node, section: Node | None, admonition: str | None) -> None:
        first = node.text.split("\n", 1)[0]
        d = DIRECTIVE_FENCE.match(first.strip())
        if admonition is not None and not _FENCE.match(first):
            self._prose(node.char_start, node.char_end, section, None, prefix=admonition)
            return
        if d and d.group(1).lower() in _ADMONITION_DIRECTIVES:
            body_start = node.char_start + len(first) + 1
            last_nl = node.text.rstrip().rfind("\n")
            body_end = node.char_start + last_nl if last_nl > len(first) else node.char_end
            lines = self.doc.slice(body_start, body_end).split("\n")
            skip = 0
            for ln in lines:
                if re.match(r"^\s*:[\w-]+:", ln):
                    skip += len(ln) + 1
                else:
                    break
            if body_start + skip < body_end:
                self._prose(body_start + skip, body_end, section, None)
            return
        shown = self._code_display(node)
        if shown is not None and node.char_end - node.char_start <= BLOCK_CAP:
            self.add(node.char_start, node.char_end, shown, "code", section)


def _table_display(text: str) -> str:
    """A Markdown table as lines of cells joined by `` | ``, header first."""
    rows = [
        _row_display(r) for r in text.split("\n") if r.strip() and not re.fullmatch(r"[\s|:-]+", r)
    ]
    return "\n".join(rows)


def _row_display(row: str) -> str:
    """A table row's cells joined by `` | `` (an escaped ``\\|`` stays inside its cell)."""
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = [
        clean_sentence(strip_markup(c.replace("\\|", "|"))) for c in re.split(r"(?<!\\)\|", body)
    ]
    return " | ".join(c for c in cells if c)


def _strip_marker(text: str) -> str:
    return re.sub(r"^\s*(?:[-*+]|>)\s+", "", text, count=1)


def document_units(nodes: Sequence[Node]) -> list[Unit]:
    """Every quotable unit of one document version, in document order."""
    if not nodes:
        return []
    return _Builder(nodes).build()
