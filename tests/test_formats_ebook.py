"""EPUB (spine + table of contents, chapter locators) and ODT (like DOCX); built in the
test with zipfile / odfpy, so no fixture files are needed."""

from __future__ import annotations

import io
import zipfile

import pytest

from citewise.config import IngestConfig
from citewise.core.records import ParsedDocument
from citewise.errors import BrokenFile, Encrypted
from citewise.ingest.parse import parse_document

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf"
 media-type="application/oebps-package+xml"/></rootfiles></container>"""
OPF = """<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Harbor Tales</dc:title></metadata>
<manifest>
 <item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/>
 <item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/>
 <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
</manifest>
<spine toc="ncx"><itemref idref="c2"/><itemref idref="c1"/></spine>
</package>"""
NCX = """<?xml version="1.0"?>
<!DOCTYPE ncx PUBLIC "-//NISO//DTD ncx 2005-1//EN" "http://www.daisy.org/z3986/2005/ncx-2005-1.dtd">
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>
<navPoint id="n1"><navLabel><text>The Pilot</text></navLabel>
 <content src="text/two.xhtml"/></navPoint>
<navPoint id="n2"><navLabel><text>The Lighthouse</text></navLabel>
 <content src="text/one.xhtml#top"/></navPoint>
</navMap></ncx>"""


def _xhtml(body: str) -> str:
    return f'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>{body}</body></html>\n'


def _epub(container: str = CONTAINER, extra: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", container)
        z.writestr("OEBPS/content.opf", OPF)
        z.writestr("OEBPS/toc.ncx", NCX)
        z.writestr(
            "OEBPS/text/one.xhtml", _xhtml("<h1>Light</h1><p>The lamp turns every ten seconds.</p>")
        )
        z.writestr("OEBPS/text/two.xhtml", _xhtml("<p>Pilots board at the quarantine buoy.</p>"))
        for path, data in (extra or {}).items():
            z.writestr(path, data)
    return buf.getvalue()


def _parse(name: str, raw: bytes) -> ParsedDocument:
    doc = parse_document(raw, name=name, kb="kb", doc_path=name, config=IngestConfig())
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
    return doc


def test_epub_chapters_follow_the_spine_with_toc_titles_and_locators() -> None:
    doc = _parse("tales.epub", _epub())
    assert doc.format == "epub" and doc.title == "Harbor Tales"
    chapters = [n for n in doc.nodes if n.kind == "section" and n.attrs.get("locator")]
    assert [(n.heading_path, n.attrs["locator"]) for n in chapters] == [
        (("The Pilot",), {"chapter": "text/two.xhtml", "spine_index": 0}),
        (("The Lighthouse",), {"chapter": "text/one.xhtml", "spine_index": 1}),
    ]
    lamp = next(n for n in doc.nodes if n.search_text == "The lamp turns every ten seconds.")
    assert lamp.text == "<p>The lamp turns every ten seconds.</p>"
    assert lamp.attrs["locator"] == {"chapter": "text/one.xhtml", "spine_index": 1}
    assert lamp.heading_path == ("The Lighthouse", "Light")


def test_epub_bad_and_encrypted_books_fail_with_their_error() -> None:
    with pytest.raises(BrokenFile, match="not a readable EPUB"):
        _parse("x.epub", b"not a zip")
    xxe = CONTAINER.replace(
        '<?xml version="1.0"?>',
        '<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    ).replace("OEBPS/content.opf", "&x;")
    with pytest.raises(BrokenFile, match="not well-formed") as err:
        _parse("xxe.epub", _epub(xxe))  # the entity is refused, never expanded
    assert "root:" not in str(err.value)
    drm = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        '<enc:CipherData><enc:CipherReference URI="OEBPS/text/one.xhtml"/></enc:CipherData>'
        "</enc:EncryptedData></encryption>"
    )
    with pytest.raises(Encrypted, match="DRM"):
        _parse("drm.epub", _epub(extra={"META-INF/encryption.xml": drm}))


ODT_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
)
ODT_BODY = """<text:h text:outline-level="1">Harbor rules</text:h>
<text:p>Pilots board at the buoy.<text:note text:note-class="footnote">
<text:note-citation>1</text:note-citation><text:note-body><text:p>Buoy Q1, red light.</text:p>
</text:note-body></text:note> Then they call the tower.</text:p>
<text:list><text:list-item><text:p>Keep two bow lines.</text:p></text:list-item></text:list>
<table:table><table:table-header-rows><table:table-row>
<table:table-cell><text:p>Berth</text:p></table:table-cell>
<table:table-cell table:number-columns-spanned="2"><text:p>Depth</text:p></table:table-cell>
<table:covered-table-cell/></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell><text:p>B4</text:p></table:table-cell>
<table:table-cell><text:p>12 m</text:p></table:table-cell>
<table:table-cell><text:p>low tide</text:p></table:table-cell></table:table-row>
</table:table>"""


def _odt(body: str = ODT_BODY, manifest: str = "<manifest/>") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("META-INF/manifest.xml", manifest)
        z.writestr(
            "content.xml",
            f'<?xml version="1.0"?><office:document-content {ODT_NS}><office:body>'
            f"<office:text>{body}</office:text></office:body></office:document-content>",
        )
    return buf.getvalue()


def test_odt_headings_paragraphs_lists_tables_and_footnotes() -> None:
    doc = _parse("rules.odt", _odt())
    assert doc.format == "odt" and doc.title == "Harbor rules"
    para = next(n for n in doc.nodes if n.text.startswith("Pilots"))
    assert para.text == "Pilots board at the buoy. Then they call the tower."
    assert para.attrs["locator"] == {"paragraph": 1} and para.heading_path == ("Harbor rules",)
    note = next(n for n in doc.nodes if n.attrs.get("note") == "footnote")
    assert note.text == "[footnote 1] Buoy Q1, red light."
    assert note.attrs["locator"] == {"paragraph": 1, "footnote": "1"}
    item = next(n for n in doc.nodes if n.kind == "list_item")
    assert item.text == "Keep two bow lines." and item.attrs["locator"] == {"paragraph": 2}
    (row,) = [n for n in doc.nodes if n.kind == "table_row"]
    assert row.attrs["row"] == {"Berth": "B4", "Depth": "12 m", "Depth (3)": "low tide"}
    assert row.attrs["locator"] == {"table": 0, "row": 1}


def test_odt_real_file_and_bad_files() -> None:
    from pathlib import Path

    raw = (Path(__file__).parent / "fixtures/documents/office/text_document_01.odt").read_bytes()
    doc = _parse("t.odt", raw)
    items = [n for n in doc.nodes if n.kind == "list_item"]
    assert items[0].text == "numbered list 1"
    assert items[0].heading_path == ("heading level 1.0", "Heading level 2: A")
    assert isinstance(items[0].attrs["locator"]["paragraph"], int)
    locked = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/>'
        "</manifest:file-entry></manifest:manifest>"
    )
    with pytest.raises(Encrypted, match="password"):
        _parse("locked.odt", _odt(manifest=locked))
    with pytest.raises(BrokenFile, match="not a readable ODT"):
        _parse("x.odt", b"garbage")
