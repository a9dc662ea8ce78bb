"""Every non-PDF file of the shared document set either ingests (exact excerpts, a locator
on every located node) or fails with its named error; and the reST documentation folder
ingests its pages, not its Makefile. Skipped cleanly without ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import IngestConfig
from citewise.errors import IngestError
from citewise.ingest.parse import parse_document
from citewise.ingest.walker import SourceFile, walk

DATA = Path("/work/shared/data")
DOCUMENTS = DATA / "documents"
#: Files expected to fail, with their error code (none of the non-PDF set today).
EXPECTED_ERRORS: dict[str, str] = {}
#: Which locator key each format puts on its content nodes.
LOCATOR_KEY = {
    "docx": "paragraph",
    "xlsx": "sheet",
    "pptx": "slide",
    "epub": "chapter",
    "odt": "paragraph",
}

pytestmark = pytest.mark.slow


def _files() -> list[Path]:
    if not DOCUMENTS.is_dir():
        return []
    return sorted(
        p
        for p in DOCUMENTS.rglob("*")
        if p.is_file() and p.suffix.lower() in {".docx", ".xlsx", ".pptx", ".epub", ".odt"}
    )


@pytest.mark.skipif(not DOCUMENTS.is_dir(), reason="shared document set not present")
@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_shared_document_ingests_or_fails_with_its_named_error(path: Path) -> None:
    raw = path.read_bytes()
    try:
        doc = parse_document(
            raw, name=path.name, kb="kb", doc_path=path.name, config=IngestConfig()
        )
    except IngestError as exc:
        assert EXPECTED_ERRORS.get(path.name) == exc.code, str(exc)
        return
    assert path.name not in EXPECTED_ERRORS
    key = LOCATOR_KEY[doc.format]
    leaves = [n for n in doc.nodes if n.kind not in ("document", "section")]
    assert leaves
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
    located = [n for n in leaves if key in n.attrs.get("locator", {})]
    # table nodes of DOCX/ODT carry a table locator instead of a paragraph one
    assert (
        len(located) + sum(1 for n in leaves if "table" in n.attrs.get("locator", {}))
        >= len(leaves) * 0.99
    )


@pytest.mark.skipif(not (DATA / "docs-corpora/requests").is_dir(), reason="no shared data")
def test_requests_rst_folder_ingests_its_pages() -> None:
    root = DATA / "docs-corpora/requests"
    taken = [f.rel_path for f in walk(root) if isinstance(f, SourceFile)]
    assert "docs/user/quickstart.rst" in taken and "docs/api.rst" in taken
    assert not any(p.endswith(("Makefile", "LICENSE")) or "/_templates/" in p for p in taken)
    raw = (root / "docs/user/quickstart.rst").read_bytes()
    doc = parse_document(raw, name="q.rst", kb="kb", doc_path="q.rst", config=IngestConfig())
    assert doc.title == "Quickstart"
    assert sum(1 for n in doc.nodes if n.kind == "section") >= 10
    assert sum(1 for n in doc.nodes if n.kind == "code") >= 20
