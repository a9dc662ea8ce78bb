"""Clause numbering as structure: markers -> clause paths.

Recognised markers (at the start of a heading or block):

* anchors: ``§ 1002.4`` -> ``1002.4``; ``7.3.2`` -> ``7.3.2``; ``Article 12`` /
  ``Art. 12`` / ``第十二条`` -> ``Art.12`` (``第十二条之一`` -> ``Art.12-1``);
* Chinese structure: ``第一编`` ``第一章`` ``第二节`` -> ``Pt.1`` / ``Ch.1`` /
  ``Ch.1.Sec.2`` (articles are numbered through the whole law, so article paths
  do not include the chapter);
* paragraph levels: ``(a)`` ``(1)`` ``(i)`` ``(A)`` and fullwidth ``（一）`` /
  ``（1）`` (both a number level), appended to the anchor: ``1002.4(b)(1)``,
  ``Art.12(1)``.

``(i)``, ``(v)``, ``(x)`` are either letters or roman numerals. They are resolved
by context: a letter level whose current item is the preceding letter makes it a
letter, a roman level with the preceding numeral (or, for ``(i)``, a number level
on top of the stack) makes it roman. If both or neither fit, the following
markers decide (``(ii)`` before ``(j)`` -> roman). Otherwise the clause is
recorded as missing: ``path=None, ambiguous=True``; nothing is invented.

Policy for unmarked blocks: a paragraph without its own marker gets the path of
the enclosing *anchor* (section / article / decimal clause), never a
paragraph-level path, and ``inherited=True``. Blocks outside any anchor get None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_CN_NUM = "零〇一二三四五六七八九十百千万两0-9０-９"

#: ``§ 1002.4``, ``§§ 1.1-1.3``; a part number may carry a letter (``§ 1203b.102``).
_SECTION = re.compile(
    r"§{1,2}\s*(\d+[a-z]?(?:\.\d+[a-z]?)*(?:\s*[-–]\s*\d+[a-z]?(?:\.\d+[a-z]?)*)?)"
)
_DECIMAL = re.compile(r"(\d{1,3}(?:\.\d{1,3})+)\.?(?=\s|$)")
_HEAD_NUMBER = re.compile(r"(\d{1,3})\.?\s+(?=\S)")
_ARTICLE = re.compile(r"(?:Article|ARTICLE|Art\.?)\s*(\d+[a-z]?)\b")
_CN_ARTICLE = re.compile(rf"第\s*([{_CN_NUM}]+)\s*条(?:\s*之\s*([{_CN_NUM}]+))?")
_CN_STRUCT = re.compile(rf"第\s*([{_CN_NUM}]+)\s*([编章节])")
_PAREN = re.compile(r"\s*\(([a-z]{1,5}|[A-Z]{1,2}|\d{1,3})\)")
_FW_PAREN = re.compile(rf"\s*[（(]\s*([{_CN_NUM}]+)\s*[）)]")
_ROMAN = re.compile(r"m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}

_ROMAN_TABLE = tuple(
    zip(
        (1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1),
        ("m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"),
        strict=True,
    )
)

Level = Literal["lower", "digit", "roman", "upper", "unknown"]


def chinese_to_int(numeral: str) -> int | None:
    """``十二`` -> 12, ``一百二十三`` -> 123, ``二〇二一`` -> 2021, ``12`` -> 12."""
    s = numeral.strip().translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if not s:
        return None
    if s.isdigit():
        return int(s)
    if all(c in _CN_DIGITS for c in s):
        return int("".join(str(_CN_DIGITS[c]) for c in s))
    total, section, digit = 0, 0, 0
    for ch in s:
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            unit = _CN_UNITS[ch]
            if unit == 10000:
                total += (section + digit) * unit
                section = 0
            else:
                section += (digit or 1) * unit
            digit = 0
        else:
            return None
    return total + section + digit


def roman_to_int(numeral: str) -> int | None:
    """Lower-case roman numeral to int; None if not a well-formed numeral."""
    s = numeral.lower()
    if not s or _ROMAN.fullmatch(s) is None:
        return None
    total = 0
    for i, ch in enumerate(s):
        v = _ROMAN_VALUES[ch]
        total += -v if i + 1 < len(s) and _ROMAN_VALUES[s[i + 1]] > v else v
    return total


@dataclass(frozen=True, slots=True)
class ClauseAnchor:
    """A top-level clause marker found at the start of a text."""

    kind: Literal["section", "decimal", "article", "cn_struct"]
    path: str
    #: for cn_struct: 1 part (编), 2 chapter (章), 3 section (节)
    rank: int = 0


def find_anchor(text: str, *, heading: bool) -> ClauseAnchor | None:
    """The anchor marker at the start of ``text``, if any."""
    s = text.lstrip()
    if m := _SECTION.match(s):
        return ClauseAnchor("section", re.sub(r"\s+", "", m.group(1)).replace("–", "-"))
    if m := _CN_ARTICLE.match(s):
        n = chinese_to_int(m.group(1))
        if n is not None:
            sub = chinese_to_int(m.group(2)) if m.group(2) else None
            return ClauseAnchor("article", f"Art.{n}" + (f"-{sub}" if sub else ""))
    if m := _CN_STRUCT.match(s):
        n = chinese_to_int(m.group(1))
        if n is not None:
            rank = "编章节".index(m.group(2)) + 1
            return ClauseAnchor("cn_struct", f"{('Pt', 'Ch', 'Sec')[rank - 1]}.{n}", rank)
    if m := _ARTICLE.match(s):
        return ClauseAnchor("article", f"Art.{m.group(1)}")
    if m := _DECIMAL.match(s):
        rest = s[m.end() :].lstrip()
        # In running text "3.5 percent" is not a clause: require a capital/CJK start.
        if heading or (rest and (rest[0].isupper() or "\u3400" <= rest[0] <= "\u9fff")):
            return ClauseAnchor("decimal", m.group(1))
    if heading and (m := _HEAD_NUMBER.match(s)):
        return ClauseAnchor("decimal", m.group(1))
    return None


def leading_paren_markers(text: str) -> tuple[list[str], int]:
    """Raw labels of the leading ``(a)(1)``/``（一）`` markers and where they end.

    Fullwidth/Chinese numerals are returned as arabic digits.
    """
    labels: list[str] = []
    pos = 0
    s = text
    while True:
        if m := _PAREN.match(s, pos):
            labels.append(m.group(1))
        elif (m := _FW_PAREN.match(s, pos)) and (n := chinese_to_int(m.group(1))) is not None:
            labels.append(str(n))
        else:
            break
        pos = m.end()
    return labels, pos


def _prev_letter(label: str) -> str | None:
    if len(set(label)) != 1 or label[0] == "a":
        return None if len(label) == 1 else label[:-1] if label[0] == "a" else None
    return chr(ord(label[0]) - 1) * len(label)


def _is_letter(label: str) -> bool:
    return label.isalpha() and len(set(label)) == 1


@dataclass(frozen=True, slots=True)
class ClauseResult:
    path: str | None
    marker: str | None = None
    inherited: bool = False
    ambiguous: bool = False


@dataclass(frozen=True, slots=True)
class ClauseEvent:
    """One heading (``level`` = heading depth) or block, in document order."""

    kind: Literal["heading", "block"]
    text: str
    level: int = 0


class ClauseTracker:
    """Stack-based tracker; feed headings and blocks in document order."""

    def __init__(self) -> None:
        self._anchor: str | None = None
        self._anchor_level = 0  # heading level the anchor came from (99: a block)
        self._struct: dict[int, str] = {}
        self._stack: list[tuple[Level, str]] = []  # paragraph levels below the anchor

    def _struct_path(self) -> str:
        return ".".join(self._struct[r] for r in sorted(self._struct))

    def heading(self, level: int, text: str) -> ClauseResult:
        anchor = find_anchor(text, heading=True)
        self._stack = []
        if anchor is None:
            if self._anchor is not None and level <= self._anchor_level:
                self._anchor = None
            labels, _ = leading_paren_markers(text)
            if labels:
                return self._parens(labels, ())
            return ClauseResult(None)
        if anchor.kind == "cn_struct":
            self._struct = {r: v for r, v in self._struct.items() if r < anchor.rank}
            self._struct[anchor.rank] = anchor.path
            self._anchor = None
            return ClauseResult(self._struct_path(), marker=anchor.path)
        self._anchor, self._anchor_level = anchor.path, level
        return ClauseResult(anchor.path, marker=anchor.path)

    def block(self, text: str, following: Sequence[str] = ()) -> ClauseResult:
        """``following``: leading paren labels of later blocks (for ``(i)`` lookahead)."""
        anchor = find_anchor(text, heading=False)
        if anchor is not None and anchor.kind in ("article", "section"):
            self._anchor, self._anchor_level, self._stack = anchor.path, 99, []
            rest = _CN_ARTICLE.sub("", text.lstrip(), count=1) if "条" in text[:12] else ""
            labels, _ = leading_paren_markers(rest)
            if labels:
                return self._parens(labels, following)
            return ClauseResult(anchor.path, marker=anchor.path)
        labels, _ = leading_paren_markers(text)
        if labels:
            return self._parens(labels, following)
        if self._anchor is not None:
            return ClauseResult(self._anchor, inherited=True)
        return ClauseResult(None)

    # -- paragraph levels ---------------------------------------------------
    def _levels(self) -> dict[Level, str]:
        return dict(self._stack)

    def _classify(self, label: str, following: Sequence[str]) -> Level:
        if label.isdigit():
            return "digit"
        if label.isupper():
            return "upper"
        roman = roman_to_int(label)
        letter = _is_letter(label)
        if roman is None:
            return "lower" if letter else "unknown"
        if not letter:
            return "roman"
        levels = self._levels()
        prev = _prev_letter(label)
        letter_fits = "lower" in levels and levels["lower"] == prev
        cur_roman = roman_to_int(levels["roman"]) if "roman" in levels else None
        roman_fits = (cur_roman is not None and cur_roman + 1 == roman) or (
            roman == 1
            and "roman" not in levels
            and bool(self._stack)
            and self._stack[-1][0] == "digit"
        )
        if letter_fits != roman_fits:
            return "lower" if letter_fits else "roman"
        if label == "a" or (not letter_fits and len(label) == 1 and label not in "ivx"):
            return "lower"
        next_roman = _to_roman(roman + 1)
        next_letter = chr(ord(label[0]) + 1) * len(label)
        for nxt in following:
            if nxt == next_roman:
                return "roman"
            if nxt == next_letter:
                return "lower"
        return "unknown"

    def _parens(self, labels: list[str], following: Sequence[str]) -> ClauseResult:
        ambiguous = False
        for i, label in enumerate(labels):
            level = self._classify(label, [*labels[i + 1 :], *following])
            if level == "unknown":
                ambiguous = True
                self._stack.append(("unknown", label))
                continue
            idx = next((k for k, (lv, _) in enumerate(self._stack) if lv == level), None)
            if idx is not None:
                del self._stack[idx:]
            self._stack.append((level, label))
        marker = "".join(f"({lab})" for lab in labels)
        if ambiguous or any(lv == "unknown" for lv, _ in self._stack):
            return ClauseResult(None, marker=marker, ambiguous=True)
        path = (self._anchor or "") + "".join(f"({lab})" for _, lab in self._stack)
        return ClauseResult(path, marker=marker)


def _to_roman(n: int) -> str:
    out = []
    for v, s in _ROMAN_TABLE:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def assign_clause_paths(events: Sequence[ClauseEvent]) -> list[ClauseResult]:
    """Run a :class:`ClauseTracker` over ``events`` with lookahead for ``(i)``."""
    upcoming: list[list[str]] = [leading_paren_markers(e.text)[0] for e in events]
    tracker = ClauseTracker()
    results: list[ClauseResult] = []
    for i, ev in enumerate(events):
        if ev.kind == "heading":
            results.append(tracker.heading(ev.level, ev.text))
            continue
        following: list[str] = []
        for j in range(i + 1, min(len(events), i + 40)):
            if events[j].kind == "heading":
                break
            following.extend(upcoming[j])
        results.append(tracker.block(ev.text, following))
    return results
