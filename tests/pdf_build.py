"""Small text PDFs written as PDF syntax (no PDF library writes them here): pages of
text runs at given positions and sizes in Helvetica / Helvetica-Bold, and an optional
outline (bookmarks). Built with :func:`tests.hostile_pdf.build`."""

from __future__ import annotations

from dataclasses import dataclass

from tests.hostile_pdf import build


@dataclass(frozen=True)
class Run:
    """One text run: ``text`` at (``x``, ``y``) points, ``size`` points, bold or not."""

    x: float
    y: float
    text: str
    size: float = 11.0
    bold: bool = False


def _escape(text: str) -> bytes:
    out = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return out.encode("latin-1")


def _content(runs: list[Run]) -> bytes:
    ops = b""
    for r in runs:
        font = b"/F2" if r.bold else b"/F1"
        ops += b"BT %s %g Tf %g %g Td (%s) Tj ET\n" % (font, r.size, r.x, r.y, _escape(r.text))
    return ops


def text_pdf(
    pages: list[list[Run]],
    outline: list[tuple[int, str, int]] | None = None,
    size: tuple[float, float] = (612, 792),
) -> bytes:
    """A PDF of ``pages`` (each a list of runs); ``outline`` = (level 1.., title,
    0-based page) bookmarks in document order."""
    n = len(pages)
    first_page = 3  # catalog, pages, then page i at 3 + 2i and its content at 4 + 2i
    fonts = 3 + 2 * n
    objects: list[bytes] = [b"", b""]
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(n))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n)
    for i, runs in enumerate(pages):
        data = _content(runs)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>"
            % (size[0], size[1], 4 + 2 * i, fonts, fonts + 1)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>")
    catalog = b"<< /Type /Catalog /Pages 2 0 R"
    if outline:
        catalog += b" /Outlines %d 0 R" % (len(objects) + 1)
        objects.extend(_outline(outline, len(objects) + 1, first_page))
    objects[0] = catalog + b" >>"
    return build(objects)


def _outline(items: list[tuple[int, str, int]], root: int, first_page: int) -> list[bytes]:
    """The outline dictionary (object ``root``) and one item per bookmark after it,
    nested by level."""
    numbers = [root + 1 + i for i in range(len(items))]
    parent: list[int] = []  # index of each item's parent, -1 for the root
    stack: list[int] = []
    for i, (level, _, _) in enumerate(items):
        while stack and items[stack[-1]][0] >= level:
            stack.pop()
        parent.append(stack[-1] if stack else -1)
        stack.append(i)

    def children(p: int) -> list[int]:
        return [i for i in range(len(items)) if parent[i] == p]

    def ref(i: int) -> int:
        return root if i < 0 else numbers[i]

    top = children(-1)
    out = [
        b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>"
        % (ref(top[0]), ref(top[-1]), len(items))
    ]
    for i, (_, title, page) in enumerate(items):
        sibs = children(parent[i])
        k = sibs.index(i)
        body = b"<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /Fit]" % (
            _escape(title),
            ref(parent[i]),
            first_page + 2 * page,
        )
        if k > 0:
            body += b" /Prev %d 0 R" % ref(sibs[k - 1])
        if k + 1 < len(sibs):
            body += b" /Next %d 0 R" % ref(sibs[k + 1])
        kids = children(i)
        if kids:
            body += b" /First %d 0 R /Last %d 0 R /Count %d" % (
                ref(kids[0]),
                ref(kids[-1]),
                len(kids),
            )
        out.append(body + b" >>")
    return out
