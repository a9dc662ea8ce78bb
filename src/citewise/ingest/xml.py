"""Structured regulatory XML -> :class:`RawNode` tree (stdlib expat, exact offsets).

Two dialects are handled by one generic walk:

* CFPB RegML: ``part``/``subpart``/``section``/``appendix``/``interpretations``/
  ``interpSection`` are sections (title from ``subject``/``title``), and
  ``paragraph``/``interpParagraph`` are paragraphs. Clause paths come from the
  ``label`` attribute (``1016-1-b-2-i`` -> ``1016.1(b)(2)(i)``); labels that are
  not of that shape (appendices, interpretations) are kept verbatim.
* GPO CFR XML: ``PART``/``SUBPART``/``SECTION`` are sections (title from
  ``SECTNO`` + ``SUBJECT`` or ``HD``), ``P``/``FP`` are paragraphs; clause paths
  come from the text via :mod:`citewise.ingest.clauses`. A part's ``CONTENTS`` list
  (its table of contents) is skipped like RegML's ``tableOfContents``.

In both dialects a section's title is read from its direct title children only, so
the headings of nested notes (``AUTH``/``SOURCE``) never lengthen a part's title.

A paragraph's range is its own content: from its start tag to the start of its
first nested paragraph (or its end tag), so nested paragraphs are disjoint
child nodes. ``text`` is the exact source slice; ``search_text`` the element text.
DOCTYPE / entity declarations are rejected (entity-expansion attacks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.parsers import expat

from citewise.errors import IngestError, XmlRejected
from citewise.ingest.decode import trim_range
from citewise.ingest.limits import ParseBudget
from citewise.ingest.tree import RawNode, collapse_ws

_SECTIONS = frozenset(
    {"part", "subpart", "section", "appendix", "appendixSection", "interpretations",
     "interpSection", "PART", "SUBPART", "SECTION", "APPENDIX", "SUBJGRP"}
)  # fmt: skip
_PARAGRAPHS = frozenset({"paragraph", "interpParagraph", "P", "FP"})
_TITLES = frozenset({"subject", "title", "SECTNO", "SUBJECT", "HD", "RESERVED"})
_SKIP = frozenset(
    {"tableOfContents", "fdsys", "preamble", "FMTR", "BMTR", "TOC", "CFRTOC", "LSA",
     "PRTPAGE", "GPH", "analysis", "CONTENTS"}
)  # fmt: skip
#: RegML labels; a part number may carry a letter suffix (``1203b-102-a``).
_LABEL = re.compile(r"(\d+[a-z]?)-(\d+[a-z]?)((?:-[A-Za-z0-9]+)*)")


@dataclass(frozen=True, slots=True)
class XmlResult:
    nodes: list[RawNode]
    title: str | None


def label_to_clause(label: str) -> str:
    """``1016-1-b-2-i`` -> ``1016.1(b)(2)(i)``; other labels are returned unchanged."""
    m = _LABEL.fullmatch(label)
    if m is None or "Interp" in label:
        return label
    rest = [p for p in m.group(3).split("-") if p]
    return f"{m.group(1)}.{m.group(2)}" + "".join(f"({p})" for p in rest)


@dataclass(slots=True)
class _Frame:
    tag: str
    start: int
    node: RawNode | None = None
    title_parts: list[str] = field(default_factory=list)
    own_parts: list[str] = field(default_factory=list)
    own_end: int | None = None  # where the first nested paragraph starts


class _ByteToChar:
    """Monotonic byte-offset -> code-point-offset conversion over UTF-8 ``data``."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ascii = data.isascii()
        self.byte = 0
        self.char = 0

    def __call__(self, byte_index: int) -> int:
        if self.ascii:
            return byte_index
        if byte_index < self.byte:
            self.byte = self.char = 0
        self.char += len(self.data[self.byte : byte_index].decode("utf-8", "replace"))
        self.byte = byte_index
        return self.char


def _tag_end(data: bytes, pos: int) -> int:
    """Byte offset just past the ``>`` of the tag starting at ``pos`` (quote-aware)."""
    quote = 0
    for i in range(pos, len(data)):
        c = data[i]
        if quote:
            if c == quote:
                quote = 0
        elif c in (0x22, 0x27):
            quote = c
        elif c == 0x3E:
            return i + 1
    return len(data)


def parse_xml(text: str, name: str, budget: ParseBudget | None = None) -> XmlResult:
    """Parse regulatory XML ``text``; ranges are exact offsets into ``text``."""
    spend = budget or ParseBudget(name)
    data = text.encode("utf-8")
    to_char = _ByteToChar(data)
    parser = expat.ParserCreate(encoding="utf-8")
    frames: list[_Frame] = []
    top: list[RawNode] = []
    skip_depth = 0
    doc_title: list[str] = []
    title_depth: list[int] = []
    regml = False

    def refuse(*_: object) -> None:
        raise XmlRejected(
            f"{name}: XML with a DOCTYPE or entity declarations is refused "
            "(entity expansion can exhaust memory).",
            hint="Remove the <!DOCTYPE ...> / <!ENTITY ...> declarations and ingest again.",
        )

    def container() -> RawNode | None:
        return next((f.node for f in reversed(frames) if f.node is not None), None)

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal skip_depth, regml
        if tag == "regulation":
            regml = True
        if not doc_title and not title_depth and tag in ("title", "SUBJECT"):
            title_depth.append(len(frames))
        pos = to_char(parser.CurrentByteIndex)
        frame = _Frame(tag, pos)
        frames.append(frame)
        spend.depth(len(frames))
        spend.step()
        if skip_depth or tag in _SKIP:
            skip_depth += 1
            return
        parent = container()
        if tag in _SECTIONS:
            node = RawNode("section", pos, pos, "", title="", level=len(frames))
            frame.node = node
        elif tag in _PARAGRAPHS:
            node = RawNode("paragraph", pos, pos, "")
            if "marker" in attrs:
                node.attrs["marker"] = attrs["marker"]
            if "label" in attrs:
                node.attrs["label"] = attrs["label"]
            if regml:
                node.clause_preset = True
                node.clause_path = label_to_clause(attrs["label"]) if "label" in attrs else None
            if parent is not None and parent.kind == "paragraph":
                owner = next(f for f in reversed(frames[:-1]) if f.node is parent)
                if owner.own_end is None:
                    owner.own_end = pos
            frame.node = node
        else:
            return
        spend.node()
        if regml and tag in _SECTIONS and "label" in attrs:
            node.attrs["label"] = attrs["label"]
            if tag == "section":
                node.clause_preset = True
                node.clause_path = label_to_clause(attrs["label"])
        (parent.children if parent is not None else top).append(node)

    def end(tag: str) -> None:
        nonlocal skip_depth
        frame = frames.pop()
        if title_depth and title_depth[0] == len(frames):
            title_depth.clear()
            doc_title.append(collapse_ws(" ".join(frame.own_parts)) or "untitled")
        begin = parser.CurrentByteIndex
        stop = to_char(_tag_end(data, begin)) if begin >= 0 else len(text)
        if skip_depth:
            skip_depth -= 1
            if title_depth or not doc_title:
                _bubble(frame)
            return
        node = frame.node
        if node is None:
            _bubble(frame)
            if tag in _TITLES:
                _title_of_parent(frame)
            return
        if node.kind == "section":
            node.char_end = stop
            node.title = collapse_ws(" ".join(p for p in frame.title_parts if p))
            node.search_text = node.title
            return
        own_end = stop if frame.own_end is None else frame.own_end
        node.char_start, node.char_end = trim_range(text, node.char_start, own_end)
        node.search_text = collapse_ws(" ".join(frame.own_parts))

    def _title_of_parent(frame: _Frame) -> None:
        # Section titles come from the section's own title children (GPO SECTNO/SUBJECT/HD,
        # RegML subject/title); the headings of nested non-section containers (a part's
        # Authority/Source notes, a contents list) are not the section's title.
        parent = frames[-1] if frames else None
        if parent is not None and parent.node is not None and parent.node.kind == "section":
            parent.title_parts.append(collapse_ws(" ".join(frame.own_parts)))

    def _bubble(frame: _Frame) -> None:
        if frames and frame.node is None:
            frames[-1].own_parts.extend(frame.own_parts)

    def chars(data_: str) -> None:
        spend.step()
        if frames:
            f = frames[-1]
            if f.node is None or f.node.kind != "section":
                f.own_parts.append(data_)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise IngestError(
            f"{name}: is not well-formed XML (line {exc.lineno}, column {exc.offset}): "
            f"{expat.errors.messages[exc.code]}.",
            hint="Fix the XML syntax at that position, or ingest a Markdown/text version.",
        ) from exc
    return XmlResult(top, doc_title[0] if doc_title else None)
