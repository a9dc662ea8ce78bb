"""Every kind of bad input gets a per-file error naming the file; other files continue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.config import IngestConfig, Settings
from citewise.kb import Home
from tests.conftest import run_cli

GOOD = "# Good\n\nA good paragraph about sync cursors.\n"


def _corpus(root: Path) -> dict[str, str]:
    """Write one good file and one of each bad kind; return expected error code per path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    (root / "latin1.md").write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e\n".encode("latin-1"))
    (root / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    (root / "empty.md").write_bytes(b"")
    (root / "blank.txt").write_text("   \n\n", encoding="utf-8")
    (root / "front.md").write_text("---\ntitle: [unclosed\n---\n\nBody text.\n", encoding="utf-8")
    (root / "big.md").write_text("# Big\n\n" + "word " * 400 + "\n", encoding="utf-8")
    (root / "dangling.md").symlink_to(root / "does-not-exist.md")
    outside = root.parent / "outside.md"
    outside.write_text(GOOD, encoding="utf-8")
    (root / "escape.md").symlink_to(outside)
    return {
        "latin1.md": "NOT_TEXT",
        "binary.md": "NOT_TEXT",
        "empty.md": "EMPTY_FILE",
        "blank.txt": "EMPTY_FILE",
        "front.md": "BAD_FRONT_MATTER",
        "big.md": "FILE_TOO_LARGE",
        "dangling.md": "UNREADABLE_FILE",
        "escape.md": "OUTSIDE_ROOT",
    }


def _small_limit_home(path: Path) -> Home:
    base = Home.open(path)
    settings = Settings(home=base.settings.home, ingest=IngestConfig(max_file_bytes=1024))
    return Home(settings, base.store)


@pytest.mark.model
def test_each_bad_file_fails_alone_and_names_itself(tmp_path: Path) -> None:
    expected = _corpus(tmp_path / "corpus")
    with _small_limit_home(tmp_path / "home") as home:
        report = home.kb().add([tmp_path / "corpus"])
        by_path = {f.path: f for f in report.files}
        assert by_path["good.md"].status == "added"
        for path, code in expected.items():
            result = by_path[path]
            assert result.status == "failed", path
            assert result.code == code, (path, result)
            assert path in result.message
        assert not report.ok
        # Nothing half-written: only the good file is in the store.
        assert [d.path for d in home.kb().documents()] == ["good.md"]
        assert home.kb().stats()["documents"] == 1


@pytest.mark.model
def test_utf16_and_bom_are_accepted(home: Home, tmp_path: Path) -> None:
    root = tmp_path / "enc"
    root.mkdir()
    (root / "bom.md").write_bytes(b"\xef\xbb\xbf" + GOOD.encode("utf-8"))
    (root / "le.md").write_bytes(b"\xff\xfe" + GOOD.encode("utf-16-le"))
    (root / "be.md").write_bytes(b"\xfe\xff" + GOOD.encode("utf-16-be"))
    report = home.kb().add([root])
    assert report.ok, report.files
    assert report.count("added") == 3


@pytest.mark.model
def test_unsupported_format_named_file_fails_but_is_skipped_in_folders(
    home: Home, tmp_path: Path
) -> None:
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "doc.md").write_text(GOOD, encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG\x00")
    report = home.kb().add([root])
    assert report.ok
    assert {f.path: f.status for f in report.files} == {"doc.md": "added", "image.png": "skipped"}
    direct = home.kb().add([root / "image.png"])
    assert not direct.ok
    assert direct.files[0].code == "UNSUPPORTED_FORMAT"


@pytest.mark.subprocess
def test_cli_reports_failures_and_exits_nonzero(tmp_path: Path) -> None:
    _corpus(tmp_path / "corpus")
    proc = run_cli("add", str(tmp_path / "corpus"), "--json", home=tmp_path / "home")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    statuses = {f["path"]: f["status"] for f in report["files"]}
    assert statuses["good.md"] == "added"
    assert statuses["binary.md"] == "failed"
    plain = run_cli("add", str(tmp_path / "corpus"), home=tmp_path / "home")
    assert plain.returncode == 1
    assert "binary.md" in plain.stderr
    assert "2 unchanged" in plain.stdout  # good.md and big.md (no size limit here)


@pytest.mark.subprocess
def test_missing_path_and_unknown_kb_are_clear(tmp_path: Path) -> None:
    proc = run_cli("add", str(tmp_path / "nope"), home=tmp_path / "home")
    assert proc.returncode == 1
    assert "no such file or folder" in proc.stderr
    proc = run_cli("docs", "list", "--kb", "missing", home=tmp_path / "home")
    assert proc.returncode != 0
    assert "BASE_NOT_FOUND" in proc.stderr
    assert "Traceback" not in proc.stderr
