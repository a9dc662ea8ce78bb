"""EPUB (spine + table of contents, chapter locators) and ODT (like DOCX); built in the
test with zipfile / odfpy, so no fixture files are needed."""

from __future__ import annotations

import io
import zipfile

import pytest

from citewise.config import IngestConfig
from citewise.errors import BrokenFile, Encrypted
from citewise.ingest.models import ParsedDocument
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
