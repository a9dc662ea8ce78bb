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
* ``window`` - a sentence opening with a pronoun ("He", "They", "Its") together with the
  sentence before it, which names the referent (offered besides the sentence alone);
* ``sequel`` - a sentence of a longer paragraph together with the sentence after it, which
  often holds the value the first one leads to ("... a mathematical abstraction. This
  hypothesis is called the Cobham-Edmonds thesis."; offered besides the sentence alone,
  not where the sentence after opens with a pronoun: that pair is its window);
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
from collections.abc import Sequence
from dataclasses import dataclass

from citewise.analysis.tokenize import key_terms, tokenize
from citewise.answer.clean import clean_sentence
from citewise.answer.display import (
    ADMONITION_DIRECTIVES,
    FENCE,
    code_display,
    code_parts,
    directive_body,
    fenced_pieces,
    first_sentence,
    is_lead_in,
    prose_display,
    render_code,
    render_markdown,
    row_display,
    strip_marker,
    table_display,
)
from citewise.answer.markup import (
    DIRECTIVE_FENCE,
    admonition_title,
    is_scaffolding,
    strip_markup,
)
from citewise.answer.orchestration import contains_orchestration
from citewise.core.records import Node
from citewise.evidence.sentences import Span, split_sentences
from citewise.ingest.chunking import chunk_members

__all__ = ["BLOCK_CAP", "ITEM_CAP", "Unit", "document_units", "refers_back", "render_code"]

#: A list item or blockquote up to this many characters is quoted whole.
ITEM_CAP = 900
#: A lead-in carries at most this many characters of the block after it.
BLOCK_CAP = 1500
#: A paragraph of two or three sentences up to this many characters is also one unit.
PARA_CAP = 360

_NESTED = re.compile(r"\n[ \t]+(?:[-*+]|\d{1,3}[.)])[ \t]")
_ANAPHORA = re.compile(
    r"\b(?:this|these)\s+(?:\w+\s+)?(?:variables?|options?|settings?|parameters?|"
    r"flags?|fields?|keys?|values?|arguments?|commands?|functions?|methods?|class(?:es)?|"
    r"attributes?|propert(?:y|ies)|modes?|features?|hooks?|callbacks?|decorators?|types?|"
    r"headers?|endpoints?|files?|directives?|switch(?:es)?)\b",
    re.I,
)


#: A sentence that opens with a pronoun names its subject in the sentence before ("He
#: ruled ..." after "Richard I was ..."): it is also offered with that sentence.
_PRONOUN_FIRST = re.compile(
    r"(?:He|She|It|They|His|Her|Its|Their|Him|Them|These|Those|The latter|The former)\b"
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
    kind: str  # sentence | para | window | sequel | item | lead | code | row | table
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
        self._headings: dict[str, tuple[Span | None, str]] = {}  # per section node id
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
        heading, htext = self._heading(section)
        opening = lead_in or first_sentence(display)
        refers = (
            heading is not None
            and kind in ("sentence", "para", "window", "sequel", "item", "lead")
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

    def _heading(self, section: Node | None) -> tuple[Span | None, str]:
        """:func:`_heading_of`, once per section (every unit under it asks)."""
        if section is None:
            return None, ""
        got = self._headings.get(section.id)
        if got is None:
            got = self._headings[section.id] = _heading_of(section)
        return got

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
            shown = code_display(nxt.text)
            if shown is None or nxt.char_end - nxt.char_start > BLOCK_CAP:
                return None
            return nxt.char_end, shown
        if nxt.kind == "table":
            if nxt.char_end - nxt.char_start > BLOCK_CAP:
                return None
            return nxt.char_end, table_display(nxt.text)
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
                body = render_markdown(strip_marker(item.text)).replace("\n", "\n  ")
                lines.append(body if re.match(r"\d{1,3}[.)]", body) else f"- {body}")
                end = item.char_end
            return (end, "\n".join(lines)) if lines else None
        return None

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
                        node.char_start, node.char_end, table_display(node.text), "table", section
                    )
                for row in self.children.get(node.id, []):
                    if row.kind == "table_row":
                        self.add(
                            row.char_start,
                            row.char_end,
                            row_display(row.text),
                            "row",
                            section,
                        )
        return self.out

    def _prose(
        self, start: int, end: int, section: Node | None, k: int | None, prefix: str = ""
    ) -> None:
        sentences = _sentences(self.doc, start, end)
        # a sentence addressed to the answering system never rides along in a pair or a
        # paragraph unit (the release review drops it alone; joined, it would take the
        # sentence beside it down or slip past the review's sentence-start patterns)
        planted = [contains_orchestration(clean_sentence(s.text)) for s in sentences]
        carried = False  # whether the last sentence carries the block after it
        for i, s in enumerate(sentences):
            shown = prose_display(s.text)
            if prefix and i == 0:
                shown = f"{prefix}: {shown}"
            if is_scaffolding(s.text) or not shown:
                continue
            last = i == len(sentences) - 1
            block = self._block_after(k) if last and k is not None and is_lead_in(s.text) else None
            if block is not None:
                self.add(s.start, block[0], f"{shown}\n{block[1]}", "lead", section, shown)
                carried = True
            else:
                self._sentence(sentences, i, shown, planted, section)
        # A short paragraph is also one unit: the value often sits in the sentence after
        # the one that names the subject ("X takes a code. By default, code is 0."); a
        # lead-in whose block could not be carried (an include marker follows) is prose.
        short = 2 <= len(sentences) <= 3 and end - start <= PARA_CAP and not prefix
        if short and not carried and not any(planted):
            self._paragraph(sentences, section)

    def _sentence(
        self, sentences: list[Span], i: int, shown: str, planted: list[bool], section: Node | None
    ) -> None:
        """Sentence ``i`` as a unit; with the sentence before it when it opens with a
        pronoun (a "window"), and with the sentence after it in a longer paragraph (a
        "sequel"), never joined to a sentence addressed to the answering system."""
        s = sentences[i]
        last = i == len(sentences) - 1
        self.add(s.start, s.end, shown, "sentence", section)
        if i > 0 and _PRONOUN_FIRST.match(shown) and not (planted[i] or planted[i - 1]):
            before = prose_display(sentences[i - 1].text)
            if before and not is_lead_in(sentences[i - 1].text):
                window = f"{before} {shown}"
                self.add(sentences[i - 1].start, s.end, window, "window", section)
        joinable = not (planted[i] or (not last and planted[i + 1]))
        if not last and len(sentences) > 3 and not is_lead_in(s.text) and joinable:
            nxt = sentences[i + 1]
            after = prose_display(nxt.text)
            if after and not is_scaffolding(nxt.text) and not _PRONOUN_FIRST.match(after):
                self.add(s.start, nxt.end, f"{shown} {after}", "sequel", section)

    def _paragraph(self, sentences: list[Span], section: Node | None) -> None:
        first, last_s = sentences[0], sentences[-1]
        shown = prose_display(self.doc.slice(first.start, last_s.end))
        if shown:
            self.add(first.start, last_s.end, shown, "para", section)

    def _item(self, node: Node, section: Node | None) -> None:
        if node.char_end - node.char_start <= ITEM_CAP:
            structured = "```" in node.text or "~~~" in node.text or _NESTED.search(node.text)
            shown = (
                render_markdown(strip_marker(node.text)) if structured else prose_display(node.text)
            )
            self.add(node.char_start, node.char_end, shown, "item", section)
            return
        # A long item: its prose sentence by sentence, its code blocks whole (a lead-in
        # sentence right before a code block carries it).
        pos = node.char_start
        pieces = fenced_pieces(node.text)
        for n, (a, b, code) in enumerate(pieces):
            a, b = a + pos, min(b + pos, node.char_end)
            if b <= a or not self.doc.slice(a, b).strip():
                continue
            if code:
                continue  # carried by the lead-in before it, or quoted alone below
            spans = split_sentences(self.doc.slice(a, b), a, blocks=True)
            for si, s in enumerate(spans):
                shown = prose_display(s.text)
                if not shown or is_scaffolding(s.text):
                    continue
                nxt = pieces[n + 1] if n + 1 < len(pieces) else None
                if si == len(spans) - 1 and nxt is not None and nxt[2] and is_lead_in(s.text):
                    ca, cb = nxt[0] + pos, min(nxt[1] + pos, node.char_end)
                    lang, body = code_parts(self.doc.slice(ca, cb).strip())
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
        if admonition is not None and not FENCE.match(first):
            self._prose(node.char_start, node.char_end, section, None, prefix=admonition)
            return
        if d and d.group(1).lower() in ADMONITION_DIRECTIVES:
            a, b = directive_body(node.text)
            if a < b:
                self._prose(node.char_start + a, node.char_start + b, section, None)
            return
        shown = code_display(node.text)
        if shown is not None and node.char_end - node.char_start <= BLOCK_CAP:
            self.add(node.char_start, node.char_end, shown, "code", section)


def document_units(nodes: Sequence[Node]) -> list[Unit]:
    """Every quotable unit of one document version, in document order."""
    if not nodes:
        return []
    return _Builder(nodes).build()
