"""Sentence splitting with exact offsets (English and Chinese), and match scoring.

A sentence ends at ``。！？`` (plus closing quotes/brackets), at ``.!?`` followed by
whitespace (unless the word before the period is a known abbreviation, a single letter,
or a leading list number, or the next word starts lowercase), and at blank lines. Each
sentence is trimmed of surrounding whitespace; offsets always slice the input exactly.
"""

from __future__ import annotations

import re

from citewise.index.tokenize import key_terms, tokenize

_CJK_END = re.compile(r"[。！？!?；]+[”’」』）\)\"']*")
_LATIN_END = re.compile(r"[.!?]+[”’\"'\)\]]*(?=\s)")
_BLANK = re.compile(r"\n[ \t]*\n")
_ABBREV = frozenset(
    {"e.g", "i.e", "etc", "vs", "cf", "al", "fig", "figs", "eq", "eqs", "no", "nos", "approx"}
    | {"dr", "mr", "mrs", "ms", "prof", "st", "inc", "ltd", "co", "jr", "sr", "dept", "est"}
    | {"vol", "pp", "ca", "resp"}
)


def _is_break(text: str, m: re.Match[str], piece_start: int) -> bool:
    if m.re is _CJK_END or m.re is _BLANK:
        return True
    word_start = m.start()
    while word_start > piece_start and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start : m.start()].lower().strip("([\"'")
    if text[m.start()] == ".":
        if word in _ABBREV or (len(word) == 1 and word.isalpha()):
            return False
        if word.isdigit() and not text[piece_start:word_start].strip():
            return False  # a list marker like "1."
    nxt = m.end()
    while nxt < len(text) and text[nxt].isspace():
        nxt += 1
    return not (nxt < len(text) and text[nxt].islower())


def split_sentences(text: str, base: int = 0) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence, as ``base`` + offsets into ``text``."""
    cuts: list[re.Match[str]] = []
    for pattern in (_CJK_END, _LATIN_END, _BLANK):
        cuts.extend(pattern.finditer(text))
    cuts.sort(key=lambda m: (m.end(), m.start()))
    out: list[tuple[int, int]] = []
    start = 0
    for m in cuts:
        if m.end() <= start or not _is_break(text, m, start):
            continue
        end = m.start() if m.re is _BLANK else m.end()
        out.extend(_trimmed(text, start, end))
        start = m.end()
    out.extend(_trimmed(text, start, len(text)))
    return [(base + s, base + e) for s, e in out]


def _trimmed(text: str, start: int, end: int) -> list[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return [(start, end)] if end > start else []


def coverage(terms: list[str], text: str) -> int:
    """How many of ``terms`` (from :func:`key_terms`) occur in ``text``."""
    present = set(tokenize(text))
    return sum(1 for t in terms if t in present)


def query_terms(query: str) -> list[str]:
    return key_terms(query)
