"""EPUB -> extracted text + :class:`RawNode` tree, with zipfile and ``ingest/html.py``.

The package document (found through ``META-INF/container.xml``) gives the spine; each
spine document (XHTML) is parsed by the HTML parser the ``.html`` format uses, so a
node's text is its exact XHTML source, markup included, as for HTML files. The extracted
text is the spine documents' sources in spine order, joined by a blank line. Every
chapter is a section titled from the table of contents (EPUB 3 ``nav`` or EPUB 2 NCX),
else from its first heading or its file name; every node of it carries
``locator = {"chapter": href, "spine_index": i}`` (0-based). A chapter the spine lists
again is kept once, at its first entry (a spine repeating one chapter thousands of times
would otherwise re-read and re-parse it each time); the spine may hold at most
``max_spine_items`` entries, and the package is size-checked first (``zipbudget``).

XML parts (container, package, NCX) are read with defusedxml (no entity expansion, no
external resources). A book whose content documents are encrypted (DRM, listed in
``META-INF/encryption.xml``) is ``ENCRYPTED``.
"""

from __future__ import annotations

import posixpath
import zipfile
from typing import Any
from urllib.parse import unquote
from xml.etree.ElementTree import Element

from citewise.config import ParseLimits
from citewise.errors import BrokenFile, EmptyFile, Encrypted, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.html import parse_html
from citewise.ingest.limits import ParseBudget, limit_error
from citewise.ingest.office import BLOCK_SEP, broken, parse_xml_part
from citewise.ingest.tree import RawNode, collapse_ws
from citewise.ingest.zipbudget import open_package

_CONTENT = ("application/xhtml+xml", "text/html")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xml(z: zipfile.ZipFile, path: str, name: str) -> Element:
    try:
        root = parse_xml_part(z.read(path))
    except KeyError:
        root = None
    if root is None:
        raise BrokenFile(
            f"{name}: the EPUB part {path!r} is missing or not well-formed XML.",
            hint="Check the book opens in an e-reader, re-export it, add it again.",
        )
    return root


def _toc_labels(
    z: zipfile.ZipFile, base: str, items: dict[str, dict[str, str]], spine_toc: str | None
) -> dict[str, str]:
    """Chapter file -> its first table-of-contents label."""
    labels: dict[str, str] = {}

    def add(href: str, label: str, rel_to: str) -> None:
        target = posixpath.normpath(
            posixpath.join(posixpath.dirname(rel_to), unquote(href.split("#")[0]))
        )
        if label and target not in labels:
            labels[target] = collapse_ws(label)

    nav = next((i for i in items.values() if "nav" in i.get("properties", "").split()), None)
    if nav is not None:
        root = parse_xml_part(z.read(nav["path"])) if nav["path"] in z.namelist() else None
        for a in root.iter() if root is not None else []:
            if _local(a.tag) == "a" and a.get("href"):
                add(a.get("href", ""), "".join(a.itertext()), nav["path"])
    ncx = items.get(spine_toc or "")
    if ncx is not None and ncx["path"] in z.namelist():
        root = parse_xml_part(z.read(ncx["path"]))
        for point in root.iter() if root is not None else []:
            if _local(point.tag) != "navPoint":
                continue
            text = next((t for t in point.iter() if _local(t.tag) == "text"), None)
            src = next((c for c in point if _local(c.tag) == "content"), None)
            if text is not None and src is not None:
                add(src.get("src", ""), "".join(text.itertext()), ncx["path"])
    return labels


def _check_drm(z: zipfile.ZipFile, name: str) -> None:
    if "META-INF/encryption.xml" not in z.namelist():
        return
    root = parse_xml_part(z.read("META-INF/encryption.xml"))
    uris = [
        el.get("URI", "")
        for el in (root.iter() if root is not None else [])
        if _local(el.tag) == "CipherReference"
    ]
    if any(u.lower().endswith((".xhtml", ".html", ".htm", ".xml")) for u in uris):
        raise Encrypted(
            f"{name}: the book's text is encrypted (DRM).",
            hint="Add a DRM-free copy of the book.",
        )


def _shift(node: RawNode, by: int, locator: dict[str, Any]) -> None:
    node.char_start += by
    node.char_end += by
    if node.kind != "section":
        node.attrs["locator"] = dict(locator)
    for child in node.children:
        _shift(child, by, locator)


def parse_epub(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    z = open_package(raw, name, "EPUB", budget)  # every member's size checked first
    try:
        return _parse(z, name, budget)
    except IngestError:
        raise
    except Exception as exc:  # a damaged member (zlib.error, KeyError, UnicodeDecodeError)
        raise broken(name, "EPUB", exc) from exc


def _parse(z: zipfile.ZipFile, name: str, budget: ParseBudget | None) -> Extracted:
    _check_drm(z, name)
    container = _xml(z, "META-INF/container.xml", name)
    rootfile = next(
        (el.get("full-path") for el in container.iter() if _local(el.tag) == "rootfile"), None
    )
    if not rootfile:
        raise BrokenFile(f"{name}: the EPUB names no package document.", hint="Re-export the book.")
    opf = _xml(z, rootfile, name)
    base = posixpath.dirname(rootfile)
    items: dict[str, dict[str, str]] = {}
    for el in opf.iter():
        if _local(el.tag) == "item" and el.get("id") and el.get("href"):
            path = posixpath.normpath(posixpath.join(base, unquote(el.get("href", ""))))
            items[el.get("id", "")] = {**{k: v for k, v in el.attrib.items()}, "path": path}
    spine = next((el for el in opf.iter() if _local(el.tag) == "spine"), None)
    idrefs = (
        [el.get("idref", "") for el in spine if _local(el.tag) == "itemref"]
        if spine is not None
        else []
    )
    title_el = next((el for el in opf.iter() if _local(el.tag) == "title"), None)
    book_title = collapse_ws("".join(title_el.itertext())) if title_el is not None else None
    limits = budget.limits if budget is not None else ParseLimits()
    if len(idrefs) > limits.max_spine_items:
        raise limit_error(
            name, f"{len(idrefs):,} spine entries", "max_spine_items", limits.max_spine_items
        )
    labels = _toc_labels(z, base, items, spine.get("toc") if spine is not None else None)
    members = set(z.namelist())
    parts: list[str] = []
    length = 0
    top: list[RawNode] = []
    chapters: list[str] = []
    seen: set[str] = set()
    for spine_index, idref in enumerate(idrefs):
        item = items.get(idref)
        if (
            item is None
            or item.get("media-type") not in _CONTENT
            or item["path"] not in members
            or item["path"] in seen  # a chapter listed again is read and parsed once
        ):
            continue
        seen.add(item["path"])
        source = z.read(item["path"]).decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
        doc = parse_html(source, item["path"], budget)
        if not doc.nodes:
            continue
        if parts:
            parts.append(BLOCK_SEP)
            length += len(BLOCK_SEP)
        offset = length
        parts.append(source)
        length += len(source)
        href = posixpath.relpath(item["path"], base) if base else item["path"]
        locator = {"chapter": href, "spine_index": spine_index}
        for node in doc.nodes:
            _shift(node, offset, locator)
        title = labels.get(item["path"]) or doc.title or href
        start = min(n.char_start for n in doc.nodes)
        end = max(n.char_end for n in doc.nodes)
        section = RawNode(
            "section",
            start,
            end,
            title,
            title=title,
            level=1,
            attrs={"locator": locator},
            children=doc.nodes,
        )
        top.append(section)
        chapters.append(href)
    if not top:
        raise EmptyFile(
            f"{name}: the book has no readable text in its spine.", hint="Check the file."
        )
    return Extracted("".join(parts), top, book_title, {"chapters": chapters})
