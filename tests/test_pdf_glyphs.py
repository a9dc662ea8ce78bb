"""Checked PDF text: the glyph check (pdf_glyphs) and the second extractor (pdf_recheck)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.ingest import pdf_recheck
from citewise.ingest.pdf import parse_pdf
from citewise.ingest.pdf_glyphs import MAX_RATIO, score_text, script_of
from tests.hostile_pdf import build

#: ``../shared/data`` beside the repository (or beside its worktree folder).
SHARED = next(
    (
        p / "shared" / "data"
        for p in Path(__file__).resolve().parents[1:4]
        if (p / "shared").is_dir()
    ),
    Path("/nonexistent"),
)

#: Lines set in a font whose ToUnicode map is right, then lines in a font whose map
#: sends every letter into the Mongolian block (the class of damage seen in real PDFs).
GOOD = [
    "The National Weather Service issues forecasts for the public.",
    "Warnings are given when severe storms approach a county.",
    "Observations are taken every hour at each reporting station.",
    "Records of rainfall and temperature are kept for each day.",
]
BROKEN = ["Flood watch for the river valley", "Levels are rising tonight"]


def _cmap(start: int) -> str:
    """A ToUnicode CMap mapping A-Z and a-z to consecutive code points from ``start``."""
    ranges = f"<41> <5A> <{start:04X}>\n<61> <7A> <{start + 26:04X}>\n<20> <20> <0020>\n"
    return (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CMapName /Broken def 1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"3 beginbfrange\n{ranges}endbfrange\nendcmap CMapName currentdict /CMap "
        "defineresource pop end end"
    )


def broken_pdf(start: int = 0x1820) -> bytes:
    """One page: :data:`GOOD` in Helvetica, :data:`BROKEN` in Helvetica with a ToUnicode
    map into a foreign block (written by hand; see :func:`_cmap`)."""
    ops = "".join(f"BT /F1 11 Tf 72 {720 - 14 * i} Td ({t}) Tj ET\n" for i, t in enumerate(GOOD))
    ops += "".join(f"BT /F2 11 Tf 72 {600 - 14 * i} Td ({t}) Tj ET\n" for i, t in enumerate(BROKEN))
    cmap = _cmap(start)
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 7 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding "
        "/ToUnicode 6 0 R >>",
        f"<< /Length {len(cmap)} >>\nstream\n{cmap}\nendstream",
        f"<< /Length {len(ops)} >>\nstream\n{ops}endstream",
    ]
    return build([o.encode("latin-1") for o in objs])


# -- the score ---------------------------------------------------------------------------
def test_scripts_by_block() -> None:
    assert script_of("敏") == "cjk" and script_of("か") == "cjk" and script_of("한") == "cjk"
    assert script_of("\u1b7f") == "balinese" and script_of("\u18d4") == "canadian"
    assert script_of("e") == "latin" and script_of("\ue000") == "private"


def test_mis_mapped_chinese_fails_and_the_real_text_passes() -> None:
    real = "个人信息保护是数据安全的重要内容，敏感信息的处理应当取得个人的单独同意。" * 3
    # the damage reported on a real 2013 report: 敏 -> U+1B7F, 护 -> U+18D4, and so on
    broken = real.replace("敏", "\u1b7f").replace("护", "\u18d4").replace("的", "\u1950")
    broken = broken.replace("信", "\u1820").replace("息", "\ue123")
    assert score_text(real).passes
    bad = score_text(broken)
    assert not bad.passes and bad.dominant == "cjk" and bad.foreign >= 12
    assert "foreign to a cjk page" in bad.reason()


def test_latin_page_with_a_few_symbols_and_chinese_with_english_pass() -> None:
    math = "Let x \x04 y and f(x) \uf8eb \uf8ed be given; the bound holds for all n. " * 5
    assert score_text(math).passes
    mixed = "本文使用 LaTeX 排版，模板名为 ElegantPaper，支持 Unicode 与 XeLaTeX 编译。" * 4
    assert score_text(mixed).passes
    mongolian_page = "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ " * 20  # a real Mongolian page is its own script
    assert score_text(mongolian_page).passes


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_score_is_total_and_bounded(text: str) -> None:
    score = score_text(text)
    assert score.suspect <= len(text) and score.ratio >= 0
    assert isinstance(score.reason(), str)


# -- the page check in the PDF parse ------------------------------------------------------
def test_both_extractors_broken_page_is_flagged_text_suspect() -> None:
    doc = parse_pdf(broken_pdf(), "broken.pdf")
    assert min(c for c in doc.text if ord(c) > 0x1000) >= "\u1820"  # PDFium read the map
    suspect = doc.metadata["text_suspect"]
    assert [s["page"] for s in suspect] == [1]
    assert "foreign to a latin page" in suspect[0]["reason"]
    assert "pypdf's text is suspect too" in suspect[0]["reason"]
    assert doc.metadata["text_check"]["pages_reextracted"] == []


def test_clean_page_is_untouched() -> None:
    doc = parse_pdf(broken_pdf(start=0x41), "fine.pdf")  # the map is the identity
    assert "text_suspect" not in doc.metadata
    assert doc.metadata["text_check"] == {
        "pages_checked": 1,
        "pages_reextracted": [],
        "chars_changed": 0,
    }


def _locators(nodes: list) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for n in nodes:
        if "locator" in n.attrs:
            out.append(n.attrs["locator"])
        out.extend(_locators(n.children))
    return out


def test_second_extractor_text_with_same_glyphs_keeps_the_boxes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    truth = "\n".join(GOOD + BROKEN)
    monkeypatch.setattr(pdf_recheck, "second_page_text", lambda raw, index: truth)
    doc = parse_pdf(broken_pdf(), "broken.pdf")
    assert "Flood watch for the river valley" in doc.text
    assert not any(0x1800 <= ord(c) < 0x1900 for c in doc.text)
    locs = _locators(doc.nodes)
    assert locs and all(loc["extractor"] == "pypdf" and "degraded" not in loc for loc in locs)
    check = doc.metadata["text_check"]
    assert check["pages_reextracted"] == [1]
    assert check["chars_changed"] == sum(len(t.replace(" ", "")) for t in BROKEN)


def test_second_extractor_text_without_alignment_is_degraded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    truth = "\n".join(GOOD) + "\n\nFlood watch for the river valley\nLevels are rising"
    monkeypatch.setattr(pdf_recheck, "second_page_text", lambda raw, index: truth)
    doc = parse_pdf(broken_pdf(), "broken.pdf")
    assert "Levels are rising" in doc.text and "\u1820" not in doc.text
    locs = _locators(doc.nodes)
    assert locs and all(loc["extractor"] == "pypdf" for loc in locs)
    assert all(loc["degraded"] == pdf_recheck.DEGRADED for loc in locs)
    assert len({tuple(map(tuple, loc["boxes"])) for loc in locs}) == 1  # the page's text area


def test_second_extractor_failure_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(raw: bytes, index: int) -> str:
        raise ValueError("damaged xref")

    monkeypatch.setattr(pdf_recheck, "second_page_text", boom)
    doc = parse_pdf(broken_pdf(), "broken.pdf")
    assert (
        "pypdf could not read the page (damaged xref)" in doc.metadata["text_suspect"][0]["reason"]
    )


# -- the shared corpora (skipped without ../shared) --------------------------------------
def _shared_pdfs() -> list[Path]:
    dirs = [SHARED / "documents" / "pdf", SHARED / "papers"]
    return sorted(p for d in dirs if d.is_dir() for p in d.glob("*.pdf"))


@pytest.mark.slow
@pytest.mark.skipif(not _shared_pdfs(), reason="needs ../shared/data")
def test_shared_pdfs_pass_untouched() -> None:
    import pypdfium2 as pdfium

    worst = 0.0
    for path in _shared_pdfs():
        try:
            pdf = pdfium.PdfDocument(path.read_bytes(), password="")
        except pdfium.PdfiumError:
            continue  # the corpora's deliberately broken / encrypted files
        for page in pdf:
            score = score_text(page.get_textpage().get_text_range())
            assert score.passes, (path.name, score.reason())
            worst = max(worst, score.ratio if score.suspect >= 1 else 0.0)
    assert worst < MAX_RATIO / 2  # the margin the module doc states (2.2 % measured)


def test_add_reports_a_suspect_page_and_keeps_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewise.kb import Home

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "broken.pdf").write_bytes(broken_pdf())
    (corpus / "fine.pdf").write_bytes(broken_pdf(start=0x41))
    with Home.open(tmp_path / "home") as h:
        report = h.kb().add([corpus])
    by_name = {f.path: f for f in report.files}
    assert by_name["broken.pdf"].code == "TEXT_SUSPECT"
    assert by_name["broken.pdf"].status != "failed"  # added, with the warning
    assert "the text of pages 1 looks mis-mapped" in (by_name["broken.pdf"].message or "")
    assert by_name["fine.pdf"].code == "" and by_name["fine.pdf"].status == "added"
