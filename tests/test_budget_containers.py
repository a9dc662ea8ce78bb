"""One resource budget per ZIP-based file (DOCX, XLSX, PPTX, EPUB, ODT), enforced while
parsing (issue 32): expanded bytes per member and in total, checked from the central
directory and again while decompressing; members; compression ratio; cells per sheet
with merged areas; spine entries and chapters read once; a memory ceiling for large
packages (a child process with ``RLIMIT_AS``).

The hostile files come from tests/hostile_files.py. The tests marked ``subprocess``
parse each one in a fresh interpreter and measure its peak RSS (``ru_maxrss``) there.
"""

from __future__ import annotations

import io
import os
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.config import IngestConfig, ParseLimits, limits_from_env
from citewise.core.records import ParsedDocument
from citewise.errors import BrokenFile, CitewiseError, ParseLimitExceeded
from citewise.ingest.html import parse_html
from citewise.ingest.limits import ParseBudget
from citewise.ingest.parse import parse_document
from citewise.ingest.xlsx_scan import range_area
from citewise.ingest.zipbudget import open_package
from tests import hostile_files as hf
from tests.conftest import run_cli

#: Peak RSS a hostile file may add to the parsing process (measured in a child).
GROWTH_MB = 300


def _parse(name: str, raw: bytes, limits: ParseLimits | None = None) -> ParsedDocument:
    config = IngestConfig(limits=limits or ParseLimits())
    return parse_document(raw, name=name, kb="kb", doc_path=name, config=config)


def _small_zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for path, data in members.items():
            z.writestr(path, data)
    return buf.getvalue()


# --- the central directory and the real expansion ----------------------------------


@pytest.mark.parametrize(
    ("limits", "setting", "variable"),
    [
        (ParseLimits(max_zip_member_bytes=1_000_000), "max_zip_member_bytes", "MEMBER_BYTES"),
        (ParseLimits(max_zip_total_bytes=3_000_000), "max_zip_total_bytes", "TOTAL_BYTES"),
        (ParseLimits(max_zip_members=3), "max_zip_members", "MEMBERS"),
        (ParseLimits(max_zip_ratio=50), "max_zip_ratio", "RATIO"),
    ],
)
def test_each_package_limit_is_named_with_its_variable(
    limits: ParseLimits, setting: str, variable: str
) -> None:
    raw = _small_zip({f"part{i}.xml": b"<a/>" + b" " * 1_100_000 for i in range(4)})
    with pytest.raises(ParseLimitExceeded) as caught:
        open_package(raw, "pack.odt", "ODT", ParseBudget("pack.odt", limits))
    assert setting in str(caught.value)
    assert f"CITEWISE_PARSE_MAX_ZIP_{variable}" in str(caught.value)


@pytest.mark.parametrize("fmt", ["odt", "docx", "pptx"])
def test_a_small_package_expanding_past_the_member_limit_is_refused(fmt: str) -> None:
    make = {"odt": hf.odt_zip_bomb, "docx": hf.docx_zip_bomb, "pptx": hf.pptx_zip_bomb}[fmt]
    raw = make(3)  # 3 MB expanded from a few KB
    assert len(raw) < 20_000
    with pytest.raises(ParseLimitExceeded, match="CITEWISE_PARSE_MAX_ZIP_MEMBER_BYTES"):
        _parse(f"bomb.{fmt}", raw, ParseLimits(max_zip_member_bytes=2 * hf.MB))


def test_a_member_lying_about_its_size_is_stopped_while_decompressing() -> None:
    """The central directory and local header say 1,000 bytes; the data inflates to
    3 MB. The decompressing count stops it past the declared size (a damaged package),
    whatever the limits allow."""
    raw = hf.lying_declared_size_zip(expanded_mb=3, declared=1000)
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        assert z.getinfo("content.xml").file_size == 1000
    with pytest.raises(BrokenFile, match="expands past its declared 1,000 bytes"):
        _parse("lying.odt", raw)


def test_a_lying_member_is_refused_before_any_library_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import docx

    def never(*_: object) -> None:
        raise AssertionError("python-docx was handed a package that was not checked")

    monkeypatch.setattr(docx, "Document", never)
    raw = hf.set_declared_size(hf.docx_zip_bomb(2), "word/document.xml", 500)
    with pytest.raises(BrokenFile, match="declared 500 bytes"):
        _parse("lying.docx", raw)


def test_stored_members_are_counted_too() -> None:
    raw = _small_zip({"content.xml": b" " * 300_000}, zipfile.ZIP_STORED)
    with pytest.raises(ParseLimitExceeded, match="max_zip_member_bytes"):
        _parse("stored.odt", raw, ParseLimits(max_zip_member_bytes=200_000))


def test_ordinary_packages_pass_the_checks_unchanged() -> None:
    for name, raw in [("a.odt", hf.odt()), ("a.docx", hf.docx()), ("a.xlsx", hf.xlsx())]:
        doc = _parse(name, raw)
        assert any("Pier" in n.text or "Pilots" in n.text for n in doc.nodes)


def test_new_limits_come_from_the_environment() -> None:
    env = {
        "CITEWISE_PARSE_MAX_ZIP_MEMBERS": "12",
        "CITEWISE_PARSE_MAX_ZIP_MEMBER_BYTES": "1000",
        "CITEWISE_PARSE_MAX_ZIP_TOTAL_BYTES": "2000",
        "CITEWISE_PARSE_MAX_ZIP_RATIO": "30",
        "CITEWISE_PARSE_MAX_SHEET_CELLS": "40",
        "CITEWISE_PARSE_MAX_SPINE_ITEMS": "50",
        "CITEWISE_PARSE_MAX_MEMORY_MB": "600",
    }
    assert limits_from_env(env) == ParseLimits(
        max_zip_members=12,
        max_zip_member_bytes=1000,
        max_zip_total_bytes=2000,
        max_zip_ratio=30,
        max_sheet_cells=40,
        max_spine_items=50,
        max_parse_memory_mb=600,
    )


# --- XLSX -------------------------------------------------------------------------


def test_range_area() -> None:
    assert range_area("A1") == 1
    assert range_area("A1:C4") == 12
    assert range_area("$B$2:$A$1") == 4
    assert range_area("A1:XFD1048576") == 16_384 * 1_048_576
    assert range_area("nonsense") == 0


def test_a_whole_sheet_merge_is_refused_before_openpyxl_builds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import openpyxl

    def never(*_: object, **__: object) -> None:
        raise AssertionError("openpyxl was asked to load a sheet past the cell limit")

    monkeypatch.setattr(openpyxl, "load_workbook", never)
    with pytest.raises(ParseLimitExceeded, match="CITEWISE_PARSE_MAX_SHEET_CELLS"):
        _parse("merge.xlsx", hf.xlsx_huge_merge())


def test_cells_per_sheet_are_capped() -> None:
    with pytest.raises(ParseLimitExceeded, match="max_sheet_cells"):
        _parse("rows.xlsx", hf.xlsx(rows=30), ParseLimits(max_sheet_cells=40))
    assert _parse("rows.xlsx", hf.xlsx(rows=30), ParseLimits(max_sheet_cells=80)).nodes


def test_far_apart_cells_are_read_without_walking_the_rectangle() -> None:
    """Two cells at the sheet's corners: two filled cells to read, with exact locators
    (the grid is sparse; the rectangle between them is 17 billion cells)."""
    doc = _parse("far.xlsx", hf.xlsx_far_cells(), ParseLimits(max_seconds=20))
    paragraphs = [(n.text, n.attrs["locator"]["cells"]) for n in doc.nodes if n.kind == "paragraph"]
    # far apart, they are two blocks (sheet_tables), each one cell
    assert paragraphs == [("first", "Sheet1!A1"), ("last", "Sheet1!XFD1048576")]


def test_a_docx_cell_spanning_millions_of_columns_is_refused_before_python_docx() -> None:
    with pytest.raises(ParseLimitExceeded, match="CITEWISE_PARSE_MAX_SHEET_CELLS"):
        _parse("span.docx", hf.docx_huge_span())
    doc = _parse("span.docx", hf.docx_huge_span(3))  # an ordinary span
    (row,) = [n for n in doc.nodes if n.kind == "table_row"]
    assert row.attrs["cells"] == ["below"]


def test_an_odt_space_run_is_read_as_one_space() -> None:
    doc = _parse("spaces.odt", hf.odt_space_run(5_000_000))
    (para,) = [n for n in doc.nodes if n.kind == "paragraph"]
    assert para.text == "before after"


# --- EPUB -------------------------------------------------------------------------


def _book(spine: list[str]) -> bytes:
    from tests.test_formats_ebook import _xhtml

    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></metadata>'
        '<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="b" href="b.xhtml" media-type="application/xhtml+xml"/></manifest><spine>'
        + "".join(f'<itemref idref="{i}"/>' for i in spine)
        + "</spine></package>"
    )
    container = (
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:'
        'xmlns:container"><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>'
    )
    return _small_zip(
        {
            "mimetype": b"application/epub+zip",
            "META-INF/container.xml": container.encode(),
            "content.opf": opf.encode(),
            "a.xhtml": _xhtml("<h1>Light</h1><p>The lamp turns.</p>").encode(),
            "b.xhtml": _xhtml("<h1>Pilot</h1><p>Pilots board.</p>").encode(),
        }
    )


def test_a_chapter_the_spine_repeats_is_read_and_parsed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = parse_html

    def counting(source: str, name: str, budget: ParseBudget | None = None) -> object:
        calls.append(name)
        return real(source, name, budget)

    monkeypatch.setattr("citewise.ingest.epub.parse_html", counting)
    doc = _parse("loop.epub", _book(["a", "b", "a", "a", "b", "a"]))
    assert calls == ["a.xhtml", "b.xhtml"]
    assert doc.metadata["chapters"] == ["a.xhtml", "b.xhtml"]
    locators = [
        n.attrs["locator"] for n in doc.nodes if n.kind == "section" and n.attrs.get("locator")
    ]
    assert locators == [
        {"chapter": "a.xhtml", "spine_index": 0},
        {"chapter": "b.xhtml", "spine_index": 1},
    ]


def test_spine_entries_are_capped() -> None:
    with pytest.raises(ParseLimitExceeded, match="CITEWISE_PARSE_MAX_SPINE_ITEMS"):
        _parse("long.epub", _book(["a", "b"] * 3), ParseLimits(max_spine_items=5))


# --- property: small packages with huge declared or expanded sizes ------------------

EXAMPLES = int(os.environ.get("CITEWISE_FUZZ_EXAMPLES", "30"))
FUZZ_LIMITS = ParseLimits(
    max_zip_members=12,
    max_zip_member_bytes=256 * 1024,
    max_zip_total_bytes=512 * 1024,
    max_zip_ratio=40,
    max_sheet_cells=2_000,
    max_spine_items=50,
    max_seconds=10.0,
)
_KINDS: dict[str, Callable[[], bytes]] = {
    "odt": hf.odt,
    "docx": hf.docx,
    "xlsx": hf.xlsx,
    "epub": lambda: _book(["a", "b", "a"]),
    "pptx": lambda: hf.pptx_zip_bomb(0),
}
_MEMBER = st.tuples(
    st.sampled_from([b" ", b"<p>", b"\x00", b"abcdefgh"]),
    st.integers(0, 2 * 1024 * 1024),  # expanded: up to 8x the member limit
)


@pytest.mark.fuzz
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 100,
)
@given(
    kind=st.sampled_from(sorted(_KINDS)),
    extra=st.lists(_MEMBER, max_size=16),
    lie=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
)
def test_packages_with_huge_sizes_parse_within_budget_or_fail_clearly(
    kind: str, extra: list[tuple[bytes, int]], lie: int | None
) -> None:
    base = _KINDS[kind]()
    buf = io.BytesIO(base)
    with zipfile.ZipFile(buf, "a", zipfile.ZIP_DEFLATED) as z:
        for i, (unit, size) in enumerate(extra):
            z.writestr(f"extra/{i}.xml", unit * (size // len(unit)))
    raw = buf.getvalue()
    if lie is not None:  # the first member's declared size is made up
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            first = z.infolist()[0].filename
        raw = hf.set_declared_size(raw, first, lie)
    tracemalloc.start()
    try:
        _parse(f"fuzz.{kind}", raw, FUZZ_LIMITS)
    except CitewiseError:
        pass  # a clear per-file error (PARSE_LIMIT, BROKEN_FILE, EMPTY ...)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024 + 64 * len(raw)


# --- measured in a child: each finding of issue 32 ------------------------------------

_MEASURED = [
    ("merge.xlsx", hf.xlsx_huge_merge, "PARSE_LIMIT", "max_sheet_cells"),
    ("far.xlsx", hf.xlsx_far_cells, "ok", ""),
    ("bomb.odt", lambda: hf.odt_zip_bomb(160), "PARSE_LIMIT", "max_zip_member_bytes"),
    ("bomb.docx", lambda: hf.docx_zip_bomb(160), "PARSE_LIMIT", "max_zip_member_bytes"),
    ("bomb.pptx", lambda: hf.pptx_zip_bomb(160), "PARSE_LIMIT", "max_zip_member_bytes"),
    ("span.docx", hf.docx_huge_span, "PARSE_LIMIT", "max_sheet_cells"),
    ("spread.odt", lambda: hf.spread_bomb(3, 100), "PARSE_LIMIT", "max_zip_total_bytes"),
    ("lying.odt", lambda: hf.lying_declared_size_zip(160), "BROKEN_FILE", "declared"),
    ("crowded.odt", lambda: hf.many_members_zip(10_001), "PARSE_LIMIT", "max_zip_members"),
    ("loop.epub", hf.epub_repeated_spine, "ok", ""),
    ("spaces.odt", hf.odt_space_run, "ok", ""),
]


@pytest.mark.subprocess
@pytest.mark.parametrize(("name", "make", "code", "says"), _MEASURED, ids=[m[0] for m in _MEASURED])
def test_hostile_package_memory_is_measured_bounded(
    name: str, make: Callable[[], bytes], code: str, says: str
) -> None:
    result = hf.measure_parse(name, make(), timeout=300)
    assert result["code"] == code, result
    assert says in str(result["message"])
    assert float(result["growth_mb"]) < GROWTH_MB, result
    assert float(result["seconds"]) < 30, result


@pytest.mark.subprocess
def test_a_large_package_is_parsed_under_the_memory_ceiling() -> None:
    """A package past the in-process size (its XML dense enough that a parser holds
    several times it) is parsed in a child capped at ``max_parse_memory_mb``: with a low
    ceiling it fails alone with PARSE_LIMIT naming the variable, the child's memory stays
    under the ceiling and the parsing process's own memory does not grow with it."""
    raw = hf.odt_dense_spans(24)
    result = hf.measure_parse("dense.odt", raw, env={"CITEWISE_PARSE_MAX_MEMORY_MB": "150"})
    assert result["code"] == "PARSE_LIMIT", result
    assert "CITEWISE_PARSE_MAX_MEMORY_MB" in str(result["message"])
    assert float(result["child_peak_mb"]) < 150, result
    assert float(result["growth_mb"]) < 50, result


@pytest.mark.subprocess
def test_a_hostile_package_fails_alone_in_an_add_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")  # the test is about parsing, not vectors
    src = tmp_path / "src"
    src.mkdir()
    (src / "merge.xlsx").write_bytes(hf.xlsx_huge_merge())
    (src / "bomb.odt").write_bytes(hf.odt_zip_bomb(160))
    (src / "fine.docx").write_bytes(hf.docx("Pilots board at the quarantine buoy."))
    home = tmp_path / "home"
    done = run_cli("add", str(src), home=home)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "PARSE_LIMIT" in out and "max_sheet_cells" in out and "max_zip_member_bytes" in out
    listed = run_cli("docs", "list", home=home)
    assert "fine.docx" in listed.stdout
    assert "merge.xlsx" not in listed.stdout and "bomb.odt" not in listed.stdout


@pytest.mark.subprocess
def test_a_package_parsed_in_the_child_gives_the_in_process_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the in-process size (lowered here so a small book is enough) the package is
    parsed in the memory-capped child; what comes back is what the parser gives in
    process (text, nodes, locators), and the child's errors come back as errors."""
    import subprocess

    from citewise.ingest import package_guard
    from citewise.ingest.odt import parse_odt

    spawned: list[object] = []
    real_run = subprocess.run

    def run(*args: Any, **kwargs: Any) -> Any:
        spawned.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(package_guard, "IN_PROCESS_BYTES", 1024)
    monkeypatch.setattr(subprocess, "run", run)
    body = '<text:h text:outline-level="1">Harbor</text:h>' + "".join(
        f"<text:p>Paragraph {i}: pilots board at buoy {i}.</text:p>" for i in range(200)
    )
    raw = hf.odt(body)
    in_process = parse_odt(raw, "big.odt", ParseBudget("big.odt"))
    doc = _parse("big.odt", raw)  # through the format registry: the child
    assert len(spawned) == 1
    assert doc.text == in_process.text
    locators = [n.attrs.get("locator") for n in doc.nodes if n.kind == "paragraph"]
    assert locators == [{"paragraph": i} for i in range(1, 201)]
    with pytest.raises(ParseLimitExceeded, match="CITEWISE_PARSE_MAX_NODES"):
        _parse("big.odt", raw, ParseLimits(max_nodes=50))
    assert len(spawned) == 2
