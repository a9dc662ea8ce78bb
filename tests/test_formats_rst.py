"""reStructuredText: sections, lists, literal/code blocks, directives and roles, with exact
source offsets; and the folder policy (no extensionless files, no theme templates, an empty
folder is an error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import IngestConfig
from citewise.core.records import ParsedDocument
from citewise.ingest.parse import parse_document
from citewise.ingest.walker import SourceFile, WalkProblem, walk
from citewise.kb import Home

RST = """\
.. _guide:

=============
Harbor Guide
=============

Pilots board at the :ref:`quarantine buoy <buoy>` and call ``VHF 12``
before entering.

Mooring
-------

* Use two bow lines
  in a gale.
* Check the :class:`~harbor.Fender` pads.

.. note::

   The tide gauge is read at 06:00.

.. code-block:: python

   moor(lines=2)

The log format is::

    LOG 06:12 tanker inbound

.. toctree::
   :maxdepth: 2

   secret/hidden-page

.. warning:: Never moor at the fuel dock overnight.
"""


def _parse(text: str) -> ParsedDocument:
    return parse_document(
        text.encode(), name="g.rst", kb="kb", doc_path="g.rst", config=IngestConfig()
    )


def test_rst_blocks_have_exact_source_ranges_and_clean_search_text() -> None:
    doc = _parse(RST)
    assert doc.format == "rst" and doc.title == "Harbor Guide"
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
        assert n.line_start == doc.text.count("\n", 0, n.char_start) + 1
    blocks = [(n.kind, n.heading_path, n.text, n.search_text) for n in doc.nodes]
    para = next(b for b in blocks if b[0] == "paragraph")
    assert para[2] == (
        "Pilots board at the :ref:`quarantine buoy <buoy>` and call ``VHF 12``\nbefore entering."
    )
    assert para[3] == "Pilots board at the quarantine buoy and call VHF 12 before entering."
    assert para[1] == ("Harbor Guide",)
    items = [b for b in blocks if b[0] == "list_item"]
    assert [b[2] for b in items] == [
        "* Use two bow lines\n  in a gale.",
        "* Check the :class:`~harbor.Fender` pads.",
    ]
    assert items[1][3] == "Check the harbor.Fender pads."
    assert items[0][1] == ("Harbor Guide", "Mooring")
    notes = [n for n in doc.nodes if n.kind == "blockquote"]
    assert [n.text for n in notes] == [
        ".. note::\n\n   The tide gauge is read at 06:00.",
        ".. warning:: Never moor at the fuel dock overnight.",
    ]
    assert notes[0].search_text == "Note: The tide gauge is read at 06:00."
    assert notes[1].attrs["directive"] == "warning"
    code = [n for n in doc.nodes if n.kind == "code"]
    assert [n.text for n in code] == [
        ".. code-block:: python\n\n   moor(lines=2)",
        "    LOG 06:12 tanker inbound",
    ]
    assert code[0].attrs["language"] == "python"
    sections = [n for n in doc.nodes if n.kind == "section"]
    assert sections[0].text.startswith("=============\nHarbor Guide\n=============")
    assert sections[1].text.startswith("Mooring\n-------\n")
    assert not any("hidden-page" in n.search_text for n in doc.nodes)  # toctree dropped


def test_rst_corpus_folder_ingests_documents_not_build_plumbing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    (docs / "_themes" / "flask").mkdir(parents=True)
    (docs / "_templates").mkdir()
    (docs / "user").mkdir()
    (docs / "index.rst").write_text(RST, "utf-8")
    (docs / "user" / "install.rst").write_text("Install\n=======\n\nRun pip.\n", "utf-8")
    (docs / "Makefile").write_text("html:\n\tsphinx-build . _build\n", "utf-8")
    (docs / "LICENSE").write_text("Copyright the authors.\n", "utf-8")
    (docs / "_themes" / "flask" / "layout.html").write_text("<p>{{ body }}</p>", "utf-8")
    (docs / "_templates" / "sidebar.html").write_text("<p>{{ toc }}</p>", "utf-8")
    found = {f.rel_path: f for f in walk(docs)}
    taken = sorted(r for r, f in found.items() if isinstance(f, SourceFile))
    assert taken == ["index.rst", "user/install.rst"]
    assert isinstance(found["Makefile"], WalkProblem) and not found["Makefile"].fatal
    # a file named directly is still taken
    (direct,) = walk(docs / "LICENSE")
    assert isinstance(direct, SourceFile)

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        report = kb.add([docs])
        assert report.ok
        assert {d.path for d in kb.documents()} == {"index.rst", "user/install.rst"}
        hit = kb.search("fuel dock overnight", mode="lexical").hits[0]
        assert hit.path == "index.rst"
        assert hit.excerpt.endswith(".. warning:: Never moor at the fuel dock overnight.")
        assert h.resolve(hit.citation_id).text == hit.excerpt


def test_folder_without_documents_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "site"
    empty.mkdir()
    (empty / "CNAME").write_text("docs.example.org\n", "utf-8")
    (empty / "style.css").write_text("p {}\n", "utf-8")
    problems = list(walk(empty))
    last = problems[-1]
    assert isinstance(last, WalkProblem) and last.code == "NO_DOCUMENTS" and last.fatal
    assert str(empty) in last.message and ".rst" in last.message and ".md" in last.message


NESTED = """\
Changes
=======

* The ``config`` parameter has been removed. Verbosity is handled by
  configuring logging.

  ::

      import logging
      logging.basicConfig(level=logging.DEBUG)

* Hooks were removed.

`Server-Name-Indication`_, or SNI, is an extension to SSL where the
client tells the server what hostname it is contacting.

Available hooks:

``response``:
    The response generated from a Request.
"""


def test_no_rst_content_is_left_out_of_the_leaf_nodes() -> None:
    """A literal block nested in a list item after its own ``::`` line belongs to the
    item; a paragraph opening with a link reference and a comma, and a definition, are
    nodes. Before, the code, the SNI paragraph and the definition were in no leaf node
    (not searchable, not citable on their own)."""
    doc = _parse(NESTED)
    leaves = [n for n in doc.nodes if n.kind not in ("document", "section")]
    for n in leaves:
        assert doc.text[n.char_start : n.char_end] == n.text
    item = next(n for n in leaves if n.text.startswith("* The ``config``"))
    assert item.text.rstrip().endswith("logging.basicConfig(level=logging.DEBUG)")
    assert any(n.text.startswith("`Server-Name-Indication`_, or SNI") for n in leaves)
    assert any("The response generated from a Request." in n.text for n in leaves)
    covered = {line for n in leaves for line in range(n.line_start, n.line_end + 1)}
    lines = NESTED.splitlines()
    content = [
        i + 1
        for i, line in enumerate(lines)
        if line.strip() and line.strip() not in ("::", "=======") and i + 1 != 1
    ]
    assert [i for i in content if i not in covered] == []
