"""Checked, not trusted: a per-page test of extracted PDF text for mis-mapped glyphs.

A PDF font maps glyph codes to Unicode through its ToUnicode CMap (or an encoding);
when that map is wrong, or an extractor reads it wrongly, the text holds code points
that no page of that script would contain. :func:`score_text` counts, per page:

- **foreign letters**: letters from a script that does not go with the page's dominant
  script (Mongolian, Tai Le or Canadian syllabics on a CJK or Latin page). Latin and
  Greek (names, math) go with every page, and the CJK family (Han, kana, Hangul,
  Bopomofo) goes together;
- **private-use** code points (U+E000-F8FF and planes 15-16) and U+FFFD;
- **control characters** other than tab and line breaks.

A script that is rare in print (Mongolian, Tai Le, Canadian syllabics, Yi, ...) is
foreign unless it is the page's main script; of the others, the most common non-Latin
one is the page's own (a Chinese page with English words: Han and Latin both belong).

Private-use and control characters weigh :data:`GAP_WEIGHT`: math and symbol fonts
without a Unicode map yield them for symbols (brace pieces, relations), which leaves a
gap where a symbol was, not a wrong letter inside a word. A letter mapped to a foreign
script, or U+FFFD, weighs 1. The page is *suspect* when the weighted count reaches
:data:`MIN_SUSPECT` and :data:`MAX_RATIO` of its letters. Measured over the shared
document and paper corpora (TeX papers with unmapped math fonts, a Chinese LaTeX paper),
the highest page scores 2.2 % (math-heavy pages of control characters); a broken map
turns most of a page's common characters (well over 10 %).
"""

from __future__ import annotations

import bisect
import unicodedata
from collections import Counter
from dataclasses import dataclass

#: Suspect characters a page needs before it can fail (one stray symbol never does).
MIN_SUSPECT = 8
#: Share of the page's letters that must be suspect for the page to fail.
MAX_RATIO = 0.05
#: Weight of a private-use or control character (a gap, see the module doc).
GAP_WEIGHT = 0.25
#: Scripts that are foreign on a page unless they are its main script.
_RARE = frozenset(
    [
        "mongolian",
        "canadian",
        "tai_le",
        "new_tai_lue",
        "buginese",
        "tai_tham",
        "balinese",
        "sundanese",
        "batak",
        "lepcha",
        "ol_chiki",
        "limbu",
        "ogham",
        "runic",
        "philippine",
        "cherokee",
        "yi",
        "nko",
        "thaana",
        "syriac",
    ]
)

# (first code point, script) for each range start; a code point belongs to the last
# range starting at or below it. "common" covers digits, punctuation, symbols, math.
_RANGES: tuple[tuple[int, str], ...] = (
    (0x0000, "latin"),
    (0x0300, "common"),
    (0x0370, "greek"),
    (0x0400, "cyrillic"),
    (0x0530, "armenian"),
    (0x0590, "hebrew"),
    (0x0600, "arabic"),
    (0x0700, "syriac"),
    (0x0750, "arabic"),
    (0x0780, "thaana"),
    (0x07C0, "nko"),
    (0x0800, "other"),
    (0x08A0, "arabic"),
    (0x0900, "indic"),
    (0x0E00, "thai"),
    (0x0E80, "lao"),
    (0x0F00, "tibetan"),
    (0x1000, "myanmar"),
    (0x10A0, "georgian"),
    (0x1100, "hangul"),
    (0x1200, "ethiopic"),
    (0x13A0, "cherokee"),
    (0x1400, "canadian"),
    (0x1680, "ogham"),
    (0x16A0, "runic"),
    (0x1700, "philippine"),
    (0x1780, "khmer"),
    (0x1800, "mongolian"),
    (0x18B0, "canadian"),
    (0x1900, "limbu"),
    (0x1950, "tai_le"),
    (0x1980, "new_tai_lue"),
    (0x19E0, "khmer"),
    (0x1A00, "buginese"),
    (0x1A20, "tai_tham"),
    (0x1AB0, "common"),
    (0x1B00, "balinese"),
    (0x1B80, "sundanese"),
    (0x1BC0, "batak"),
    (0x1C00, "lepcha"),
    (0x1C50, "ol_chiki"),
    (0x1C80, "other"),
    (0x1D00, "latin"),
    (0x1DC0, "common"),
    (0x1E00, "latin"),
    (0x1F00, "greek"),
    (0x2000, "common"),
    (0x2C00, "other"),
    (0x2C60, "latin"),
    (0x2C80, "other"),
    (0x2DE0, "common"),
    (0x2E80, "cjk"),
    (0x3040, "kana"),
    (0x3100, "bopomofo"),
    (0x3130, "hangul"),
    (0x3190, "cjk"),
    (0x31A0, "bopomofo"),
    (0x31C0, "cjk"),
    (0x31F0, "kana"),
    (0x3200, "cjk"),
    (0xA000, "yi"),
    (0xA4D0, "other"),
    (0xA720, "latin"),
    (0xA800, "other"),
    (0xAC00, "hangul"),
    (0xD7B0, "other"),
    (0xE000, "private"),
    (0xF900, "cjk"),
    (0xFB00, "latin"),
    (0xFB1D, "hebrew"),
    (0xFB50, "arabic"),
    (0xFE00, "common"),
    (0xFE30, "cjk"),
    (0xFE50, "common"),
    (0xFE70, "arabic"),
    (0xFF00, "common"),
    (0x10000, "other"),
    (0x1D400, "common"),
    (0x1E000, "other"),
    (0x1F000, "common"),
    (0x20000, "cjk"),
    (0x40000, "other"),
    (0xF0000, "private"),
)
_STARTS = [start for start, _ in _RANGES]
_FAMILY = {"kana": "cjk", "hangul": "cjk", "bopomofo": "cjk"}
#: Scripts that go with a page of any script (Latin words, Greek letters in formulas).
_EVERYWHERE = frozenset({"latin", "greek", "common", "other"})
_LAYOUT_CONTROLS = frozenset("\t\n\r\x0b\x0c")


def script_of(ch: str) -> str:
    """The script family of one character (by Unicode block)."""
    script = _RANGES[bisect.bisect_right(_STARTS, ord(ch)) - 1][1]
    return _FAMILY.get(script, script)


@dataclass(frozen=True, slots=True)
class GlyphScore:
    """What :func:`score_text` found on one page's text."""

    letters: int
    dominant: str
    foreign: int
    private: int
    replacement: int
    control: int

    @property
    def suspect(self) -> float:
        """The weighted count of suspect characters."""
        return self.foreign + self.replacement + GAP_WEIGHT * (self.private + self.control)

    @property
    def ratio(self) -> float:
        return self.suspect / max(self.letters, 1)

    @property
    def passes(self) -> bool:
        return self.suspect < MIN_SUSPECT or self.ratio < MAX_RATIO

    def reason(self) -> str:
        """The counts that made the page suspect, as a person reads them."""
        parts = [
            f"{n} {what}"
            for n, what in (
                (self.foreign, f"letters from scripts foreign to a {self.dominant} page"),
                (self.private, "private-use code points"),
                (self.replacement, "replacement characters (U+FFFD)"),
                (self.control, "control characters"),
            )
            if n
        ]
        return f"{', '.join(parts)} in {self.letters} letters ({self.ratio:.0%})"


def _dominant(scripts: Counter[str]) -> str:
    """The script most of the page's letters are in (Latin when none is)."""
    real = Counter({s: n for s, n in scripts.items() if s not in ("common", "other")})
    return real.most_common(1)[0][0] if real else "latin"


def _kind(ch: str) -> str:
    """``replacement``, ``private``, ``control``, ``letter`` or ``other``."""
    cat = unicodedata.category(ch)
    if ch == "\ufffd":
        return "replacement"
    if cat == "Co" or script_of(ch) == "private":
        return "private"
    if cat == "Cc" and ch not in _LAYOUT_CONTROLS:
        return "control"
    return "letter" if cat[0] == "L" else "other"


def score_text(text: str) -> GlyphScore:
    """Count the suspect characters of one page's text (see the module doc). Each
    distinct character is classified once (a page repeats a few hundred)."""
    scripts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for ch, n in Counter(text).items():
        kind = _kind(ch)
        kinds[kind] += n
        if kind == "letter":
            scripts[script_of(ch)] += n
    private, replacement, control = kinds["private"], kinds["replacement"], kinds["control"]
    letters = kinds["letter"]
    dominant = _dominant(scripts)
    own = Counter({s: n for s, n in scripts.items() if s not in _EVERYWHERE | _RARE})
    allowed = _EVERYWHERE | {dominant} | {s for s, _ in own.most_common(1)}
    foreign = sum(n for s, n in scripts.items() if s not in allowed)
    letters += private + replacement  # a mis-mapped letter still stands for a letter
    return GlyphScore(letters, dominant, foreign, private, replacement, control)


__all__ = ["GAP_WEIGHT", "MAX_RATIO", "MIN_SUSPECT", "GlyphScore", "score_text", "script_of"]
