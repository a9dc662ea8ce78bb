"""Hostile PDFs for the page, render and OCR budgets: each a few hundred bytes that
declares far more than it holds (a huge page box, a huge page count, a tiny image
stretched over a huge page). Written by hand as PDF syntax with a correct cross-reference
table, so PDFium opens them without repair; shared by tests and bench/hostile_pdf.py."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

#: A text line drawn with a standard font (so the page has a text layer).
_TEXT = b"BT /F1 24 Tf 72 72 Td (Harbor pilots board at the outer buoy.) Tj ET"


def build(objects: list[bytes]) -> bytes:
    """A complete PDF of ``objects`` (object 1 is the catalog), numbered from 1, with a
    cross-reference table and trailer."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def huge_page(width: float, height: float | None = None, *, text: bool = True) -> bytes:
    """One page of ``width`` x ``height`` points (a huge MediaBox), with one line of text
    near its lower-left corner when ``text``."""
    h = width if height is None else height
    content = _TEXT if text else b""
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>" % (width, h),
            _stream(content),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
    )


def scanned_huge_page(size: float, pages: int = 1, image_px: int = 8) -> bytes:
    """``pages`` pages of ``size`` x ``size`` points, each holding only an
    ``image_px`` x ``image_px`` grey image stretched over the page (no text layer, so the
    parser OCRs it). All pages share one content stream and one image."""
    pixels = zlib.compress(bytes([128]) * (image_px * image_px))
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
    page_objects = [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents 3 0 R "
        b"/Resources << /XObject << /Im1 4 0 R >> >> >>" % (size, size)
        for _ in range(pages)
    ]
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
            _stream(b"q %g 0 0 %g 0 0 cm /Im1 Do Q" % (size, size)),
            _stream(
                pixels,
                b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Filter /FlateDecode " % (image_px, image_px),
            ),
            *page_objects,
        ]
    )


def scanned_text_page(size: float, text: str = "Harbor pilots board at the outer buoy") -> bytes:
    """One ``size`` x ``size`` point page holding only a picture of ``text`` (black on
    white, drawn by Pillow) stretched across the page's width: a scan OCR can read."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=40)
    left, top, right, bottom = font.getbbox(text)
    w, h = int(right - left + 40), int(bottom - top + 40)
    image = Image.new("L", (w, h), 255)
    ImageDraw.Draw(image).text((20 - left, 20 - top), text, fill=0, font=font)
    pixels = zlib.compress(image.tobytes())
    shown_h = size * h / w
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents 4 0 R "
            b"/Resources << /XObject << /Im1 5 0 R >> >> >>" % (size, size),
            _stream(b"q %g 0 0 %g 0 %g cm /Im1 Do Q" % (size, shown_h, size / 2)),
            _stream(
                pixels,
                b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Filter /FlateDecode " % (w, h),
            ),
        ]
    )


def page_count_bomb(fanout: int = 100, levels: int = 3) -> bytes:
    """A page tree of ``fanout ** levels`` pages in a few kilobytes: each level's node
    lists the node below it ``fanout`` times, and the leaf is one small text page."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(levels):
        number = 2 + level
        child = number + 1
        parent = b"" if level == 0 else b"/Parent %d 0 R " % (number - 1)
        kids = b" ".join([b"%d 0 R" % child] * fanout)
        count = fanout ** (levels - level)
        objects.append(b"<< /Type /Pages %s/Kids [%s] /Count %d >>" % (parent, kids, count))
    leaf = 2 + levels
    objects.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 200 200] /Contents %d 0 R "
        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (leaf - 1, leaf + 1, leaf + 2)
    )
    objects.append(_stream(_TEXT))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return build(objects)


def many_pages(pages: int, size: float = 200) -> bytes:
    """``pages`` distinct small text pages sharing one content stream (a long but honest
    page list: the page count is real)."""
    first = 5
    kids = b" ".join(b"%d 0 R" % (first + i) for i in range(pages))
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents 3 0 R "
        b"/Resources << /Font << /F1 4 0 R >> >> >>" % (size, size)
    )
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
            _stream(_TEXT),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            *([page] * pages),
        ]
    )


@dataclass(frozen=True, slots=True)
class Measured:
    """One child interpreter's peak resident memory (its own, or a process it started and
    waited for, such as Tesseract, whichever is larger), wall time, exit status, output."""

    peak_mb: float
    seconds: float
    returncode: int
    stdout: str
    stderr: str


def child_env(extra: dict[str, str] | None = None, src: str | None = None) -> dict[str, str]:
    """The environment for a child interpreter that imports this checkout's citewise (or
    the one under ``src``) and this package (``tests``), whatever the parent's path."""
    import citewise

    src = src or str(Path(citewise.__file__).resolve().parents[1])
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([src, root, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra or {})
    return env


# The child reports its own high-water mark (VmHWM: this interpreter's memory since exec)
# and its children's ru_maxrss. The parent's wait4/RUSAGE_CHILDREN figure is not used: on
# Linux it includes the RSS of the parent at the moment it forked, so a child of a large
# test process would seem as large as its parent.
_WRAPPER = """
import atexit, os, resource, sys
def _report():
    with open('/proc/self/status') as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith('VmHWM:'))
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(os.environ['HOSTILE_PDF_PEAK'], 'w') as f:
        f.write(str(max(hwm, kids)))
atexit.register(_report)
code = sys.argv[1]
del sys.argv[1]
exec(compile(code, '<measured>', 'exec'), {'__name__': '__main__'})
"""


def measure(
    code: str, *, env: dict[str, str] | None = None, timeout: float = 300, src: str | None = None
) -> Measured:
    """Run ``code`` in a fresh interpreter and report its peak RSS (kB from the child's
    own accounting, see :data:`_WRAPPER`) and wall time. Past ``timeout`` seconds the
    child is killed (its peak is then unknown: reported as 0)."""
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        started = time.monotonic()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _WRAPPER, code],
                env=child_env({**(env or {}), "HOSTILE_PDF_PEAK": str(peak_file)}, src),
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            returncode, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            returncode, out, err = -9, str(exc.stdout or ""), str(exc.stderr or "")
        seconds = time.monotonic() - started
        peak_kb = int(peak_file.read_text()) if peak_file.exists() else 0
    return Measured(peak_kb / 1024, seconds, returncode, out, err)


__all__ = [
    "Measured",
    "build",
    "child_env",
    "huge_page",
    "many_pages",
    "measure",
    "page_count_bomb",
    "scanned_huge_page",
    "scanned_text_page",
]
