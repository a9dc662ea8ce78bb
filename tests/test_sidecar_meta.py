"""Sidecar metadata (issue 32): ``NAME.ext.meta.yaml`` and a folder's ``.citewise.yaml``
give any format access, tags, edition, status and title; an upload carries the same fields;
access checks read the metadata stored at ingest, never the stored bytes again.

Real homes (SQLite files), real PDF, XLSX, DOCX, PPTX, ODT and EPUB files (built here or
from ``tests/fixtures/documents``) and a real HTTP server on 127.0.0.1 for uploads.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import httpx
import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.core.search import SearchFilters
from citewise.errors import BadMetadata
from citewise.ingest import frontmatter, meta_yaml
from citewise.ingest.meta_yaml import (
    META_FROM,
    glob_matches,
    parse_folder_file,
    parse_sidecar,
    parse_upload_fields,
)
from citewise.kb import Home, KnowledgeBase
from citewise.server.auth import KeyStore
from tests._server import running_server
from tests.test_formats_ebook import _epub
from tests.test_realdocs import tiny_pdf

OFFICE = Path(__file__).parent / "fixtures" / "documents" / "office"
TOKEN = "QUOKKAFENCE"
FIELDS = {
    "access": ["finance"],
    "tags": ["q3", "board"],
    "edition": "2024",
    "status": "draft",
    "title": "Set by the sidecar",
}


@pytest.fixture(autouse=True)
def _dense_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


def pdf_bytes(text: str = f"Quarterly revenue was {TOKEN} million.") -> bytes:
    return tiny_pdf([(720, text), (700, "The board approved the figures.")])


def xlsx_bytes(token: str = TOKEN) -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["Region", "Revenue"])
    ws.append(["North", f"{token} 12"])
    ws.append(["South", "9"])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


#: One small file of every binary and text format but Markdown (which has front matter).
FORMATS: dict[str, bytes] = {
    "r.pdf": pdf_bytes(),
    "r.xlsx": xlsx_bytes(),
    "r.docx": (OFFICE / "word_tables.docx").read_bytes(),
    "r.pptx": (OFFICE / "powerpoint_sample.pptx").read_bytes(),
    "r.odt": (OFFICE / "text_document_01.odt").read_bytes(),
    "r.epub": _epub(),
    "r.html": b"<html><body><h1>Page</h1><p>Board figures.</p></body></html>",
    "r.rst": b"Notes\n=====\n\nBoard figures for the quarter.\n",
    "r.txt": b"Plain board figures.\n",
}


def write(root: Path, files: dict[str, bytes | str]) -> Path:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            p.write_text(data, "utf-8")
        else:
            p.write_bytes(data)
    return root


def sidecar(fields: dict[str, Any]) -> str:
    return yaml.safe_dump(fields)


def user_meta(kb: KnowledgeBase, path: str) -> dict[str, Any]:
    """A document's stored metadata without what the parsers and provenance add."""
    meta = kb.document(path).metadata
    return {k: v for k, v in meta.items() if k not in meta_yaml.RESERVED}


def test_a_sidecar_gives_every_format_access_tags_edition_status_and_title(
    home: Home, tmp_path: Path
) -> None:
    files: dict[str, bytes | str] = dict(FORMATS)
    files.update({f"{name}.meta.yaml": sidecar(FIELDS) for name in FORMATS})
    report = home.kb().add([write(tmp_path / "src", files)])
    assert report.ok, [(f.path, f.message) for f in report.files if f.status == "failed"]
    kb = home.kb()
    assert sorted(d.path for d in kb.documents()) == sorted(FORMATS)  # no sidecar is a doc
    for name in FORMATS:
        doc = kb.document(name)
        assert user_meta(kb, name) == FIELDS, name
        assert doc.title == "Set by the sidecar", name
        assert doc.metadata[META_FROM]["files"] == [f"{name}.meta.yaml"]
    public = [d.path for d in kb.documents() if not d.metadata.get("access")]
    assert public == []


def test_restricted_pdf_and_xlsx_are_searchable_only_by_their_readers(
    home: Home, tmp_path: Path
) -> None:
    src = write(
        tmp_path / "src",
        {
            "q3.pdf": pdf_bytes(),
            "q3.pdf.meta.yaml": "access: [finance]\n",
            "sheet.xlsx": xlsx_bytes(),
            "sheet.xlsx.meta.yaml": "access: finance\n",
            "open.md": "# Open\n\nNothing about revenue here.\n",
        },
    )
    kb = home.kb()
    assert kb.add([src]).ok
    for who, expected in (("finance", {"q3.pdf", "sheet.xlsx"}), ("bob", set()), (None, set())):
        res = kb.search(f"{TOKEN} revenue", filters=SearchFilters(principal=who))
        assert {h.path for h in res.hits} & {"q3.pdf", "sheet.xlsx"} == expected, who


def test_folder_globs_nearest_folder_wins_sidecar_beats_folder_front_matter_beats_all(
    home: Home, tmp_path: Path
) -> None:
    src = write(
        tmp_path / "src",
        {
            ".citewise.yaml": (
                "files:\n"
                "  '**': {tags: [all]}\n"
                "  'confidential/*.pdf': {access: [finance], status: draft}\n"
                "  'confidential/[ac].pdf': {status: final}\n"  # a later entry wins its keys
                "  '**/*.xlsx': {access: [sheets]}\n"
            ),
            "confidential/a.pdf": pdf_bytes(),
            "confidential/deep/b.pdf": pdf_bytes("Deep figures."),
            "confidential/deep/.citewise.yaml": "files:\n  '*.pdf': {access: [legal]}\n",
            "confidential/c.pdf": pdf_bytes("C figures."),
            "confidential/c.pdf.meta.yaml": "access: [ceo]\ntitle: C\n",
            "sheets/s.xlsx": xlsx_bytes(),
            "notes.md": "---\naccess: [author]\n---\n# Notes\n\nBoard notes.\n",
            "notes.md.meta.yaml": "access: [finance]\ntags: [side]\n",
            "open.pdf": pdf_bytes("Open figures."),
        },
    )
    kb = home.kb()
    assert kb.add([src]).ok
    assert user_meta(kb, "confidential/a.pdf") == {
        "tags": ["all"],
        "access": ["finance"],
        "status": "final",
    }
    # the deeper folder's file wins over the root's for the keys it sets
    assert user_meta(kb, "confidential/deep/b.pdf") == {"tags": ["all"], "access": ["legal"]}
    assert user_meta(kb, "confidential/c.pdf") == {
        "tags": ["all"],
        "access": ["ceo"],
        "status": "final",
        "title": "C",
    }
    assert kb.document("confidential/c.pdf").metadata[META_FROM]["files"] == [
        ".citewise.yaml",
        "confidential/c.pdf.meta.yaml",
    ]
    assert user_meta(kb, "sheets/s.xlsx") == {"tags": ["all"], "access": ["sheets"]}
    # front matter beats the sidecar key by key; the sidecar's other keys still apply
    assert user_meta(kb, "notes.md") == {"access": ["author"], "tags": ["side"]}
    assert user_meta(kb, "open.pdf") == {"tags": ["all"]}


def test_a_sidecar_status_and_edition_drive_current_only_search(home: Home, tmp_path: Path) -> None:
    """Edition fields from a sidecar flow where front matter's do: a PDF whose sidecar says
    ``status: superseded`` is left out of a current-only search."""
    text = "Fee schedule: the filing fee is 40 dollars."
    src = write(
        tmp_path / "src",
        {
            "fees-2020.pdf": pdf_bytes(text),
            "fees-2020.pdf.meta.yaml": "edition: '2020'\nstatus: superseded\n",
            "fees-2024.pdf": pdf_bytes(text.replace("40", "55")),
            "fees-2024.pdf.meta.yaml": "edition: '2024'\nstatus: current\n",
        },
    )
    kb = home.kb()
    assert kb.add([src]).ok
    assert kb.document("fees-2020.pdf").metadata["edition"] == "2020"

    def found(current_only: bool) -> set[str]:
        res = kb.search("filing fee", filters=SearchFilters(current_only=current_only))
        return {h.path for h in res.hits}

    assert found(True) == {"fees-2024.pdf"}
    assert found(False) == {"fees-2020.pdf", "fees-2024.pdf"}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("access: [finance\n", "not valid YAML at line"),
        ("access: []\n", "'access' names no principal"),
        ("Access: [finance]\n", "is not 'access'"),
        ("acess: [finance]\n", "looks like a misspelt 'access'"),
        ("pages: 3\n", "may not set 'pages'"),
        ("- finance\n", "must be a mapping"),
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("effective: 2024-02-30\n", "cannot be read"),
    ],
)
def test_a_malformed_sidecar_fails_its_file_alone_naming_the_sidecar(
    home: Home, tmp_path: Path, text: str, says: str
) -> None:
    src = write(
        tmp_path / "src",
        {"bad.pdf": pdf_bytes(), "bad.pdf.meta.yaml": text, "good.xlsx": xlsx_bytes()},
    )
    report = home.kb().add([src])
    by_path = {f.path: f for f in report.files}
    bad = by_path["bad.pdf"]
    assert (bad.status, bad.code) == ("failed", "BAD_METADATA")
    assert bad.message.startswith("bad.pdf.meta.yaml: ") and says in bad.message
    assert str(tmp_path) not in bad.message  # named relative to the folder, not the server
    assert by_path["good.xlsx"].status == "added"
    assert [d.path for d in home.kb().documents()] == ["good.xlsx"]


def test_a_malformed_folder_file_fails_the_files_it_governs_only(
    home: Home, tmp_path: Path
) -> None:
    src = write(
        tmp_path / "src",
        {
            "locked/.citewise.yaml": "access: [finance]\n",  # not under 'files:'
            "locked/a.pdf": pdf_bytes(),
            "free/b.pdf": pdf_bytes("B figures."),
        },
    )
    report = home.kb().add([src])
    by_path = {f.path: f for f in report.files}
    assert by_path["locked/a.pdf"].code == "BAD_METADATA"
    assert "locked/.citewise.yaml: a folder file holds one key, 'files'" in (
        by_path["locked/a.pdf"].message
    )
    assert by_path["free/b.pdf"].status == "added"


def test_an_orphan_sidecar_is_skipped_with_its_reason(home: Home, tmp_path: Path) -> None:
    src = write(tmp_path / "src", {"a.md": "# A\n\nText.\n", "gone.pdf.meta.yaml": "tags: [x]\n"})
    report = home.kb().add([src])
    orphan = next(f for f in report.files if f.path == "gone.pdf.meta.yaml")
    assert (orphan.status, orphan.code) == ("skipped", "ORPHAN_METADATA")
    assert report.ok


def test_a_symlinked_or_special_sidecar_is_refused(home: Home, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"meta.yaml": "tags: [x]\n"})
    src = write(tmp_path / "src", {"a.pdf": pdf_bytes(), "b.pdf": pdf_bytes("B figures.")})
    (src / "a.pdf.meta.yaml").symlink_to(outside / "meta.yaml")
    os.mkfifo(src / "b.pdf.meta.yaml")  # would block a plain open
    report = home.kb().add([src])
    by_path = {f.path: f for f in report.files}
    assert "is a symbolic link" in by_path["a.pdf"].message
    assert "is not a regular file" in by_path["b.pdf"].message
    assert home.kb().documents() == []


def test_a_sidecar_change_syncs_as_a_new_version_of_the_same_content(
    home: Home, tmp_path: Path
) -> None:
    src = write(tmp_path / "src", {"q3.pdf": pdf_bytes(), "q3.pdf.meta.yaml": "tags: [q3]\n"})
    kb = home.kb()
    assert kb.add([src]).ok
    nodes_v1 = [n.id for n in kb.nodes("q3.pdf")]
    assert [f.status for f in kb.sync(src).files] == ["unchanged"]  # no parse, no version

    (src / "q3.pdf.meta.yaml").write_text("tags: [q3]\naccess: [finance]\n", "utf-8")
    assert [(f.path, f.status) for f in kb.sync(src).files] == [("q3.pdf", "changed")]
    assert [v.version_id for v in kb.versions("q3.pdf")] == [2, 1]
    assert kb.document("q3.pdf").metadata["access"] == ["finance"]
    assert [n.id for n in kb.nodes("q3.pdf")] == nodes_v1  # citations stay valid
    assert kb.resolve(nodes_v1[1]).path == "q3.pdf"
    hits = kb.search(TOKEN, filters=SearchFilters(principal="bob")).hits
    assert [h.path for h in hits] == []

    (src / "q3.pdf.meta.yaml").unlink()  # back to public: also a change
    assert [f.status for f in kb.sync(src).files] == ["changed"]
    assert "access" not in kb.document("q3.pdf").metadata
    assert [h.path for h in kb.search(TOKEN, filters=SearchFilters(principal="bob")).hits] == [
        "q3.pdf"
    ]
    # add sees it too: a folder file added later restricts the file on the next add
    write(src, {".citewise.yaml": "files:\n  '*.pdf': {access: [legal]}\n"})
    assert [f.status for f in kb.add([src]).files] == ["changed"]
    assert kb.document("q3.pdf").metadata["access"] == ["legal"]


def test_watch_follows_sidecars_and_folder_files_but_no_other_hidden_path(
    tmp_path: Path,
) -> None:
    from citewise.sync.watch import _relevant

    root, home = tmp_path / "src", tmp_path / "home"
    keep = _relevant(root, home)
    assert keep(None, str(root / "a" / ".citewise.yaml"))
    assert keep(None, str(root / "a" / "q3.pdf.meta.yaml"))
    assert not keep(None, str(root / ".git" / ".citewise.yaml"))
    assert not keep(None, str(root / "a" / ".notes.yaml"))


def test_a_revert_restores_the_version_with_its_metadata(home: Home, tmp_path: Path) -> None:
    src = write(tmp_path / "src", {"q3.pdf": pdf_bytes(), "q3.pdf.meta.yaml": "access: [a]\n"})
    kb = home.kb()
    kb.add([src])
    (src / "q3.pdf.meta.yaml").write_text("access: [b]\n", "utf-8")
    kb.add([src])
    assert kb.revert("q3.pdf", 1).action == "reverted"
    assert kb.document("q3.pdf").metadata["access"] == ["a"]


# -- uploads --------------------------------------------------------------------------
def _keys(home_dir: Path) -> dict[str, str]:
    Home.open(home_dir).close()
    keys = KeyStore(home_dir)
    return {p: keys.add(p, p, ["default"]) for p in ("finance", "bob")}


def test_an_upload_carries_metadata_fields_validated_as_a_sidecar(tmp_path: Path) -> None:
    home_dir = tmp_path / "home"
    keys = _keys(home_dir)
    with running_server(home_dir) as url:
        fin = httpx.Client(base_url=url, headers={"X-API-Key": keys["finance"]}, timeout=60)
        bob = httpx.Client(base_url=url, headers={"X-API-Key": keys["bob"]}, timeout=60)
        files = [("files", ("q3.pdf", pdf_bytes())), ("files", ("s.xlsx", xlsx_bytes()))]
        meta = {"access": ["finance"], "tags": "q3, board", "title": "Q3"}
        r = fin.post("/kb/default/documents", files=files, data={"metadata": json.dumps(meta)})
        assert r.status_code == 201, r.text
        docs = fin.get("/kb/default/documents").json()["documents"]
        assert {d["path"]: d["metadata"]["access"] for d in docs} == {
            "q3.pdf": ["finance"],
            "s.xlsx": ["finance"],
        }
        assert {tuple(d["metadata"]["tags"]) for d in docs} == {("q3", "board")}
        assert docs[0]["metadata"][META_FROM]["files"] == ["upload"]
        assert bob.get("/kb/default/documents").json()["total"] == 0
        for bad, says in (
            ('{"access": []}', "'access' names no principal"),
            ("[1, 2]", "must be a mapping"),
            ('{"access": ["x"', "not valid YAML"),
            ('{"Access": ["x"]}', "is not 'access'"),
        ):
            r = fin.post(
                "/kb/default/documents",
                files=[("files", ("new.pdf", pdf_bytes("New.")))],
                data={"metadata": bad},
            )
            assert r.status_code == 400 and r.json()["error"]["code"] == "BAD_METADATA", r.text
            assert says in r.json()["error"]["message"]
        assert fin.get("/kb/default/documents").json()["total"] == 2  # nothing written


def test_listing_after_an_upload_never_parses_stored_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: access checks read the metadata stored at ingest. Every parser entry point
    raises once the uploads are in; listings, histories and documents still answer."""
    import citewise.ingest.parse as parse_module
    import citewise.ingest.pdf as pdf_module
    import citewise.ingest.xlsx as xlsx_module
    import citewise.kb as kb_module

    home_dir = tmp_path / "home"
    keys = _keys(home_dir)
    with running_server(home_dir) as url:
        fin = httpx.Client(base_url=url, headers={"X-API-Key": keys["finance"]}, timeout=60)
        bob = httpx.Client(base_url=url, headers={"X-API-Key": keys["bob"]}, timeout=60)
        meta = json.dumps({"access": ["finance"]})
        for n in range(2):  # two versions each: histories are numbered per reader
            files = [
                ("files", ("q3.pdf", pdf_bytes(f"Rev {n}."))),
                ("files", ("s.xlsx", xlsx_bytes(f"R{n}"))),
            ]
            assert fin.post(
                "/kb/default/documents", files=files, data={"metadata": meta}
            ).is_success
        calls: list[str] = []

        def refuse(*args: Any, **kw: Any) -> Any:
            calls.append(str(kw.get("name") or args[:1]))
            raise AssertionError("a read parsed a stored document")

        for module, name in (
            (parse_module, "parse_document"),
            (kb_module, "parse_document"),
            (pdf_module, "parse_pdf"),
            (xlsx_module, "parse_xlsx"),
            (frontmatter, "split_front_matter"),
            (parse_module, "split_front_matter"),
        ):
            monkeypatch.setattr(module, name, refuse)
        # the uploads (writes) cleared every cache: these are the next reads after them
        for client, total in ((fin, 2), (bob, 0)):
            assert client.get("/kb/default/documents").json()["total"] == total
            assert client.get("/kb/default").status_code == 200
            versions = client.get("/kb/default/documents/q3.pdf/versions")
            assert versions.status_code == (200 if total else 404)
            doc = client.get("/kb/default/documents/s.xlsx")
            assert doc.status_code == (200 if total else 404)
            client.post("/kb/default/search", json={"query": "Rev"}).raise_for_status()
        assert calls == []


@pytest.mark.subprocess
def test_mcp_add_source_takes_the_same_fields(tmp_path: Path) -> None:
    from tests.test_mcp import _data, _run

    home = tmp_path / "home"
    fields = {"access": ["finance"], "tags": ["q3"]}

    async def body(s: Any) -> dict[str, Any]:
        note = {"name": "n.md", "content": "# N\n\nNotes.\n", "metadata": fields}
        bad = {"name": "m.md", "content": "# M\n\nMore.\n", "metadata": {"access": []}}
        return {
            "add": _data(await s.call_tool("add_source", note)),
            "bad": await s.call_tool("add_source", bad),
        }

    out = _run(home, None, body)
    assert out["add"]["ok"]
    assert out["bad"].is_error and "BAD_METADATA" in out["bad"].content[0].text
    with Home.open(home) as h:
        kb = h.kb()
        assert [d.path for d in kb.documents()] == ["n.md"]
        assert user_meta(kb, "n.md") == fields


# -- the parser boundary ---------------------------------------------------------------
def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    lists: st.SearchStrategy[Any] = st.lists(inner, max_size=4)
    return lists | st.dictionaries(st.text(max_size=8), inner, max_size=4)


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    _nested,
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_arbitrary_text_is_metadata_or_a_clear_error(text: str) -> None:
    for parse in (parse_sidecar, parse_folder_file):
        try:
            parse(text, "x.pdf.meta.yaml")
        except BadMetadata as exc:
            assert str(exc).startswith("x.pdf.meta.yaml")
            assert exc.hint


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=10), yaml_values, max_size=6))
def test_arbitrary_yaml_mappings_are_metadata_or_a_clear_error(value: dict[str, Any]) -> None:
    text = yaml.safe_dump(value)
    try:
        out = parse_sidecar(text, "s.meta.yaml")
    except BadMetadata as exc:
        assert exc.hint and str(exc).startswith("s.meta.yaml")
        return
    json.dumps(out)  # what the store keeps
    assert "access" not in out or out["access"]  # never "restricted to an empty list"
    folder = yaml.safe_dump({"files": {"**": value}})
    assert parse_folder_file(folder, ".citewise.yaml") == (("**", out),)
    assert {k: v for k, v in parse_upload_fields(text).items() if k != META_FROM} == out


@given(st.lists(st.from_regex(r"[a-z0-9._-]{1,6}", fullmatch=True), min_size=1, max_size=6))
def test_globs_match_their_own_path_and_double_star_matches_all(parts: list[str]) -> None:
    rel = "/".join(parts)
    assert glob_matches(rel, rel) and glob_matches("**", rel)
    assert glob_matches("**/" + parts[-1], rel)
    assert not glob_matches("*", rel) or len(parts) == 1
    assert glob_matches("/".join(["**"] * 40 + [parts[-1]]), rel)  # no blow-up


@pytest.mark.parametrize("key", ["acess", "accesss", "acsess", "acces", "ACESS"])
def test_a_key_one_typo_from_access_is_refused(key: str) -> None:
    with pytest.raises(BadMetadata, match="misspelt 'access'"):
        parse_sidecar(f"{key}: [finance]\n", "a.meta.yaml")


@pytest.mark.parametrize("key", ["accessed", "success", "process", "accent"])
def test_other_words_near_access_are_ordinary_keys(key: str) -> None:
    assert parse_sidecar(f"{key}: yes\n", "a.meta.yaml") == {key: True}


def test_reserved_keys_cover_what_every_parser_writes() -> None:
    """A sidecar may not overwrite a parser's locator maps: every key a format's parser
    puts in the metadata is reserved (regulation XML's edition keys are the user's)."""
    from citewise.config import IngestConfig
    from citewise.ingest.parse import parse_document

    for name, raw in FORMATS.items():
        doc = parse_document(raw, name=name, kb="k", doc_path=name, config=IngestConfig())
        assert set(doc.metadata) <= meta_yaml.PARSER_KEYS, name
