"""Text inside pictures of office documents (issue 36): an image embedded in a DOCX
paragraph or on a PPTX slide is read by Tesseract (the OCR that scanned PDF pages use,
``pdf_ocr.available``: Debian ``tesseract-ocr`` + pytesseract, ``CITEWISE_OCR`` not
``off``) and its text becomes a node right after the paragraph or on the slide, whose
locator names the picture and says it is OCR output (``ocr: true``, the mean word
confidence, ``degraded: "ocr"``). Without OCR a picture adds nothing, as before.

Bounds (the parse budget of the security issue): a picture is decoded only when its
declared size fits ``max_render_pixels`` (a picture declaring 100,000 × 100,000 pixels is
skipped, not decoded), and Tesseract's time is charged to ``ocr_seconds_per_page`` (per
picture) and ``ocr_seconds_per_file`` like a scanned page's.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass

from citewise.config import ParseLimits
from citewise.ingest import pdf_ocr
from citewise.ingest.limits import ParseBudget, limit_error

#: Words Tesseract reads with a confidence under this (0..100) are dropped: stray marks in
#: a chart or photo read as letters. 60 is the level under which Tesseract's own
#: documentation calls a word unreliable; chosen on generated pictures only.
MIN_WORD_CONFIDENCE = 60.0
#: A picture smaller than this on either side holds no readable text (icons, bullets).
MIN_SIDE = 24


@dataclass(frozen=True, slots=True)
class PictureText:
    text: str
    confidence: float  # mean word confidence, 0..1


def read_picture(blob: bytes, name: str, budget: ParseBudget | None) -> PictureText | None:
    """The words of one embedded picture, or None (no OCR here, not an image Pillow
    reads, too small, too large for the budget, or no confident word)."""
    if not pdf_ocr.available():
        return None
    from PIL import Image

    limits = budget.limits if budget is not None else ParseLimits()
    try:
        with Image.open(io.BytesIO(blob)) as probe:  # reads the header, not the pixels
            width, height = probe.size
            if min(width, height) < MIN_SIDE or width * height > limits.max_render_pixels:
                return None
            probe.load()
            image = probe.convert("L")
    except Exception:  # not an image Pillow reads (EMF, SVG, broken data): no text
        return None
    return _ocr(image, name, budget)


def _ocr(image: object, name: str, budget: ParseBudget | None) -> PictureText | None:
    import pytesseract

    if budget is None:
        budget = ParseBudget(name, ParseLimits())
    allowance, setting = budget.ocr_allowance()
    with budget.ocr():
        try:
            data = pytesseract.image_to_data(
                image, output_type=pytesseract.Output.DICT, timeout=allowance
            )
        except RuntimeError as exc:  # pytesseract's "Tesseract process timeout"
            if "timeout" not in str(exc).lower():
                raise
            limit = float(getattr(budget.limits, setting))
            raise limit_error(name, "OCR of a picture", setting, limit) from exc
    lines: dict[tuple[int, int, int], list[str]] = {}
    confs: list[float] = []
    for i, word in enumerate(data["text"]):
        text, conf = str(word).strip(), float(data["conf"][i])
        if not text or conf < MIN_WORD_CONFIDENCE:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        lines.setdefault(key, []).append(text)
        confs.append(conf)
    if not confs:
        return None
    text = " ".join(" ".join(words) for _, words in sorted(lines.items()))
    return PictureText(text, round(sum(confs) / len(confs) / 100, 3))


def picture_locator(
    base: Mapping[str, object], index: int, found: PictureText
) -> dict[str, object]:
    """``base`` (the paragraph's or slide's locator) naming picture ``index`` (0-based)
    and saying its text is OCR output."""
    return {
        **base,
        "image": index,
        "ocr": True,
        "confidence": found.confidence,
        "degraded": "ocr",
    }
