"""The format registry: file suffix -> format name, parser, and whether the file is text.

The walker (which files to take), the upload check, the parser (which parser to call, and
whether to decode and read front matter first) and the stored format name all read this
one table, so a new format is one parser module plus one :func:`register` call.

Two kinds of parser:

- a **text** format (``binary=False``) gets the decoded text (UTF-8/UTF-16, checked by
  :func:`~citewise.ingest.decode.decode_bytes`) as a
  :class:`~citewise.ingest.extracted.TextSource`, with the front matter already split off
  when ``front_matter`` is set;
- a **binary** format (``binary=True``; PDF, DOCX, XLSX, PPTX, EPUB, ODT) gets the file's
  bytes, its name and the file's :class:`~citewise.ingest.limits.ParseBudget` (to report
  to as it goes, like the text parsers) and returns the text it extracted.

Both return :class:`~citewise.ingest.extracted.Extracted` (defined below the parsers, which
import it, so the registry can name them): the document text that node offsets slice, the nodes, a
title if the format names one, and metadata. Citations point into that text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from citewise.errors import UnsupportedFormat
from citewise.ingest.extracted import Extracted, TextSource
from citewise.ingest.html import parse_html
from citewise.ingest.limits import ParseBudget
from citewise.ingest.markdown import parse_markdown
from citewise.ingest.text import parse_text
from citewise.ingest.xml import parse_xml
from citewise.ingest.xml_meta import regulation_metadata

TextParser = Callable[[TextSource], Extracted]
#: ``(raw bytes, file name, the file's parse budget) -> Extracted``; raises an
#: ``IngestError`` for a bad file (``ParseLimitExceeded`` past a limit).
BinaryParser = Callable[[bytes, str, ParseBudget], Extracted]


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """One registered format. ``suffixes`` are lower case with the dot; ``""`` means a
    file without a suffix. Give ``parse_text`` for a text format, ``parse_bytes`` for a
    binary one."""

    name: str
    suffixes: tuple[str, ...]
    binary: bool = False
    front_matter: bool = False
    parse_text: TextParser | None = None
    parse_bytes: BinaryParser | None = None

    def __post_init__(self) -> None:
        if self.binary != (self.parse_bytes is not None) or self.binary == (
            self.parse_text is not None
        ):
            raise ValueError(
                f"Format {self.name!r}: a binary format needs parse_bytes, a text format "
                "parse_text (exactly one)."
            )
        if self.binary and self.front_matter:
            raise ValueError(f"Format {self.name!r}: front matter is read from text formats only.")
        bad = [s for s in self.suffixes if s and (not s.startswith(".") or s != s.lower())]
        if bad:
            raise ValueError(f"Format {self.name!r}: suffixes must be lower case with a dot: {bad}")


_BY_SUFFIX: dict[str, FormatSpec] = {}
_BY_NAME: dict[str, FormatSpec] = {}


def register(spec: FormatSpec) -> FormatSpec:
    """Add ``spec``; a suffix or name that is already taken is refused (unregister first)."""
    taken = [s for s in spec.suffixes if s in _BY_SUFFIX]
    if taken or spec.name in _BY_NAME:
        raise ValueError(f"Format {spec.name!r}: already registered ({taken or spec.name}).")
    _BY_NAME[spec.name] = spec
    for suffix in spec.suffixes:
        _BY_SUFFIX[suffix] = spec
    return spec


def unregister(name: str) -> None:
    """Remove the format called ``name`` (tests register toy formats and remove them)."""
    spec = _BY_NAME.pop(name)
    for suffix in spec.suffixes:
        del _BY_SUFFIX[suffix]


def suffix_of(name: str) -> str:
    """The lower-case suffix of a file name or document path (``""`` if none)."""
    return PurePosixPath(name.replace("\\", "/")).suffix.lower()


def supported_suffixes() -> frozenset[str]:
    """Every registered suffix (files without a suffix are not counted here)."""
    return frozenset(s for s in _BY_SUFFIX if s)


def is_supported(suffix: str) -> bool:
    return suffix in _BY_SUFFIX


def formats() -> tuple[FormatSpec, ...]:
    """The registered formats, in registration order."""
    return tuple(_BY_NAME.values())


def format_for(name: str) -> FormatSpec:
    """The format of a file from its suffix; raises :class:`UnsupportedFormat`."""
    suffix = suffix_of(name)
    spec = _BY_SUFFIX.get(suffix)
    if spec is None:
        supported = ", ".join(sorted(supported_suffixes()))
        if "" in _BY_SUFFIX:
            supported += " and files without extension"
        raise UnsupportedFormat(
            f"{name}: format {suffix!r} is not supported.",
            hint=f"Supported: {supported}. Convert the file or exclude it from the ingest.",
        )
    return spec


# -- the built-in formats -----------------------------------------------------------------
def _markdown(src: TextSource) -> Extracted:
    md = parse_markdown(src.text, src.body_offset, src.index, src.budget)
    return Extracted(src.text, md.nodes, md.first_h1)


def _text(src: TextSource) -> Extracted:
    return Extracted(src.text, parse_text(src.text, src.body_offset, src.budget))


def _html(src: TextSource) -> Extracted:
    doc = parse_html(src.text, src.name, src.budget)
    return Extracted(src.text, doc.nodes, doc.title)


def _xml(src: TextSource) -> Extracted:
    doc = parse_xml(src.text, src.name, src.budget)
    return Extracted(src.text, doc.nodes, doc.title, regulation_metadata(src.text))


register(FormatSpec("markdown", (".md", ".markdown"), front_matter=True, parse_text=_markdown))
register(FormatSpec("text", (".txt", ".text", ""), front_matter=True, parse_text=_text))
register(FormatSpec("html", (".html", ".htm"), parse_text=_html))
register(FormatSpec("xml", (".xml",), parse_text=_xml))


def _pdf(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    # imported on first use: pypdfium2 stays out of the CLI's start-up
    from citewise.ingest.pdf import parse_pdf

    return parse_pdf(raw, name, budget)


register(FormatSpec("pdf", (".pdf",), binary=True, parse_bytes=_pdf))


def _rst(src: TextSource) -> Extracted:
    from citewise.ingest.rst_guard import parse_rst_guarded  # docutils loads on first use

    budget = src.budget or ParseBudget(src.name)
    nodes, title = parse_rst_guarded(src.text, src.body_offset, src.index, budget)
    return Extracted(src.text, nodes, title)


register(FormatSpec("rst", (".rst", ".rest"), parse_text=_rst))


def _docx(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("docx", raw, name, budget)


register(FormatSpec("docx", (".docx",), binary=True, parse_bytes=_docx))


def _xlsx(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("xlsx", raw, name, budget)


register(FormatSpec("xlsx", (".xlsx",), binary=True, parse_bytes=_xlsx))


def _pptx(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("pptx", raw, name, budget)


register(FormatSpec("pptx", (".pptx",), binary=True, parse_bytes=_pptx))


def _epub(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("epub", raw, name, budget)


register(FormatSpec("epub", (".epub",), binary=True, parse_bytes=_epub))


def _odt(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("odt", raw, name, budget)


register(FormatSpec("odt", (".odt",), binary=True, parse_bytes=_odt))


def _csv(src: TextSource) -> Extracted:
    from citewise.ingest.delimited import parse_delimited

    return parse_delimited(src, tab=suffix_of(src.name) == ".tsv")


register(FormatSpec("csv", (".csv", ".tsv"), parse_text=_csv))


def _rtf(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.rtf import parse_rtf  # striprtf loads on first use

    return parse_rtf(raw, name, budget)


register(FormatSpec("rtf", (".rtf",), binary=True, parse_bytes=_rtf))


def _ods(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("ods", raw, name, budget)


def _odp(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.package_guard import parse_package  # the parser loads on first use

    return parse_package("odp", raw, name, budget)


register(FormatSpec("ods", (".ods",), binary=True, parse_bytes=_ods))
register(FormatSpec("odp", (".odp",), binary=True, parse_bytes=_odp))


def _legacy(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    from citewise.ingest.legacy import parse_legacy  # LibreOffice is run on first use

    return parse_legacy(raw, name, suffix_of(name), budget)


register(FormatSpec("doc", (".doc",), binary=True, parse_bytes=_legacy))
register(FormatSpec("xls", (".xls",), binary=True, parse_bytes=_legacy))
register(FormatSpec("ppt", (".ppt",), binary=True, parse_bytes=_legacy))
