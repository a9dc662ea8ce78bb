"""Issue 13, item 9: hostile or careless input gets a clear 400/422 with the error envelope
(never a 500), fails closed, and leaves nothing behind: JSON body cap, long names and ids,
Unicode names, misspelt ``access``, ``keys add`` grants, and upload staging folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citewise.core.access import may_read
from tests._server import running_server
from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("dense_off")


DOC = b"# Pumps\n\nRestart the pump before noon.\n"


def _files(*items: tuple[str, bytes]) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (n, d, "text/markdown")) for n, d in items]


def _err(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, r.text
    message: str = body["error"]["message"]
    return message


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    home = tmp_path_factory.mktemp("input") / "home"
    with running_server(home) as url:
        yield url, home


def _paths(url: str) -> list[str]:
    docs = httpx.get(url + "/kb/default/documents").json()["documents"]
    return sorted(d["path"] for d in docs)


def test_json_bodies_are_capped_apart_from_uploads(server: tuple[str, Path]) -> None:
    url, _ = server
    big = {"query": "pump " * 250_000}  # ~1.25 MB of JSON
    msg = _err(httpx.post(url + "/kb/default/search", json=big), 413, "REQUEST_TOO_LARGE")
    assert "1,048,576-byte limit" in msg
    streamed = httpx.post(
        url + "/kb/default/ask",
        content=iter([b'{"question": "', b"x" * 1_100_000, b'"}']),
        headers={"content-type": "application/json"},
    )
    _err(streamed, 413, "REQUEST_TOO_LARGE")
    # An upload of the same size is judged by the (larger) upload cap, not the JSON one.
    r = httpx.post(url + "/kb/default/documents", files=_files(("big.bin", b"x" * 1_200_000)))
    _err(r, 415, "UNSUPPORTED_FORMAT")
    assert httpx.post(url + "/kb/default/search", json={"query": "pump"}).status_code == 200


def test_long_names_and_ids_are_bad_requests_not_crashes(server: tuple[str, Path]) -> None:
    url, home = server
    for name in ("a" * 300 + ".md", "d/" + "b" * 256 + ".md", "x/" * 600 + "y.md"):
        r = httpx.post(url + "/kb/default/documents", files=_files((name, DOC)))
        assert "too long" in _err(r, 400, "BAD_REQUEST") or "limit" in r.text
    span = "n_0123abcd:" + "9" * 5000 + "-" + "9" * 5001
    msg = _err(httpx.get(url + "/citations/" + span), 400, "BAD_REQUEST")
    assert "Malformed span id" in msg and len(msg) < 600
    _err(httpx.get(url + "/citations/n_" + "a" * 5000), 404, "CITATION_NOT_FOUND")
    assert not list((home / "uploads").iterdir())


def test_unicode_names_are_one_document_and_invisible_characters_refused(
    server: tuple[str, Path],
) -> None:
    url, _ = server
    nfc, nfd = "café.md", unicodedata.normalize("NFD", "café.md")
    assert nfc != nfd
    for name in (nfc, nfd):
        r = httpx.post(url + "/kb/default/documents", files=_files((name, DOC + name.encode())))
        assert r.status_code == 201, r.text
    assert [p for p in _paths(url) if p.startswith("caf")] == [nfc]
    versions = httpx.get(url + f"/kb/default/documents/{nfc}/versions").json()
    assert len(versions) == 2
    for name in ("evil\u202etxt.md", "in\u200bvisible.md", "rtl\u2067x.md", "\ufeffbom.md"):
        r = httpx.post(url + "/kb/default/documents", files=_files((name, DOC)))
        assert "invisible or text-direction" in _err(r, 400, "BAD_REQUEST"), name
    assert not [p for p in _paths(url) if "evil" in p or "visible" in p]


@pytest.mark.subprocess
def test_cli_add_normalises_names_and_refuses_invisible_characters(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / unicodedata.normalize("NFD", "résumé.md")).write_bytes(DOC)
    (folder / "pay\u202egpj.md").write_bytes(DOC)
    proc = run_cli("add", str(folder), "--json", home=tmp_path / "home")
    report = json.loads(proc.stdout)
    by_path = {f["path"]: f for f in report["files"]}
    assert by_path["résumé.md"]["status"] == "added"
    bad = by_path["pay\u202egpj.md"]
    assert bad["status"] == "failed" and bad["code"] == "BAD_FILE_NAME"


FRONTS = [
    "Access: [alice]",
    "access: ''",
    "access: []",
    "access:",
    "ACCESS: alice",
    "access: [' ']",
]


@pytest.mark.parametrize("n", range(len(FRONTS)))
def test_misspelt_or_empty_access_never_makes_a_document_public(
    server: tuple[str, Path], n: int
) -> None:
    url, _ = server
    front, name = FRONTS[n], f"fm{n}.md"
    data = f"---\ntitle: Vault\n{front}\n---\n# Vault\n\nThe vault code is OWLSTONE.\n"
    r = httpx.post(url + "/kb/default/documents", files=_files((name, data.encode())))
    message = _err(r, 422, "BAD_FRONT_MATTER")
    assert "access" in message.lower() and name in message
    assert name not in _paths(url)
    hits = httpx.post(url + "/kb/default/search", json={"query": "OWLSTONE vault"}).json()
    assert "OWLSTONE" not in json.dumps(hits["hits"])


def test_stored_documents_with_a_misspelt_access_key_stay_closed() -> None:
    """Documents stored before ingest refused these read as restricted to nobody."""
    assert may_read({}, None) and may_read({"access": ["a"]}, "a")
    for meta in ({"Access": ["a"]}, {"access": []}, {"access": None}, {"access": ""}):
        assert not may_read(meta, None) and not may_read(meta, "a"), meta
    assert not may_read({"access": ["a"], "ACCESS": []}, "a")


@pytest.mark.subprocess
def test_keys_add_needs_kbs_and_keeps_every_value(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bare = run_cli("keys", "add", "k1", "--principal", "p", home=home)
    assert bare.returncode == 2 and "--kbs" in bare.stderr
    assert not (home / "keys.yaml").exists() or "k1" not in (home / "keys.yaml").read_text()
    run_cli(
        "keys", "add", "k2", "--principal", "p", "--kbs", "a", "--kbs", "b,c", "--kbs", "a",
        home=home, check=True,
    )  # fmt: skip
    listed = json.loads(run_cli("keys", "list", "--json", home=home, check=True).stdout)
    assert listed == [{"name": "k2", "principal": "p", "kbs": ["a", "b", "c"], "role": "admin"}]


@pytest.mark.subprocess
def test_staging_folders_of_a_killed_server_are_removed_at_start(tmp_path: Path) -> None:
    """A process killed (SIGKILL) inside an upload's staging folder leaves it behind; the
    next server start removes it, and keeps folders of processes still running."""
    from citewise.facade.service import Service
    from citewise.kb import Home

    home = tmp_path / "home"
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from citewise.facade.uploads import staging\n"
        "with staging(Path(sys.argv[1])) as d:\n"
        "    (d / 'half.md').write_bytes(b'# half')\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(home)], timeout=60)
    assert proc.returncode == -9
    left = list((home / "uploads").iterdir())
    assert len(left) == 1 and (left[0] / "half.md").exists()
    alive = home / "uploads" / f"{os.getpid()}-{'0' * 16}"
    alive.mkdir()
    with Home.open(home) as h:
        Service(h)
    assert list((home / "uploads").iterdir()) == [alive]
    alive.rmdir()


def test_uploads_leave_no_staging_folder(server: tuple[str, Path]) -> None:
    url, home = server
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    before = {p.name for p in tmp.glob("citewise-upload-*")}
    r = httpx.post(url + "/kb/default/documents", files=_files(("staged.md", DOC)))
    assert r.status_code == 201
    assert list((home / "uploads").iterdir()) == []
    assert {p.name for p in tmp.glob("citewise-upload-*")} == before
