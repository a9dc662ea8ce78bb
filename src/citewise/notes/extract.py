"""Quotable pieces of one document version (pure): sentences, list items, table rows,
code blocks and heading titles, each an exact span of the document text inside one node,
with what the topic selection and the compiler read from it (definition subject,
relation phrases, named terms).

Every piece satisfies ``text == doc_text[start:end]`` and lies inside ``node``, so its
span id ``<node.id>:<start>-<end>`` resolves through the store to the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from citewise.analysis.relations import find_relations
from citewise.core.records import Node
from citewise.evidence.sentences import split_sentences

PieceKind = Literal["heading", "sentence", "item", "row", "code"]

#: Pieces longer than this are not quoted whole (a note line should read at a glance).
MAX_PIECE = 600
#: A list item longer than this is quoted sentence by sentence.
MAX_ITEM = 400

#: A leading list marker or Markdown emphasis, left out of the quoted span (the span stays
#: exact: its start moves past them).
_LEAD = re.compile(r"^(?:\s*(?:[-*+•]|\d{1,3}[.)])\s+)?(?:\s*>\s*)*")
#: A Markdown heading line's marks and a section number ("## 2.3 ", "第一章 ").
_HEADING_MARKS = re.compile(r"^\s*#{1,6}\s*")
_SECTION_NUMBER = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+|第[一二三四五六七八九十百千零〇\d]+[章节编条部分]+\s*)"
)
#: Inline code spans of prose: the names a document writes as code (Markdown `x`, and
#: reStructuredText ``x`` literals and :role:`x` references).
_CODE_SPAN = re.compile(r"(?<!`)``?([^`\n]{2,60}?)``?(?!`)")
_NAME = re.compile(r"^[A-Za-z_@][\w.\-/]*(?:\(\))?$")
#: "X is a/an/the ...", "X means ...", "X refers to ...": a sentence that says what its
#: subject is (the answer stage's definition profile reads the same verbs).
_EN_DEFINES = re.compile(
    r"^(?P<subject>.{2,60}?)\s+(?:is|are)\s+(?:an?|the|one of)\s|"
    r"^(?P<subject2>.{2,60}?)\s+(?:means|refers to|is defined as|stands for)\s",
)
#: Chinese definition sentences: "本法所称X，是指…", "X是指…", "X，是指…".
_ZH_DEFINES = (
    re.compile(r"(?:所称|所说的?)(?P<subject>[\u4e00-\u9fff“”《》]{2,20}?)[，,]?(?:是指|指)"),
    re.compile(
        r"^(?:第[一二三四五六七八九十百千零〇\d]+条\s*)?(?P<subject>[\u4e00-\u9fff]{2,12})[，,]?是指"
    ),
)
#: A subordinate clause opening a sentence: what follows states a condition or a time.
_SUBORDINATE = re.compile(
    r"(?:if|when|whenever|while|since|because|although|though|unless|once|as|after|before|"
    r"until|whether)\b",
    re.I,
)
_MARKUP = re.compile(r"[*`\"“”‘’\[\]]|(?<!\w)_+|_+(?!\w)")
#: Words that point outside the sentence ("It is ...", "Here is ...", "What this means
#: is ...", "The answer to this is ..."): a subject holding one names nothing by itself.
_DEICTIC = frozenset(
    {"it", "this", "that", "these", "those", "there", "here", "they", "which", "what", "who"}
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_WORDS = re.compile(r"[A-Za-z][\w.\-]*|[\u4e00-\u9fff]+")


@dataclass(frozen=True, slots=True)
class Source:
    """One current document version as the notes read it."""

    path: str
    doc_id: str
    version_id: int
    revision: int
    text: str
    nodes: tuple[Node, ...]
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Piece:
    """A quotable span of ``source`` inside ``node`` (see the module docstring)."""

    path: str
    start: int
    end: int
    text: str
    kind: PieceKind
    node: Node
    heading_path: tuple[str, ...]
    defines: str = ""  # the subject this piece defines, as written ("" when none)
    names: tuple[str, ...] = ()  # named terms written as inline code in it

    @property
    def lines(self) -> tuple[int, int]:
        first = self.node.line_start + self.node.text[: self.start - self.node.char_start].count(
            "\n"
        )
        return first, first + self.text.count("\n")


def display_title(text: str) -> str:
    """A title or term as a note names it: markup, section numbers, a leading article and
    closing punctuation dropped, spaces collapsed (case kept)."""
    t = _HEADING_MARKS.sub("", text.strip())
    t = _SECTION_NUMBER.sub("", t)
    t = _MARKUP.sub("", t)
    t = re.sub(r"\(\)$", "", t.strip())
    t = _ARTICLE.sub("", t)
    return re.sub(r"\s+", " ", t).strip(" .:;,!?：；，。、")


def topic_key(text: str) -> str:
    """The normalised form of a title or term: :func:`display_title`, case folded."""
    return display_title(text).casefold()


def defined_subject(sentence: str) -> str:
    """The subject a definition sentence defines, as written without markup ("" when it
    is none): a short name at the sentence start followed by a defining verb (English), or
    the term of a "所称X是指" / "X是指" sentence (Chinese)."""
    text = _LEAD.sub("", sentence).strip()
    for zh in _ZH_DEFINES:
        m = zh.search(text)
        if m:
            return _MARKUP.sub("", m.group("subject")).strip("“”《》")
    m = _EN_DEFINES.match(text)
    if not m:
        return ""
    subject = (m.group("subject") or m.group("subject2") or "").strip()
    if _DEICTIC.intersection(w.casefold() for w in _WORDS.findall(subject)):
        return ""  # a pronoun or question word defines what the text around it named
    if _SUBORDINATE.match(subject):
        return ""  # "If X is an int, ...": a condition, not what X is
    if len(_WORDS.findall(subject)) > 4 or re.search(r"[,;:(]", _MARKUP.sub("", subject)):
        return ""
    return _ARTICLE.sub("", _MARKUP.sub("", subject)).strip()


def inline_names(text: str) -> tuple[str, ...]:
    """Names written as inline code in prose (``click.option``; an option flag such as
    ``--help`` is left out: it names a switch of something else)."""
    out: list[str] = []
    for m in _CODE_SPAN.finditer(text):
        name = m.group(1).strip().lstrip("~!")
        if _NAME.match(name) and len(name) >= 3 and not name.isdigit():
            out.append(re.sub(r"\(\)$", "", name))
    return tuple(dict.fromkeys(out))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without a leading list marker and surrounding blanks."""
    lead = _LEAD.match(text, start, end)
    if lead:
        start = lead.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _heading_piece(src: Source, node: Node) -> Piece | None:
    """The section's heading title as it is written on its first line."""
    if not node.heading_path:
        return None
    title = node.heading_path[-1].strip()
    first = node.text.split("\n", 1)[0]
    at = first.find(title) if title else -1
    if at < 0:
        return None
    start = node.char_start + at
    end = start + len(title)
    return Piece(src.path, start, end, src.text[start:end], "heading", node, node.heading_path)


def _piece(src: Source, node: Node, start: int, end: int, kind: PieceKind) -> Piece | None:
    start, end = _trim(src.text, start, end)
    if end - start < 3 or end - start > MAX_PIECE:
        return None
    text = src.text[start:end]
    defines = defined_subject(text) if kind in ("sentence", "item") else ""
    names = inline_names(text) if kind != "code" else ()
    return Piece(src.path, start, end, text, kind, node, node.heading_path, defines, names)


def _block_pieces(src: Source, node: Node) -> list[Piece | None]:
    if node.kind == "table_row":
        return [_piece(src, node, node.char_start, node.char_end, "row")]
    if node.kind == "code":  # a diagram's relations come as graph edges, not as code
        return [_piece(src, node, node.char_start, node.char_end, "code")]
    if node.kind == "list_item" and len(node.text) <= MAX_ITEM:
        return [_piece(src, node, node.char_start, node.char_end, "item")]
    if node.kind in ("paragraph", "list_item", "blockquote"):
        spans = split_sentences(node.text, node.char_start, blocks=False)
        return [_piece(src, node, s.start, s.end, "sentence") for s in spans]
    return []


def document_pieces(src: Source) -> list[Piece]:
    """Every quotable piece of ``src``, in document order (see the module docstring)."""
    out: list[Piece | None] = []
    for node in src.nodes:
        if node.kind == "section":
            out.append(_heading_piece(src, node))
        else:
            out.extend(_block_pieces(src, node))
    return [p for p in out if p is not None and src.text[p.start : p.end] == p.text]


def prose_of(text: str) -> str:
    """``text`` with its inline code blanked (same length): a literal (a state named
    `succeeded`, a key `requires`) is a value the text mentions, not its wording."""
    return _CODE_SPAN.sub(lambda m: " " * len(m.group()), text)


@lru_cache(maxsize=65536)
def relation_kinds(text: str) -> tuple[str, ...]:
    """The relation types (analysis/relation_types.py) a piece's wording states (read on
    its prose, :func:`prose_of`)."""
    return tuple(dict.fromkeys(h.kind for h in find_relations(prose_of(text))))


def pieces_of(sources: Sequence[Source]) -> list[Piece]:
    return [p for src in sources for p in document_pieces(src)]
