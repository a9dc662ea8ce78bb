"""Legacy .doc/.xls/.ppt (issue 36): read through LibreOffice when ``soffice`` is on PATH,
else each fails alone with DEPENDENCY_MISSING naming the package, and the batch goes on;
the conversion stops at the file's parse time, its whole process group killed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest

from citewise.config import IngestConfig, ParseLimits
from citewise.core.locator import locate
from citewise.core.records import ParsedDocument
from citewise.errors import BrokenFile, DependencyMissing, ParseLimitExceeded
from citewise.ingest.formats import format_for
from citewise.ingest.legacy import OLE_MAGIC
from citewise.ingest.parse import parse_document
from tests.conftest import run_cli

FIXTURES = Path(__file__).parent / "fixtures" / "converted"
HAVE_SOFFICE = shutil.which("soffice") is not None
#: an OLE compound-file header and nothing a converter could read
OLE_STUB = OLE_MAGIC + b"\x00" * 504


def _parse(name: str, raw: bytes, limits: ParseLimits | None = None) -> ParsedDocument:
    config = IngestConfig(limits=limits) if limits is not None else IngestConfig()
    doc = parse_document(raw, name=name, kb="kb", doc_path=name, config=config)
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
    return doc


def _no_soffice(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(empty))


def test_the_registry_knows_the_legacy_formats() -> None:
    assert [format_for(f"a{s}").name for s in (".doc", ".xls", ".ppt")] == ["doc", "xls", "ppt"]


@pytest.mark.parametrize(
    ("suffix", "package"),
    [
        (".doc", "libreoffice-writer-nogui"),
        (".xls", "libreoffice-calc-nogui"),
        (".ppt", "libreoffice-impress-nogui"),
    ],
)
def test_without_libreoffice_the_file_fails_naming_the_package(
    suffix: str, package: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _no_soffice(monkeypatch, tmp_path)
    with pytest.raises(DependencyMissing) as err:
        _parse(f"old{suffix}", OLE_STUB)
    assert err.value.code == "DEPENDENCY_MISSING"
    assert f"old{suffix}" in str(err.value) and package in str(err.value)


def test_a_file_that_is_not_an_ole_file_is_broken(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BrokenFile, match="no OLE compound-file header"):
        _parse("renamed.doc", b"just some text, renamed to .doc")


@pytest.mark.subprocess
def test_a_batch_goes_on_past_the_missing_converter_and_exits_1(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "old.xls").write_bytes(OLE_STUB)
    (corpus / "guide.md").write_text("# Guide\n\nPilots board at the buoy.\n", encoding="utf-8")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    old_path = os.environ["PATH"]
    os.environ["PATH"] = str(empty)  # run_cli copies the environment
    try:
        proc = run_cli("add", str(corpus), "--json", home=tmp_path / "home")
    finally:
        os.environ["PATH"] = old_path
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    by_name = {Path(f["path"]).name: f for f in report["files"]}
    assert by_name["guide.md"]["status"] == "added", by_name
    assert by_name["old.xls"]["code"] == "DEPENDENCY_MISSING"
    assert "libreoffice-calc-nogui" in by_name["old.xls"]["message"]


@pytest.mark.subprocess
def test_a_hanging_converter_is_killed_at_the_parse_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A stand-in ``soffice`` that starts a child and hangs: both are gone after the
    file fails with PARSE_LIMIT (the whole process group is killed)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pid_file = tmp_path / "child.pid"
    fake = bin_dir / "soffice"
    fake.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {pid_file}\nwait\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    started = time.monotonic()
    with pytest.raises(ParseLimitExceeded, match="max_seconds"):
        _parse("slow.doc", OLE_STUB, ParseLimits(max_seconds=1.5))
    assert time.monotonic() - started < 10
    child = int(pid_file.read_text().strip())
    time.sleep(0.2)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """Running (a killed child not yet reaped by its new parent is a zombie: not running)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat_line.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.subprocess
def test_a_converter_that_writes_nothing_is_a_broken_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "soffice"
    fake.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    with pytest.raises(BrokenFile, match="LibreOffice could not convert"):
        _parse("odd.ppt", OLE_STUB)


needs_soffice = pytest.mark.skipif(not HAVE_SOFFICE, reason="LibreOffice (soffice) not on PATH")


@needs_soffice
@pytest.mark.subprocess
def test_a_legacy_xls_is_read_as_tables_with_cell_locators() -> None:
    doc = _parse("stanley-cups.xls", (FIXTURES / "stanley-cups.xls").read_bytes())
    assert doc.format == "xls" and doc.metadata["converted_from"] == "xls"
    row = next(n for n in doc.nodes if n.kind == "table_row" and n.text.startswith("Maple Leafs"))
    assert row.attrs["row"]["Location"] == "TOR"
    at = row.char_start + row.text.index("TOR")
    loc = locate(doc.nodes, at, at + 3)
    assert loc is not None and loc["cells"] == "'Stanley Cups'!B5"


@needs_soffice
@pytest.mark.subprocess
def test_a_legacy_doc_and_ppt_keep_paragraph_table_and_slide_locators() -> None:
    doc = _parse("word_tables.doc", (FIXTURES / "word_tables.doc").read_bytes())
    row = next(n for n in doc.nodes if n.kind == "table_row" and "Cell 1.1" in n.text)
    assert row.attrs["row"]["Header 0.1"] == "Cell 1.1" and "table" in row.attrs["locator"]
    deck = _parse("powerpoint_sample.ppt", (FIXTURES / "powerpoint_sample.ppt").read_bytes())
    slides = {
        n.attrs["locator"]["slide"] for n in deck.nodes if "slide" in n.attrs.get("locator", {})
    }
    assert slides == {1, 2, 3}
