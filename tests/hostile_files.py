"""Hostile container files, generated in code (each a few KB to a few MB of bytes), and a
runner that parses one in a fresh child interpreter and measures its peak memory.

Used by tests/test_budget_containers.py and bench/hostile_budgets.py. Expansion is
written in chunks, so making a file that expands to hundreds of MB never holds it.
"""

from __future__ import annotations

import io
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

MB = 1024 * 1024
_CHUNK = " " * MB

_ODT_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)
_W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_SS_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_R = "http://schemas.openxmlformats.org/package/2006/relationships"


def _zip(parts: Iterable[tuple[str, str | bytes | Callable[[io.BufferedIOBase], None]]]) -> bytes:
    """A deflated zip; a part given as a function writes its own (large) body."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for path, body in parts:
            if callable(body):
                with z.open(path, "w") as out:
                    body(out)  # type: ignore[arg-type]
            else:
                z.writestr(path, body)
    return buf.getvalue()


def _padded(head: str, tail: str, expanded_mb: int) -> Callable[[io.BufferedIOBase], None]:
    """A part of ``expanded_mb`` MB: ``head``, spaces, ``tail`` (written a MB at a time)."""

    def write(out: io.BufferedIOBase) -> None:
        out.write(head.encode())
        chunk = _CHUNK.encode()
        for _ in range(expanded_mb):
            out.write(chunk)
        out.write(tail.encode())

    return write


# --- ODT ---------------------------------------------------------------------------


def _odt_content(body: str) -> str:
    return (
        f'<?xml version="1.0"?><office:document-content {_ODT_NS}><office:body>'
        f"<office:text>{body}</office:text></office:body></office:document-content>"
    )


def odt(body: str = "<text:p>Pilots board at the buoy.</text:p>") -> bytes:
    """An ordinary small ODT."""
    return _zip(
        [
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            ("META-INF/manifest.xml", "<manifest/>"),
            ("content.xml", _odt_content(body)),
        ]
    )


def odt_space_run(count: int = 2_000_000_000) -> bytes:
    """An ODT paragraph holding one ``<text:s text:c="count"/>`` (a run of spaces)."""
    return odt(f'<text:p>before<text:s text:c="{count}"/>after</text:p>')


def odt_zip_bomb(expanded_mb: int = 512) -> bytes:
    """An ODT whose ``content.xml`` expands to ``expanded_mb`` MB (one paragraph of
    spaces): about 1 KB per MB compressed."""
    head, tail = _odt_content("<text:p>\x00</text:p>").split("\x00")
    return _zip(
        [
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            ("META-INF/manifest.xml", "<manifest/>"),
            ("content.xml", _padded(head + "bomb", tail, expanded_mb)),
        ]
    )


def spread_bomb(members: int = 3, expanded_mb: int = 100) -> bytes:
    """An ODT with ``members`` extra parts of ``expanded_mb`` MB each: every one within
    the per-member limit, together past the total."""
    parts: list[tuple[str, str | bytes | Callable[[io.BufferedIOBase], None]]] = [
        ("mimetype", "application/vnd.oasis.opendocument.text"),
        ("content.xml", _odt_content("<text:p>Pilots board at the buoy.</text:p>")),
    ]
    parts.extend((f"Data/{i}.xml", _padded("<d>", "</d>", expanded_mb)) for i in range(members))
    return _zip(parts)


def odt_dense_spans(expanded_mb: int = 24) -> bytes:
    """An ODT whose ``content.xml`` is ``expanded_mb`` MB of short, varied spans: it
    compresses like real XML (about 7x, within every size limit), while a tree of it
    takes several times its size in memory."""
    rnd = random.Random(7)
    head, tail = _odt_content("<text:p>\x00</text:p>").split("\x00")

    def write(out: io.BufferedIOBase) -> None:
        out.write(head.encode())
        written = 0
        while written < expanded_mb * MB:
            spans = "".join(
                f"<text:span>{rnd.randrange(10**6)}</text:span>" for _ in range(2000)
            ).encode()
            out.write(spans)
            written += len(spans)
        out.write(tail.encode())

    return _zip([("mimetype", "application/vnd.oasis.opendocument.text"), ("content.xml", write)])


# --- DOCX / PPTX -------------------------------------------------------------------


def _ooxml(
    main_type: str, main_part: str, main: str | Callable[[io.BufferedIOBase], None]
) -> bytes:
    types = (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-'
        'package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/{main_part}" ContentType="{main_type}"/></Types>'
    )
    rels = (
        f'<?xml version="1.0"?><Relationships xmlns="{_PKG_R}"><Relationship Id="rId1" '
        f'Type="{_R_NS}/officeDocument" Target="{main_part}"/></Relationships>'
    )
    return _zip([("[Content_Types].xml", types), ("_rels/.rels", rels), (main_part, main)])


_DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"


def docx(text: str = "Pilots board at the buoy.") -> bytes:
    """An ordinary one-paragraph DOCX."""
    body = (
        f"<w:document {_W_NS}><w:body><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>"
    )
    return _ooxml(_DOCX_MAIN, "word/document.xml", body)


def docx_zip_bomb(expanded_mb: int = 512) -> bytes:
    """A DOCX whose ``word/document.xml`` expands to ``expanded_mb`` MB."""
    head = f"<w:document {_W_NS}><w:body><w:p><w:r><w:t>bomb"
    return _ooxml(
        _DOCX_MAIN,
        "word/document.xml",
        _padded(head, "</w:t></w:r></w:p></w:body></w:document>", expanded_mb),
    )


def docx_huge_span(span: int = 50_000_000) -> bytes:
    """A one-cell DOCX table whose cell spans ``span`` grid columns (``w:gridSpan``)."""
    cell = (
        f'<w:tc><w:tcPr><w:gridSpan w:val="{span}"/></w:tcPr>'
        "<w:p><w:r><w:t>wide</w:t></w:r></w:p></w:tc>"
    )
    row = "<w:tr><w:tc><w:p><w:r><w:t>below</w:t></w:r></w:p></w:tc></w:tr>"
    body = (
        f"<w:document {_W_NS}><w:body><w:tbl><w:tr>{cell}</w:tr>{row}</w:tbl></w:body></w:document>"
    )
    return _ooxml(_DOCX_MAIN, "word/document.xml", body)


def pptx_zip_bomb(expanded_mb: int = 512) -> bytes:
    """A PPTX whose ``ppt/presentation.xml`` expands to ``expanded_mb`` MB."""
    kind = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
    head = (
        '<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><!--'
    )
    return _ooxml(kind, "ppt/presentation.xml", _padded(head, "--></p:presentation>", expanded_mb))


# --- XLSX --------------------------------------------------------------------------


def _xlsx(sheet_data: str, after: str = "") -> bytes:
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
    sheet_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
    types = (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-'
        'package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="{kind}"/>'
        f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{sheet_type}"/></Types>'
    )
    rels = (
        f'<?xml version="1.0"?><Relationships xmlns="{_PKG_R}"><Relationship Id="rId1" '
        f'Type="{_R_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    )
    workbook = (
        f'<?xml version="1.0"?><workbook {_SS_NS} xmlns:r="{_R_NS}"><sheets>'
        '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
    )
    wb_rels = (
        f'<?xml version="1.0"?><Relationships xmlns="{_PKG_R}"><Relationship Id="rId1" '
        f'Type="{_R_NS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
    )
    sheet = (
        f'<?xml version="1.0"?><worksheet {_SS_NS}><sheetData>{sheet_data}</sheetData>'
        f"{after}</worksheet>"
    )
    return _zip(
        [
            ("[Content_Types].xml", types),
            ("_rels/.rels", rels),
            ("xl/workbook.xml", workbook),
            ("xl/_rels/workbook.xml.rels", wb_rels),
            ("xl/worksheets/sheet1.xml", sheet),
        ]
    )


def _cell(ref: str, text: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


def xlsx(rows: int = 3) -> bytes:
    """An ordinary small sheet: a header row and ``rows`` data rows."""
    data = '<row r="1">' + _cell("A1", "Pier") + _cell("B1", "Depth") + "</row>"
    for r in range(2, rows + 2):
        data += f'<row r="{r}">' + _cell(f"A{r}", f"P{r}") + _cell(f"B{r}", f"{r} m") + "</row>"
    return _xlsx(data)


def xlsx_huge_merge() -> bytes:
    """One cell and a merged range over the whole sheet (17 billion cells)."""
    data = '<row r="1">' + _cell("A1", "Title") + "</row>"
    return _xlsx(data, '<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>')


def xlsx_far_cells() -> bytes:
    """Two cells, at the sheet's opposite corners (A1 and XFD1048576)."""
    return _xlsx(
        '<row r="1">' + _cell("A1", "first") + "</row>"
        '<row r="1048576">' + _cell("XFD1048576", "last") + "</row>"
    )


def xlsx_million_cells(rows: int = 1000, cols: int = 999) -> bytes:
    """A sheet of ``rows`` x ``cols`` short varied numbers (just under the cell limit by
    default): 1.3 MB compressed, 16 MB of sheet XML."""
    rnd = random.Random(1)
    data = "".join(
        "<row>" + "".join(f"<c><v>{rnd.randrange(100)}</v></c>" for _ in range(cols)) + "</row>"
        for _ in range(rows)
    )
    return _xlsx(data)


# --- EPUB --------------------------------------------------------------------------


def epub_repeated_spine(chapter_kb: int = 2048, repeats: int = 5000) -> bytes:
    """A book whose spine lists one chapter of ``chapter_kb`` KB ``repeats`` times."""
    rnd = random.Random(32)  # varied text: compresses like prose, not like a bomb
    vocab = ["lamp", "turns", "every", "ten", "seconds", "pilots", "board", "the", "buoy"]
    words = (rnd.choice(vocab) + str(rnd.randrange(100)) for _ in range(chapter_kb * 128))
    text = " ".join(words)
    step = 256 * 1024  # few, long paragraphs: a few nodes per copy of the chapter
    paras = "".join(f"<p>{text[i : i + step]}</p>" for i in range(0, len(text), step))
    chapter = (
        '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title>'
        f"</head><body><h1>Light</h1>{paras}</body></html>"
    )
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Loop</dc:title>'
        '</metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>'
        "</manifest><spine>" + '<itemref idref="c1"/>' * repeats + "</spine></package>"
    )
    container = (
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:'
        'xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
        'media-type="application/oebps-package+xml"/></rootfiles></container>'
    )
    return _zip(
        [
            ("mimetype", "application/epub+zip"),
            ("META-INF/container.xml", container),
            ("OEBPS/content.opf", opf),
            ("OEBPS/c1.xhtml", chapter),
        ]
    )


# --- lying and crowded packages ----------------------------------------------------


def set_declared_size(raw: bytes, member: str, declared: int) -> bytes:
    """``raw`` with ``member``'s expanded size in both its local header and the central
    directory set to ``declared`` (the data and CRC unchanged)."""
    out = bytearray(raw)
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        info = z.getinfo(member)
        start_dir = z.start_dir
    struct.pack_into("<I", out, info.header_offset + 22, declared)
    at = start_dir
    while out[at : at + 4] == b"PK\x01\x02":
        n, m, k = struct.unpack_from("<HHH", out, at + 28)
        if out[at + 46 : at + 46 + n].decode() == member:
            struct.pack_into("<I", out, at + 24, declared)
        at += 46 + n + m + k
    return bytes(out)


def lying_declared_size_zip(expanded_mb: int = 256, declared: int = 1000) -> bytes:
    """An ODT whose ``content.xml`` says it expands to ``declared`` bytes but really
    expands to ``expanded_mb`` MB."""
    return set_declared_size(odt_zip_bomb(expanded_mb), "content.xml", declared)


def many_members_zip(members: int = 20_000) -> bytes:
    """An ODT with ``members`` empty extra members beside an ordinary body."""
    parts: list[tuple[str, str | bytes | Callable[[io.BufferedIOBase], None]]] = [
        ("mimetype", "application/vnd.oasis.opendocument.text"),
        ("content.xml", _odt_content("<text:p>Pilots board at the buoy.</text:p>")),
    ]
    parts.extend((f"Pictures/{i}.bin", b"") for i in range(members))
    return _zip(parts)


#: name -> (file name to parse under, generator): the hostile files of issue 32.
HOSTILE: dict[str, tuple[str, Callable[[], bytes]]] = {
    "xlsx_huge_merge": ("merge.xlsx", xlsx_huge_merge),
    "xlsx_far_cells": ("far.xlsx", xlsx_far_cells),
    "xlsx_million_cells": ("cells.xlsx", xlsx_million_cells),
    "odt_zip_bomb": ("bomb.odt", lambda: odt_zip_bomb(512)),
    "docx_zip_bomb": ("bomb.docx", lambda: docx_zip_bomb(512)),
    "pptx_zip_bomb": ("bomb.pptx", lambda: pptx_zip_bomb(512)),
    "docx_huge_span": ("span.docx", docx_huge_span),
    "epub_repeated_spine": ("loop.epub", epub_repeated_spine),
    "lying_declared_size": ("lying.odt", lambda: lying_declared_size_zip(512)),
    "many_members": ("crowded.odt", lambda: many_members_zip(20_000)),
    "spread_bomb": ("spread.odt", lambda: spread_bomb(3, 100)),
    "odt_space_run": ("spaces.odt", odt_space_run),
    "odt_dense_spans": ("dense.odt", lambda: odt_dense_spans(100)),
}

_CHILD = """
import json, os, resource, sys, time
from citewise.config import IngestConfig, limits_from_env
from citewise.errors import CitewiseError
from citewise.ingest.parse import parse_document
import citewise.ingest.docx, citewise.ingest.xlsx, citewise.ingest.pptx  # noqa: baseline
import citewise.ingest.epub, citewise.ingest.odt  # noqa: baseline
import docx, openpyxl, pptx  # noqa: libraries loaded before the baseline is taken
path, name, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
if cap:
    resource.setrlimit(resource.RLIMIT_AS, (cap * 1024 * 1024, resource.RLIM_INFINITY))
raw = open(path, "rb").read()
config = IngestConfig(limits=limits_from_env(os.environ))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
try:
    doc = parse_document(raw, name=name, kb="kb", doc_path=name, config=config)
    code, message, nodes = "ok", "", len(doc.nodes)
except CitewiseError as exc:
    code, message, nodes = exc.code, str(exc), 0
except MemoryError:
    code, message, nodes = "MemoryError", "", 0
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": code, "message": message, "nodes": nodes, "seconds": seconds,
                  "baseline_mb": base / 1024, "peak_mb": peak / 1024,
                  "child_peak_mb": child / 1024}))
"""


def measure_parse(
    name: str,
    raw: bytes,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    src: Path | None = None,
    address_space_mb: int = 0,
) -> dict[str, Any]:
    """Parse ``raw`` as ``name`` in a fresh interpreter; its outcome (``code``: ``ok`` or
    the error code), node count, seconds, and peak RSS over its baseline (``growth_mb``:
    ``ru_maxrss`` after the parse minus before, the libraries already loaded;
    ``child_peak_mb``: the largest process it started). ``src``: the citewise sources to
    run (default: this tree's); ``address_space_mb``: a safety cap on the measuring
    process itself (for old code that would take the machine's memory)."""
    src = src or Path(__file__).resolve().parents[1] / "src"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(raw)
        child_env = {**os.environ, **(env or {})}
        child_env["PYTHONPATH"] = os.pathsep.join([str(src), child_env.get("PYTHONPATH", "")])
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path), name, str(address_space_mb)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=child_env,
            check=False,
        )
    if done.returncode != 0:
        return {"code": f"exit {done.returncode}", "message": done.stderr[-400:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["growth_mb"] = float(result["peak_mb"]) - float(result["baseline_mb"])
    return result
