"""Scope constraints a question states: which edition, year, file kind, document or section
it asks about (issue 34).

"In the 2013 edition, ...", "according to the 2017 list", "version 2", "in the
spreadsheet", "the slides", "according to the Bigtable paper", "in the Quickstart
section": these say *where* the answer is, not what the quoted sentence says. The stages
match them against the context every candidate unit carries (its document's title, path,
file kind, edition or date, and its section path: :mod:`citewise.answer.units.context`),
never against the sentence alone, and leave their words out of the terms an answer must
hold (:attr:`Scope.words`).

One parser for the class, pure and total: :func:`scope_of` returns an empty
:class:`Scope` for text without scope phrases and never raises. English and numeric
phrasing only; Chinese edition phrases are read elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from citewise.analysis.tokenize import tokenize

__all__ = [
    "FILE_KINDS",
    "Scope",
    "edition_family",
    "editions_of_one",
    "kind_of_path",
    "scope_of",
]

#: File kinds a question may name, each with the words that name it and the file
#: extensions that are it. A kind is a class of file, not one format: "the slides" is a
#: PowerPoint or an OpenDocument presentation alike.
FILE_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "spreadsheet": (
        ("spreadsheet", "spreadsheets", "workbook", "excel", "xlsx", "csv"),
        (".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv"),
    ),
    "pdf": (("pdf",), (".pdf",)),
    "slides": (
        ("slides", "slide", "slide deck", "presentation", "powerpoint", "pptx"),
        (".pptx", ".ppt", ".odp"),
    ),
    "word document": (("docx", "word document"), (".docx", ".doc", ".odt", ".rtf")),
    "web page": (("web page", "webpage", "html page"), (".html", ".htm", ".xhtml")),
    "ebook": (("ebook", "e-book", "epub"), (".epub",)),
}

_KIND_WORD = {w: kind for kind, (words, _) in FILE_KINDS.items() for w in words}
_KIND_ALT = "|".join(sorted((re.escape(w) for w in _KIND_WORD), key=len, reverse=True))

#: Nouns that name a document by its genre ("the Bigtable paper", "the 2017 list", "the
#: Privacy Act"): the words before one name the document; the noun itself is no term the
#: quoted sentence must hold.
_GENRE = (
    r"paper|article|report|document|documentation|docs|guide|manual|handbook|book|"
    r"standard|specification|spec|law|act|regulation|rules?|code|policy|list|edition|"
    r"version|release|revision|update|draft|study|survey|filing|notice|memo|tutorial|"
    r"readme|faq|chapter"
)
_GENRE_RE = re.compile(rf"^(?:{_GENRE})$", re.I)

_YEAR = r"(?:19|20)\d{2}"
#: An edition named by its year: "the 2013 edition", "the 2017 list", "its 2020 version".
_EDITION_YEAR = re.compile(
    rf"\b(?P<year>{_YEAR})\s+(?P<noun>edition|version|list|revision|release|report|"
    rf"update|draft|standard|rules?|guidelines?|amendments?|survey|filing|catalog(?:ue)?)\b",
    re.I,
)
#: An edition named by its number: "version 2", "v2.1", "revision 3", "release 1.4".
_EDITION_NUMBER = re.compile(
    r"\b(?P<noun>version|edition|revision|release|rev\.?|v)\s?(?P<num>\d+(?:\.\d+)*)\b", re.I
)
_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
#: An edition named by its ordinal: "the 2nd edition", "the third edition".
_EDITION_ORDINAL = re.compile(
    rf"\b(?P<ord>\d{{1,2}}(?:st|nd|rd|th)|{'|'.join(_ORDINAL_WORDS)})\s+(?P<noun>edition|revision)\b",
    re.I,
)
#: A year the question places itself in: "in 2020", "for 2019", "during 2008".
_ANY_YEAR = re.compile(rf"(?<![\w.-])(?P<year>{_YEAR})(?![\w-])")
#: The newest edition in force: "the current list", "the latest version".
_NEWEST = re.compile(
    r"\b(?:current|latest|newest|most recent|up-to-date|in force)\b"
    r"(?:\s+(?P<noun>edition|version|list|release|revision|rules?))?",
    re.I,
)
#: What may follow a file kind named as a place: the end of the clause, a verb of
#: saying or a preposition ("the slides say", "the PDF version of"); not a noun that
#: makes it something else ("the presentation layer", "the PDF renderer").
_AFTER_KIND = (
    r"says?|said|lists?|listed|shows?|states?|gives?|reports?|mentions?|for|of|on|about|"
    r"from|in|at|to|is|are|was|were|has|have|does|do|did|version|file|document|copy"
)
#: A file kind named as the place of the answer: "in the spreadsheet", "from this PDF",
#: "according to the slides", "What does the workbook list ...", "the PDF version".
_KIND_PLACE = re.compile(
    rf"\b(?:in|from|within|inside|on|of|per|according to|does|do|did|is|are)\s+"
    rf"(?:the|this|that|these|those)\s+(?:[\w-]+\s+){{0,2}}?(?P<kind>{_KIND_ALT})\b"
    rf"(?=\s*(?:[,?.;:!)]|$|(?:{_AFTER_KIND})\b))",
    re.I,
)
#: "according to X" names a source: X up to the clause's end.
_ACCORDING = re.compile(
    r"\b(?:according to|as (?:stated|described|defined) in|per)\s+"
    r"(?P<src>[^,;?!]{2,80})",
    re.I,
)
#: "in the X paper", "the X Act", "of the X standard": a document named by its title
#: words before a genre noun (at least one capitalised or numbered word).
_IN_NAMED = re.compile(
    rf"\b(?:in|from|of|by)\s+the\s+(?P<name>(?:[A-Z0-9][\w.&'-]*\s+){{1,6}})(?P<noun>(?i:{_GENRE}))\b"
)
#: "in the Quickstart section", "under the Installation heading".
_SECTION = re.compile(
    r"\b(?:in|under|from)\s+the\s+(?P<name>[\w\"'`“”.-]+(?:\s+[\w\"'`“”.-]+){0,4}?)\s+"
    r"(?:section|chapter|heading|tutorial|appendix|part)\b",
    re.I,
)
_LEADING = re.compile(r"^(?:the|this|that|its|their|a|an)\s+", re.I)
_POSSESSIVE = re.compile(r"['’]s$")


@dataclass(frozen=True, slots=True)
class Scope:
    """The scope a question states; empty fields where it states none.

    ``years``: every year the question names (each must match a candidate unit's text or
    context); ``editions``: the editions it names by year or ordinal ("2013", "2nd
    edition"), which restrict the candidates to those documents; ``versions``: numbered
    versions ("version 2"), left to the condition set (one document often answers per
    version, section by section);
    ``kinds``: file kinds (keys of :data:`FILE_KINDS`); ``source``: the title words of a
    document it names ("Bigtable"); ``section``: a section's name words; ``newest``:
    "current"/"latest" asked; ``words``: the question's words that only state the scope
    (a kind word, an edition or genre noun), which no sentence must hold.
    """

    years: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    source: str = ""
    section: str = ""
    newest: bool = False
    words: tuple[str, ...] = ()

    @property
    def restricts(self) -> bool:
        """Whether the scope names which documents may answer (edition, kind, source)."""
        return bool(self.editions or self.kinds or self.source)

    @property
    def keys(self) -> frozenset[str]:
        """The index tokens of :attr:`words` (the terms no sentence must hold)."""
        return frozenset(t for w in self.words for t in tokenize(w))

    def held(self, kinds: Collection[str]) -> Scope:
        """This scope with only the file kinds among ``kinds`` (those the knowledge base
        holds): "from the CSV file" over documentation without one CSV is the subject of
        the question, not the place of its answer, so its words stay terms to hold."""
        gone = {k for k in self.kinds if k not in kinds}
        if not gone:
            return self
        words = tuple(w for w in self.words if _KIND_WORD.get(w) not in gone)
        kept = tuple(k for k in self.kinds if k not in gone)
        return replace(self, kinds=kept, words=words)

    def to_json(self) -> dict[str, object]:
        return {
            "years": list(self.years),
            "editions": list(self.editions),
            "versions": list(self.versions),
            "kinds": list(self.kinds),
            "source": self.source,
            "section": self.section,
            "newest": self.newest,
            "words": list(self.words),
        }


def kind_of_path(path: str) -> str:
    """The file kind (a key of :data:`FILE_KINDS`) of a document path, "" for others."""
    low = path.lower()
    for kind, (_, extensions) in FILE_KINDS.items():
        if low.endswith(extensions):
            return kind
    return ""


def scope_of(text: str) -> Scope:
    """The scope ``text`` states (an empty :class:`Scope` when none). Never raises."""
    words: list[str] = []
    editions: list[str] = []
    for m in _EDITION_YEAR.finditer(text):
        editions.append(m.group("year"))
        words.append(m.group("noun"))
    # a numbered version ("version 2", "v2.1") is a condition one document often answers
    # per section (analysis/conditions.py): recorded, never a document restriction
    versions = [
        f"{_noun(m.group('noun'))} {m.group('num')}" for m in _EDITION_NUMBER.finditer(text)
    ]
    for m in _EDITION_ORDINAL.finditer(text):
        editions.append(f"{m.group('ord').lower()} {m.group('noun').lower()}")
        words.append(m.group("noun"))
    kinds = []
    for m in _KIND_PLACE.finditer(text):
        kinds.append(_KIND_WORD[m.group("kind").lower()])
        words.append(m.group("kind"))
    source, genre = _source(text)
    words += genre
    section = _section(text)
    newest = _NEWEST.search(text)
    if newest and newest.group("noun"):
        words.append(newest.group("noun"))
    years = tuple(dict.fromkeys(m.group("year") for m in _ANY_YEAR.finditer(text)))
    return Scope(
        years=years,
        editions=tuple(dict.fromkeys(editions)),
        versions=tuple(dict.fromkeys(versions)),
        kinds=tuple(dict.fromkeys(kinds)),
        source=source,
        section=section,
        newest=newest is not None,
        words=tuple(dict.fromkeys(w.lower() for w in words)),
    )


def _noun(noun: str) -> str:
    low = noun.lower().rstrip(".")
    return "version" if low in ("v", "rev") else low


def _source(text: str) -> tuple[str, list[str]]:
    """(the title words of the document ``text`` names as its source, the genre nouns
    that named it). "according to the paper's estimate" names no document: the words
    before the genre noun are the name, and there are none."""
    for m in _ACCORDING.finditer(text):
        name, genre = _named(m.group("src").split())
        if name or genre:
            return name, genre
    for m in _IN_NAMED.finditer(text):
        name = " ".join(m.group("name").split())
        if not _EDITION_YEAR.search(f"{name} {m.group('noun')}"):
            return name, [m.group("noun")]
    return "", []


def _named(words: list[str]) -> tuple[str, list[str]]:
    """A source phrase's name words (up to its genre noun) and that noun; without a genre
    noun, its leading capitalised or numbered words ("according to RFC 7231, ...")."""
    while words and _LEADING.match(words[0] + " "):
        words = words[1:]
    out: list[str] = []
    for w in words:
        bare = _POSSESSIVE.sub("", w)
        if _GENRE_RE.match(bare):
            return " ".join(out), [bare]
        out.append(bare)
        if w != bare:  # a possessive ends the name: "Bigtable's design"
            break
    lead: list[str] = []
    for w in out:
        if w.islower():
            break
        lead.append(w)
    return " ".join(lead), []


def _section(text: str) -> str:
    m = _SECTION.search(text)
    if m is None:
        return ""
    return " ".join(w.strip("\"'`“”") for w in m.group("name").split())


_EDITION_MARK = re.compile(r"(?<!\d)(?:19|20)\d{2}(?:[-_.]\d{1,2}){0,2}(?!\d)|\bv?\d+(?:\.\d+)+\b")


def edition_family(path: str) -> str:
    """The document a path is an edition of: the path with its years, dates and version
    numbers left out ("std/cloud-standard-2013.md" and "std/cloud-standard-2017.md" are
    one family)."""
    return re.sub(r"[-_. ]+", "-", _EDITION_MARK.sub("", path.lower())).strip("-")


def editions_of_one(a: str, b: str) -> bool:
    """Whether two different paths are editions of one document (same family, different
    year or version marks): a value that differs between them changed between editions;
    it is no disagreement between sources."""
    return a != b and edition_family(a) == edition_family(b)
